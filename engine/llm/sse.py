"""Server-sent events of a chat-completions stream, decoded straight to JSON mappings.

The `openai` package's own stream builds a pydantic object per chunk (about 0.2 ms each, so
5 ms for a short answer). Here the body is read in network-sized pieces and split into events
synchronously: the caller awaits (under its stall timeout) only when nothing is buffered.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections import deque
from collections.abc import AsyncIterator
from typing import Any

DRAIN_SECONDS = 1.0  # after [DONE], how long to read on so the connection can be reused


class StreamErrorEvent(Exception):
    """The server sent an error inside the stream (`{"error": {...}}`), e.g. an upstream failure."""

    def __init__(self, body: Any) -> None:
        error = body.get("error") if isinstance(body, dict) else body
        message = error.get("message") if isinstance(error, dict) else error
        super().__init__(str(message or "an error event in the stream"))
        self.body = body


class SSEReader:
    """One streamed response: `pop()` buffered chunks, `await fill()` when it returns None."""

    def __init__(self, response: Any) -> None:
        self.response = response
        self._pieces: AsyncIterator[bytes] = response.aiter_bytes()
        self._buffer = b""
        self._chunks: deque[dict[str, Any]] = deque()
        self.ended = False  # the body is over (or [DONE] came): nothing more will be buffered
        self.done = False  # the server sent [DONE]

    def pop(self) -> dict[str, Any] | None:
        """The next buffered chunk, or None when the buffer is empty."""
        return self._chunks.popleft() if self._chunks else None

    async def fill(self) -> None:
        """Read the next piece of the body and buffer the events it completes."""
        try:
            piece = await self._pieces.__anext__()
        except StopAsyncIteration:
            self.ended = True
            self._split(final=True)
            return
        self._buffer += piece
        self._split(final=False)

    def _split(self, final: bool) -> None:
        data = self._buffer
        keep = b""
        if not final and data.endswith(b"\r"):
            data, keep = data[:-1], b"\r"  # a CRLF may be cut between two pieces
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        blocks = data.split(b"\n\n")
        self._buffer = (b"" if final else blocks.pop()) + keep
        for block in blocks:
            if self.done:
                break
            if block:
                self._event(block.decode("utf-8"))
        if self.done:
            self.ended = True

    def _event(self, block: str) -> None:
        data: list[str] = []
        event = ""
        for line in block.split("\n"):
            if not line or line.startswith(":"):
                continue  # a comment, e.g. OpenRouter's ": OPENROUTER PROCESSING" keep-alive
            name, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if name == "data":
                data.append(value)
            elif name == "event":
                event = value
        if not data:
            return
        text = "\n".join(data)
        if text.startswith("[DONE]"):
            self.done = True
            return
        chunk = json.loads(text)
        if event == "error" or (isinstance(chunk, dict) and chunk.get("error")):
            raise StreamErrorEvent(chunk)
        if not isinstance(chunk, dict):
            raise ValueError(f"a stream event that is not a JSON object: {text[:80]!r}")
        self._chunks.append(chunk)

    async def drain(self) -> None:
        """Read what follows [DONE] (the end of the body) so the connection goes back to the pool."""
        with contextlib.suppress(Exception):
            async with asyncio.timeout(DRAIN_SECONDS):
                async for _piece in self._pieces:
                    pass

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self.response.aclose()
