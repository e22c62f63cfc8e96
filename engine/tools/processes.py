"""The session's background processes: started from the persistent shell, followed through a fifo.

Each runs as a job of the session shell, in the shell's folder with its variables, in a process
group of its own; its standard input is a fifo opened read-write (it never sees end of file, and
`process write` feeds it) and its output goes to another fifo that hws reads at once into a ring
buffer (`process poll`) and a log file under the session's folder (`process log`). When the command
ends, the job prints a marker with its exit status. Killing sends SIGTERM to the group, then SIGKILL.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from engine.events import Event, ProcessEnded, ProcessOutput, ProcessStarted
from engine.tools.backends.base import Backend, BackendError, Channel
from engine.tools.capture import Capture
from engine.tools.errors import ToolError
from engine.tools.persistent_shell import PersistentShell, quoted
from engine.tools.preview import one_line

EXIT = "__HWS_EXIT_"
OUTPUT_EVENT_EVERY = 1.0  # seconds between two ProcessOutput events of one process
LAUNCH_TIMEOUT = 30.0  # seconds the shell may take to start a background job
END_WAIT = 5.0  # seconds to wait for a killed process's output to end before giving up on it


@dataclass
class BackgroundProcess:
    """One background process and what it has printed."""

    id: str
    command: str
    where: str
    cwd: str
    pgid: int
    fifo_name: str
    input_path: str
    log_path: Path
    buffer_limit: int
    log_limit: int
    pty: bool = False
    started: float = field(default_factory=time.monotonic)
    finished: float | None = None
    exit_code: int | None = None
    reason: str = ""  # exited | killed | session_end | lost
    total: int = 0  # bytes printed in all
    polled: int = 0  # offset of the end of what `poll` returned last
    buffer: bytearray = field(default_factory=bytearray)
    buffer_start: int = 0  # offset of buffer[0]
    logged: int = 0
    stopping: str = ""  # why it is being killed (killed | session_end), while it is
    ended: asyncio.Event = field(default_factory=asyncio.Event)
    output_done: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def running(self) -> bool:
        return not self.ended.is_set()

    @property
    def runtime(self) -> float:
        return (self.finished or time.monotonic()) - self.started

    def add(self, chunk: bytes) -> None:
        if not chunk:
            return
        self.total += len(chunk)
        self.buffer += chunk
        excess = len(self.buffer) - self.buffer_limit
        if excess > 0:
            del self.buffer[:excess]
            self.buffer_start += excess
        room = self.log_limit - self.logged
        if room > 0:
            piece = chunk[:room]
            with contextlib.suppress(OSError), open(self.log_path, "ab") as log:
                log.write(piece)
                if len(piece) < len(chunk):
                    log.write(b"\n[hws: the log stops here: it reached terminal.process_log_max_bytes]\n")
            self.logged += len(piece)

    def since(self, offset: int) -> tuple[bytes, int]:
        """Output from `offset` on, as much as memory still holds, and how many bytes were lost before it."""
        lost = max(self.buffer_start - offset, 0)
        start = max(offset - self.buffer_start, 0)
        return bytes(self.buffer[start:]), lost

    def state(self) -> str:
        """`running 12s`, `exited 0 after 3s`, `killed after 40s`."""
        if self.running:
            return f"running {self.runtime:.0f}s"
        if self.reason == "exited":
            return f"exited {self.exit_code} after {self.runtime:.0f}s"
        if self.reason == "session_end":
            return f"stopped with the session after {self.runtime:.0f}s"
        if self.reason == "killed":
            return f"killed after {self.runtime:.0f}s"
        return f"ended after {self.runtime:.0f}s (exit status unknown)"

    def line(self, width: int = 80) -> str:
        return f"{self.id}  {self.state():<24} {self.where:<12} {one_line(self.command, width)}"


class ProcessTable:
    """The background processes of one session's terminal."""

    def __init__(
        self,
        folder: Path,
        emit: Callable[[Event], object],
        session_id: Callable[[], str],
        *,
        max_running: int,
        buffer_limit: int,
        log_limit: int,
        kill_grace: float,
    ) -> None:
        self.folder = folder
        self.emit = emit
        self.session_id = session_id
        self.max_running = max_running
        self.buffer_limit = buffer_limit
        self.log_limit = log_limit
        self.kill_grace = kill_grace
        self.processes: dict[str, BackgroundProcess] = {}
        self._number = 0
        self._backend: Backend | None = None
        self._shell: PersistentShell | None = None
        self._pumps: set[asyncio.Task[None]] = set()
        self._last_event: dict[str, float] = {}

    def running(self) -> list[BackgroundProcess]:
        return [p for p in self.processes.values() if p.running]

    def get(self, process_id: str) -> BackgroundProcess:
        found = self.processes.get(str(process_id).strip())
        if found is None:
            known = ", ".join(self.processes) or "none"
            raise ToolError(
                f"There is no background process `{process_id}` in this session (known: {known})."
            )
        return found

    def _send(self, event: Event) -> None:
        with contextlib.suppress(Exception):  # a UI that fails must not stop a process's bookkeeping
            self.emit(event)

    async def start(
        self, shell: PersistentShell, command: str, *, pty_wrapped: str = ""
    ) -> BackgroundProcess:
        """Start `command` as a background job of `shell` (the caller must not hold its lock)."""
        if len(self.running()) >= self.max_running:
            raise ToolError(
                f"{len(self.running())} background processes are running already "
                f"(terminal.max_processes); kill one with the process tool first."
            )
        backend = shell.backend
        self._backend, self._shell = backend, shell
        self._number += 1
        process_id = f"p{self._number}"
        name = f"{process_id}-{secrets.token_hex(4)}"
        input_path, output_path = await backend.make_fifos(name)
        follower = await backend.follow(output_path)
        token = secrets.token_hex(8)
        # Python buffers its output when it is not a terminal: unbuffered, `poll` shows lines as printed.
        inner = f"( export PYTHONUNBUFFERED=1; {pty_wrapped or 'builtin eval ' + quoted(command)} )"
        # A subshell (not a `{` group) holds the job together; its status follows the output as a marker.
        launcher = (
            f"( {inner}; builtin printf '%s%s %d\\n' {EXIT} {token} \"$?\" ) "
            f"0<>{quoted(input_path)} >{quoted(output_path)} 2>&1 &\n"
            f'builtin printf \'__HWS_PID %d\\n\' "$!"; builtin disown "$!"'
        )
        capture = Capture(4096, 4096)
        try:
            async with shell.lock:
                run = await shell.run(launcher, LAUNCH_TIMEOUT, capture)
        except BaseException:
            await follower.close()
            raise
        said = bytes(capture.head + capture.tail).decode("utf-8", errors="replace")
        pgid = next((int(w.split()[1]) for w in said.splitlines() if w.startswith("__HWS_PID ")), 0)
        if run.exit_code != 0 or not pgid:
            await follower.close()
            await backend.remove_fifos(name)
            raise BackendError(
                f"The background process could not be started: {said.strip() or run.lost_shell}"
            )
        shell.background_groups.add(pgid)
        self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        process = BackgroundProcess(
            process_id,
            command,
            backend.label,
            shell.cwd,
            pgid,
            name,
            input_path,
            self.folder / f"{process_id}.log",
            self.buffer_limit,
            self.log_limit,
            pty=bool(pty_wrapped),
        )
        process.log_path.write_bytes(b"")
        self.processes[process_id] = process
        pump = asyncio.ensure_future(self._pump(process, follower, f"{EXIT}{token}".encode()))
        self._pumps.add(pump)
        pump.add_done_callback(self._pumps.discard)
        self._send(
            ProcessStarted(self.session_id(), process_id, command, backend.label, str(process.log_path))
        )
        return process

    async def _pump(self, process: BackgroundProcess, follower: Channel, marker: bytes) -> None:
        pending = bytearray()
        try:
            while chunk := await follower.read():
                pending += chunk
                at = pending.find(marker)
                newline = pending.find(b"\n", at) if at >= 0 else -1
                if at >= 0 and newline >= 0:
                    process.add(bytes(pending[:at]))
                    status = bytes(pending[at + len(marker) : newline]).decode(errors="replace").strip()
                    process.exit_code = int(status) if status.lstrip("-").isdigit() else None
                    del pending[: newline + 1]
                    self._finish(process, "exited")
                    marker = b"\x00done"  # later output (from what it left behind) is kept as it is
                held = _partial_marker(pending, marker) if at < 0 else len(pending) - at
                if len(pending) > held:
                    process.add(bytes(pending[: len(pending) - held]))
                    del pending[: len(pending) - held]
                self._output_event(process)
            process.add(bytes(pending))
        except Exception:  # a channel that fails ends the following, never the session
            pass
        finally:
            self._finish(process, process.stopping or "lost")
            process.output_done.set()
            with contextlib.suppress(Exception):
                await follower.close()
            if self._backend is not None:
                with contextlib.suppress(Exception):
                    await self._backend.remove_fifos(process.fifo_name)
            if self._shell is not None:
                self._shell.background_groups.discard(process.pgid)

    def _output_event(self, process: BackgroundProcess) -> None:
        now = time.monotonic()
        if now - self._last_event.get(process.id, 0.0) < OUTPUT_EVENT_EVERY:
            return
        self._last_event[process.id] = now
        tail = bytes(process.buffer[-400:]).decode("utf-8", errors="replace").rstrip("\n")
        last = tail.rsplit("\n", 1)[-1]
        self._send(ProcessOutput(self.session_id(), process.id, one_line(last, 200), process.total))

    def _finish(self, process: BackgroundProcess, reason: str) -> None:
        if process.ended.is_set():
            return
        process.reason = reason
        process.finished = time.monotonic()
        process.ended.set()
        self._send(
            ProcessEnded(
                self.session_id(),
                process.id,
                process.command,
                process.exit_code,
                reason,
                ended_sentence(process),
            )
        )

    async def kill(self, process: BackgroundProcess, reason: str = "killed") -> None:
        """SIGTERM its process group, then SIGKILL once `kill_grace` has passed."""
        if not process.running or self._backend is None:
            return
        process.stopping = reason
        for number, seconds in ((signal.SIGTERM, self.kill_grace), (signal.SIGKILL, END_WAIT)):
            with contextlib.suppress(Exception):
                await self._backend.signal([process.pgid], number, groups=True)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(process.output_done.wait(), seconds)
            if process.output_done.is_set():
                break
        self._finish(process, reason)

    async def stop_all(self) -> list[BackgroundProcess]:
        """Kill every running process (the session ends); the ones that were running."""
        running = self.running()
        await asyncio.gather(*(self.kill(p, "session_end") for p in running))
        for pump in list(self._pumps):
            pump.cancel()
        await asyncio.gather(*self._pumps, return_exceptions=True)
        return running


def _partial_marker(data: bytearray, marker: bytes) -> int:
    """How many bytes at the end of `data` could be the start of `marker` (held back until more come)."""
    for size in range(min(len(marker), len(data)), 0, -1):
        if data.endswith(marker[:size]):
            return size
    return 0


def ended_sentence(process: BackgroundProcess) -> str:
    command = one_line(process.command, 60)
    if process.reason == "exited":
        return f"Background process {process.id} (`{command}`) exited with status {process.exit_code}."
    if process.reason == "session_end":
        return f"Background process {process.id} (`{command}`) was stopped as the session ended."
    if process.reason == "killed":
        return f"Background process {process.id} (`{command}`) was killed."
    return f"Background process {process.id} (`{command}`) ended; its exit status is unknown."
