"""The reply being streamed: a Textual `Markdown` fed only through a `MarkdownStream`.

Its own module so that Markdown (and markdown-it) load with the first reply, not at start-up.
"""

from __future__ import annotations

from textual.widgets import Markdown


class LiveReply(Markdown):
    """Appended to by the stream, never re-rendered whole; frozen when its segment ends."""

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

    def copy_text(self) -> str:
        return self.source
