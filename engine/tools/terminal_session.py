"""A session's terminal: the backend, the persistent shell on it, and the session's background processes.

It is made on the first terminal call of a session and kept in the tool context's session state;
`close_terminal` ends it with the session (the agent calls it when a session ends or hws quits).
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

from engine.events import Status
from engine.tools.backends.base import Backend
from engine.tools.backends.choice import backend_name, make_backend
from engine.tools.capture import Capture
from engine.tools.context import Decision, ToolContext
from engine.tools.errors import ToolError
from engine.tools.persistent_shell import PersistentShell
from engine.tools.preview import one_line, plural
from engine.tools.processes import ProcessTable, ended_sentence

STATE_KEY = "terminal"
STATE_LIMIT = 4 * 1024 * 1024  # bytes of `env -0` read when a fresh shell takes over the shell's state
STATE_TIMEOUT = 30.0


class TerminalSession:
    """What one session's terminal calls share."""

    def __init__(self, ctx: ToolContext) -> None:
        self.ctx = ctx
        self.home = ctx.home
        self.config = ctx.config
        self.cwd = Path(ctx.cwd)
        self.session_id = ctx.session_id
        self.emit = ctx.emit
        # The session's own folder for what its terminal leaves (background processes' logs, fifos).
        self.folder = self.home.journal_dir / "sessions" / (ctx.session_id or "no-session")
        self.backend: Backend | None = None
        self.shell: PersistentShell | None = None
        self._open_lock = asyncio.Lock()
        self.closed = False
        section = ctx.config.terminal
        self.processes = ProcessTable(
            self.folder / "processes",
            self.emit,
            lambda: self.session_id,
            max_running=int(section.max_processes),
            buffer_limit=int(section.process_buffer_bytes),
            log_limit=int(section.process_log_max_bytes),
            kill_grace=float(section.kill_grace),
        )

    @property
    def remote(self) -> bool:
        return backend_name(self.config) != "local"

    async def ready_backend(self) -> Backend:
        """The backend, opened (BackendError with a sentence when it cannot be)."""
        async with self._open_lock:
            if self.backend is None:
                backend = make_backend(self.home, self.config, self.cwd, self.folder, self._trust_host_key)
                await backend.open()
                self.backend = backend
            return self.backend

    async def _trust_host_key(self, question: str, fingerprint: str) -> bool:
        """An ssh host not yet in known_hosts: the person decides, every time (even under yolo)."""
        decision = await self.ctx.ask(
            "terminal",
            f"trust ssh host key {fingerprint}",
            question,
            rule="ssh-host-key",
            scope="this host key, added to known_hosts",
            allow_session=False,
            always_ask=True,
        )
        return decision is not Decision.DENY

    async def ready_shell(self) -> PersistentShell:
        """The persistent shell, started."""
        backend = await self.ready_backend()
        if self.shell is None:
            section = self.config.terminal
            start = str(section.ssh_cwd or "") if backend.name == "ssh" else str(self.cwd)
            self.shell = PersistentShell(
                backend,
                start,
                kill_grace=float(section.kill_grace),
                restart_grace=float(section.restart_grace),
            )
        return self.shell

    async def spare_shell(self) -> PersistentShell:
        """A second shell, started in the session shell's folder, for a call that runs beside it."""
        shell = await self.ready_shell()
        spare = PersistentShell(
            shell.backend, shell.cwd, kill_grace=shell.kill_grace, restart_grace=shell.restart_grace
        )
        await spare.ensure()
        return spare

    async def shell_state(self) -> tuple[str, dict[str, str]]:
        """The session shell's folder and exported variables, for a fresh shell that must start from them."""
        shell = await self.ready_shell()
        capture = Capture(STATE_LIMIT, 0)
        async with shell.lock:
            await shell.run("builtin printf '%s\\0' \"$PWD\"; env -0", STATE_TIMEOUT, capture)
        folder, *pairs = bytes(capture.head).split(b"\0")
        variables = {}
        for pair in pairs:
            name, equals, value = pair.decode("utf-8", errors="replace").partition("=")
            if equals and name and name != "_":
                variables[name] = value
        return folder.decode("utf-8", errors="replace") or shell.cwd, variables

    async def close(self) -> None:
        """Stop the background processes (saying which), end the shell and release the backend."""
        self.closed = True
        stopped = await self.processes.stop_all()
        if stopped:
            names = ", ".join(f"{p.id} `{one_line(p.command, 50)}`" for p in stopped)
            count = plural(len(stopped), "background process", "background processes")
            with contextlib.suppress(Exception):
                self.emit(Status(self.session_id, "info", f"Stopped {count} as the session ended: {names}."))
        if self.shell is not None:
            await self.shell.close()
        if self.backend is not None:
            with contextlib.suppress(Exception):
                await self.backend.close()


def terminal_session(ctx: ToolContext) -> TerminalSession:
    """This session's terminal, made on first use."""
    session = ctx.state.extra.get(STATE_KEY)
    if not isinstance(session, TerminalSession) or session.closed:
        session = TerminalSession(ctx)
        ctx.state.extra[STATE_KEY] = session
    session.session_id = ctx.session_id or session.session_id  # a compression moves the session on
    return session


async def close_terminal(ctx: ToolContext | None) -> None:
    """End the session's terminal, if it has one: its shell, its processes and its backend."""
    if ctx is None:
        return
    session = ctx.state.extra.pop(STATE_KEY, None)
    if isinstance(session, TerminalSession):
        await session.close()


async def kill_background(ctx: ToolContext | None, process_id: str) -> str:
    """Kill one background process of the session (the person asked, from the workstation); a sentence."""
    session = ctx.state.extra.get(STATE_KEY) if ctx is not None else None
    if not isinstance(session, TerminalSession):
        return "This session has no background processes."
    try:
        process = session.processes.get(process_id)
    except ToolError as exc:
        return str(exc)
    if not process.running:
        return f"{process.id} is no longer running ({process.state()})."
    await session.processes.kill(process)
    return ended_sentence(process)
