"""The reply being streamed: a Textual `Markdown` fed only through a `MarkdownStream`.

Its own module so that Markdown (and markdown-it) load with the first reply, not at start-up.
"""

from __future__ import annotations

import asyncio

from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownStream


class LiveReply(Markdown):
    """Appended to by the stream, never re-rendered whole; frozen when its segment ends.

    `text` is everything written to it; `source` (what is drawn) may trail it while the stream
    catches up.
    """

    DEFAULT_CSS = """
    LiveReply {
        width: 1fr;
        height: auto;
        padding: 0 1;
        margin: 0;
        background: transparent;
        layout: stream;
    }
    """

    def __init__(self) -> None:
        super().__init__()
        self.text = ""

    def copy_text(self) -> str:
        return self.text


def next_block(pending: str) -> int:
    """How much of `pending` to draw in one step: up to and with its first paragraph break."""
    cut = pending.find("\n\n", 1)
    return len(pending) if cut < 0 else cut + 2


class PacedStream(MarkdownStream):
    """A `MarkdownStream` that draws at most one Markdown block per screen refresh.

    Textual's stream joins everything pending into one append, so a slow frame makes the next
    append (and its widget mounts and layout) bigger still. Here each step appends up to one
    paragraph break and then waits for the screen to draw it, so no step holds the UI loop for
    long however fast the model sends. `stop()` drops what was not drawn: the segment is frozen
    from `LiveReply.text`, so drawing the rest into Markdown widgets would be thrown away.
    """

    def __init__(self, live: LiveReply) -> None:
        super().__init__(live)
        self.live = live

    async def write(self, markdown_fragment: str) -> None:
        self.live.text += markdown_fragment
        await super().write(markdown_fragment)

    async def _run(self) -> None:
        try:
            while await self._new_markup.wait():
                pending = "".join(self._pending)
                cut = next_block(pending)
                self._pending[:] = [pending[cut:]] if cut < len(pending) else []
                if not self._pending:
                    self._new_markup.clear()
                await asyncio.shield(self.live.append(pending[:cut]))
                await self.live.wait_for_refresh()
        except asyncio.CancelledError:
            pass
