"""The memory pane: what the agent wrote to MEMORY.md and USER.md this session.

For now it lists the memory writes the engine reports; the usage bars, the frozen-vs-disk diff and
the journal with undo fill in when the memory store lands.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.content import Content

from widgets.pane import LogPane

if TYPE_CHECKING:
    from engine import events

WHO_STYLE = {"agent": "$accent", "review": "$secondary", "user": "$primary", "external": "$warning"}
ACTION_MARK = {"add": "+", "replace": "~", "remove": "-", "undo": "↶", "batch": "±"}


class MemoryPane(LogPane):
    pane_key = "F2"
    pane_title = "Memory"
    intro = "Usage bars, frozen ≠ disk diff and the journal come with the memory store. Writes:"

    def __init__(self, id: str | None = None) -> None:
        super().__init__(id=id)
        self.writes = 0
        self.summary = "no writes yet"
        self.brief = "0"

    def memory_written(self, event: events.MemoryWritten) -> None:
        self.writes += 1
        self.summary = f"{self.writes} write{'s' if self.writes != 1 else ''} this session"
        self.brief = str(self.writes)
        mark = ACTION_MARK.get(event.action, "·")
        self.add_entry(
            Content.assemble(
                (f"{mark} ", "bold"),
                (f"{event.target.upper():<6}", "bold"),
                (f"{event.who:<8}", WHO_STYLE.get(event.who, "")),
                event.message,
            )
        )
