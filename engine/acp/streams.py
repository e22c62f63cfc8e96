"""The protocol's stdio: stdout carries JSON-RPC alone, so everything else that writes there goes to stderr.

A stray print, a library's warning or a child process that inherits file descriptor 1 would corrupt
the client's stream; `protocol_streams` moves the protocol onto a private copy of stdout and points
descriptor 1 (and `sys.stdout`) at stderr before anything else runs.
"""

from __future__ import annotations

import asyncio
import os
import sys

MESSAGE_LIMIT = 50 * 1024 * 1024  # bytes one JSON-RPC line may hold: a prompt may embed whole files


class _PipeWriting(asyncio.BaseProtocol):
    """Flow control for the protocol's writer: `drain` waits while the pipe is full."""

    def __init__(self) -> None:
        self._paused = False
        self._waiter: asyncio.Future[None] | None = None

    def pause_writing(self) -> None:
        self._paused = True
        if self._waiter is None:
            self._waiter = asyncio.get_running_loop().create_future()

    def resume_writing(self) -> None:
        self._paused = False
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)
        self._waiter = None

    def connection_lost(self, exc: Exception | None) -> None:
        self.resume_writing()

    async def _drain_helper(self) -> None:
        if self._paused and self._waiter is not None:
            await self._waiter


def keep_stdout_for_protocol() -> int:
    """A private descriptor onto the real stdout; descriptor 1 and `sys.stdout` now write to stderr."""
    sys.stdout.flush()
    protocol_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return protocol_fd


async def protocol_streams(protocol_fd: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """The reader over stdin and the writer over `protocol_fd`, for the ACP connection."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=MESSAGE_LIMIT)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    writing = _PipeWriting()
    transport, _ = await loop.connect_write_pipe(lambda: writing, os.fdopen(protocol_fd, "wb", buffering=0))
    return reader, asyncio.StreamWriter(transport, writing, None, loop)
