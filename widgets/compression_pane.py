"""The compression pane: a timeline of each compression, its phases and the session lineage.

Entries come from the compression events the engine emits; the expandable summary and the lineage
browser fill in when the compressor and the session store land.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.content import Content

from widgets.gauge import format_tokens
from widgets.pane import LogPane

if TYPE_CHECKING:
    from engine import events


def short_id(session_id: str) -> str:
    return "…" + session_id[-6:] if len(session_id) > 8 else session_id


class CompressionPane(LogPane):
    pane_key = "F5"
    pane_title = "Compression"
    intro = "Each compression: phases, tokens before → after, flushed memory, lineage."

    def __init__(self, id: str | None = None) -> None:
        super().__init__(id=id)
        self.count = 0
        self.summary = "0 this session"
        self.brief = "0"

    def compression_started(self, event: events.CompressionStarted) -> None:
        self.add_entry(
            Content.assemble(
                ("▶ ", "$accent"),
                "compressing (",
                event.reason,
                ") at ",
                (format_tokens(event.tokens_before), "bold"),
            )
        )

    def compression_phase(self, event: events.CompressionPhase) -> None:
        self.add_entry(
            Content.assemble(
                "   ",
                (f"{event.phase:<10}", "bold"),
                f"{format_tokens(event.tokens_before)} → {format_tokens(event.tokens_after)}",
            )
        )

    def compression_finished(self, event: events.CompressionFinished) -> None:
        self.count += 1
        self.summary = f"{self.count} this session"
        self.brief = str(self.count)
        flushed = f"  +{len(event.flushed)} memory" if event.flushed else ""
        self.add_entry(
            Content.assemble(
                ("✓ ", "$success"),
                f"{format_tokens(event.tokens_before)} → {format_tokens(event.tokens_after)}",
                flushed,
                "  ",
                (f"{short_id(event.old_session_id)} → {short_id(event.new_session_id)}", "dim"),
            )
        )
