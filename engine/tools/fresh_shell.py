"""A command in a fresh shell of its own: its own process group, a timeout, and capped output.

Used when terminal.persistent is false, and for the one-off commands a persistent shell cannot run
(with the network, or outside the sandbox). A timeout or an interrupted turn kills the whole group;
output is read as it arrives into a bounded head and tail, so a command that prints gigabytes costs
no more memory than one that prints the cap.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from engine.tools.capture import Capture

READ_CHUNK = 65536


@dataclass
class FreshRun:
    exit_code: int | None
    output: str
    duration_s: float
    timed_out: bool
    lingering: bool  # background processes still held the output open when the shell exited


async def run_command(
    argv: Sequence[str],
    cwd: Path,
    env: Mapping[str, str],
    timeout: float,
    max_chars: int,
    head_share: float,
    kill_grace: float,
    exit_drain: float,
) -> FreshRun:
    """Run `argv` in its own process group and collect its capped output."""
    started = time.perf_counter()
    # Bytes kept: up to 4 per character, so the character cap below is what really cuts.
    capture = Capture.for_chars(max_chars, head_share)
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
    output = capture.text_for(max_chars, head_share)
    return FreshRun(process.returncode, output, time.perf_counter() - started, timed_out, lingering)


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


async def _pump(stream: asyncio.StreamReader, capture: Capture) -> None:
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
