"""`terminal`: one shell command in the working directory, with a timeout, capped output and approvals.

On Linux the command runs inside the sandbox (engine/tools/sandbox.py): writes reach only the working
folder and a private /tmp, there is no network unless the user approves it, and secrets are not in its
environment. The model may ask to run a command outside the sandbox; the user is asked every time.
Where the sandbox cannot start, every command that is not provably read-only asks first.

The command runs in its own process group, so a timeout or an interrupted turn kills everything it
started, not just the shell. Output is read as it arrives into a bounded head and tail, so a command
that prints gigabytes costs no more memory than one that prints the cap.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.tools.command_env import command_environment
from engine.tools.context import ToolContext
from engine.tools.errors import ToolError
from engine.tools.preview import count_lines, one_line, plural
from engine.tools.registry import Tool, ToolResult
from engine.tools.sandbox import SandboxStatus, bwrap_argv, refusal_notes, sandbox_status
from engine.tools.terminal_approval import approve_command

READ_CHUNK = 65536

DESCRIPTION = (
    "Run a bash command in the working directory (a fresh shell each call; stdin closed; stderr merged "
    "into stdout). Returns the exit code and output. It runs in a sandbox: only the working directory "
    "and a private /tmp are writable; the home's .env and auth.json cannot be read; secrets are not "
    "in the environment; background processes end with the command; and there is no network unless you "
    "set `network: true` (the user is asked). If the sandbox refuses what the command truly needs, call "
    "again with `sandbox: false` and a `why`: the user is asked every time. Destructive commands need "
    "the user's approval."
)
PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "command": {"type": "string"},
        "timeout": {"type": "integer", "minimum": 1, "description": "Seconds before it is killed."},
        "network": {
            "type": "boolean",
            "description": "true when the command needs the network (downloads, installs, git fetch).",
        },
        "sandbox": {
            "type": "boolean",
            "description": "false to run outside the sandbox (whole file system and network); needs `why`.",
        },
        "why": {"type": "string", "description": "Why it must run outside the sandbox, shown to the user."},
    },
    "required": ["command"],
    "additionalProperties": False,
}


@dataclass
class _Capture:
    """The first `head` bytes and the last `tail` bytes of a stream, and how many came in all."""

    head_limit: int
    tail_limit: int
    head: bytearray = field(default_factory=bytearray)
    tail: bytearray = field(default_factory=bytearray)
    total: int = 0

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self.head_limit - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self.tail += chunk
            if len(self.tail) > self.tail_limit:
                del self.tail[: len(self.tail) - self.tail_limit]

    def text(self, head_chars: int, tail_chars: int) -> str:
        """The output as text: all of it when it fits, else its start and end with a note between."""
        dropped = self.total - len(self.head) - len(self.tail)
        if dropped <= 0:
            whole = bytes(self.head + self.tail).decode("utf-8", errors="replace")
            if len(whole) <= head_chars + tail_chars:
                return whole
        head = bytes(self.head).decode("utf-8", errors="replace")[:head_chars]
        tail = bytes(self.tail).decode("utf-8", errors="replace")
        tail = tail[len(tail) - tail_chars :] if tail_chars else ""
        omitted = self.total - len(head.encode("utf-8")) - len(tail.encode("utf-8"))
        return f"{head}\n… [{omitted:,} bytes of output cut from the middle] …\n{tail}"


@dataclass
class _Run:
    exit_code: int | None
    output: str
    duration_s: float
    timed_out: bool
    lingering: bool  # background processes still held the output open when the shell exited


def shell() -> str:
    return shutil.which("bash") or "/bin/sh"


async def terminal(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    command: str = args["command"]
    section = ctx.config.terminal
    timeout = min(int(args.get("timeout") or section.timeout), int(section.max_timeout))
    cwd = Path(ctx.cwd)
    if not cwd.is_dir():
        raise ToolError(f"The working directory {cwd} no longer exists; nothing was run.")
    status = await asyncio.to_thread(sandbox_status, ctx.config)
    network = bool(args.get("network"))
    outside = args.get("sandbox") is False and status.active
    why = str(args.get("why") or "").strip()
    declined = await approve_command(ctx, command, cwd, status, network=network, outside=outside, why=why)
    if declined is not None:
        return declined
    sandboxed = status.active and not outside
    argv, env = _launch(command, ctx, status if sandboxed else None, network=network)
    run = await run_command(
        argv,
        cwd,
        env,
        timeout,
        int(section.max_output_chars),
        float(section.output_head_share),
        float(section.kill_grace),
        float(section.exit_drain),
    )
    failed = run.timed_out or run.exit_code != 0
    notes = (
        refusal_notes(run.output, cwd, network=network, command=command, failed=failed) if sandboxed else []
    )
    return _result(run, timeout, notes)


def _launch(
    command: str, ctx: ToolContext, sandbox: SandboxStatus | None, *, network: bool
) -> tuple[list[str], dict[str, str]]:
    """The argv and environment of the command: under bwrap when `sandbox` is given."""
    if sandbox is None:
        return [shell(), "-c", command], command_environment(ctx.config, os.environ)
    env = command_environment(ctx.config, os.environ, TMPDIR="/tmp")
    home = env.get("HOME")
    prefix = bwrap_argv(
        sandbox.binary, Path(ctx.cwd), ctx.home.root, network=network, user_home=Path(home) if home else None
    )
    return [*prefix, shell(), "-c", command], env


async def run_command(
    argv: Sequence[str],
    cwd: Path,
    env: Mapping[str, str],
    timeout: float,
    max_chars: int,
    head_share: float,
    kill_grace: float,
    exit_drain: float,
) -> _Run:
    """Run `argv` in its own process group and collect its capped output."""
    started = time.perf_counter()
    # Bytes kept: up to 4 per character, so the character cap below is what really cuts.
    capture = _Capture(int(max_chars * head_share) * 4, (max_chars - int(max_chars * head_share)) * 4)
    spawn = asyncio.ensure_future(
        asyncio.create_subprocess_exec(
            *argv,
            cwd=cwd,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,
            env=dict(env),
        )
    )
    try:
        process = await asyncio.shield(spawn)
    except asyncio.CancelledError:
        # Interrupted while the shell was being started: it may already be running (and have
        # started children), so the spawn is let finish and its whole group killed.
        with contextlib.suppress(Exception):
            started_process = await spawn
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(started_process.pid, signal.SIGKILL)
            await started_process.wait()
        raise
    assert process.stdout is not None
    reader = asyncio.create_task(_pump(process.stdout, capture))
    timed_out = lingering = False
    try:
        if not await _exited(process, reader, timeout):
            timed_out = True
            await _kill_group(process, reader, kill_grace)
        try:
            await asyncio.wait_for(asyncio.shield(reader), exit_drain if not timed_out else kill_grace + 1)
        except TimeoutError:
            lingering = True
    finally:
        if process.returncode is None:  # cancelled: the turn was interrupted
            await _kill_group(process, reader, kill_grace)
        reader.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await reader
        if lingering:
            # A background job still holds the pipe; stop listening to it (the job itself runs on).
            transport = getattr(process, "_transport", None)
            if transport is not None:
                transport.close()
    head_chars = int(max_chars * head_share)
    output = capture.text(head_chars, max_chars - head_chars)
    return _Run(process.returncode, output, time.perf_counter() - started, timed_out, lingering)


async def _exited(process: asyncio.subprocess.Process, reader: asyncio.Task[None], seconds: float) -> bool:
    """Wait up to `seconds` for the shell to exit; True when it did.

    Python 3.11's `Process.wait()` also waits for the output pipe to close, which a background job
    started by the command can hold open for hours, so the exit status is polled instead (backing off
    from 1 ms to 50 ms; a command that closes its output is noticed at once through the reader).
    """
    deadline = time.monotonic() + seconds
    delay = 0.001
    while process.returncode is None:
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        if reader.done():
            try:
                await asyncio.wait_for(process.wait(), left)
            except TimeoutError:
                return False
            return True
        await asyncio.wait({reader}, timeout=min(delay, left))
        delay = min(delay * 2, 0.05)
    return True


async def _pump(stream: asyncio.StreamReader, capture: _Capture) -> None:
    while chunk := await stream.read(READ_CHUNK):
        capture.add(chunk)


async def _kill_group(process: asyncio.subprocess.Process, reader: asyncio.Task[None], grace: float) -> None:
    """SIGTERM the whole process group, then SIGKILL it if the shell has not gone within `grace`."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGTERM)
    await _exited(process, reader, grace)
    # Whether or not the shell went quietly, children that ignored SIGTERM must not outlive it.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    await _exited(process, reader, 5)


def _result(run: _Run, timeout: float, sandbox_notes: Sequence[str] = ()) -> ToolResult:
    lines = count_lines(run.output)
    if run.timed_out:
        status = f"timed out after {timeout:g}s; the command and its children were killed"
        summary = f"timed out after {timeout:g}s, {plural(lines, 'line')}"
    else:
        status = f"exit {run.exit_code}"
        summary = f"exit {run.exit_code}, {plural(lines, 'line')}"
    header = f"[{status}; {run.duration_s:.1f}s]"
    notes = []
    if run.lingering:
        notes.append("[background processes still hold the output; later output is not captured]")
    notes += sandbox_notes
    body = run.output if run.output else "(no output)"
    text = "\n".join([header, body.rstrip("\n"), *notes])
    return ToolResult(text, ok=not run.timed_out and run.exit_code == 0, summary=summary)


def _preview(args: Mapping[str, Any], width: int) -> str:
    return one_line(str(args.get("command", "")), width)


TOOL = Tool("terminal", "terminal", DESCRIPTION, PARAMETERS, terminal, _preview)
