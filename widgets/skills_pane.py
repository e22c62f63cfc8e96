"""The skills pane: skills loaded and changed this session.

For now it lists what the engine reports (a skill loaded whole or one of its files opened, a skill
created or patched); the index with each skill's tier, token cost and guard verdict fills in when the
skills store lands.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.content import Content

from widgets.gauge import format_tokens
from widgets.pane import LogPane

if TYPE_CHECKING:
    from engine import events

CHANGE_MARK = {"create": "✚ created", "patch": "✎ patched", "edit": "✎ edited", "delete": "✗ deleted"}


class SkillsPane(LogPane):
    pane_key = "F4"
    pane_title = "Skills"
    intro = "Tiers, token costs and guard verdicts per skill come with the skills store. Loaded:"

    def __init__(self, id: str | None = None) -> None:
        super().__init__(id=id)
        self.loaded: set[str] = set()
        self.changed: set[str] = set()
        self._summarise()

    def _summarise(self) -> None:
        self.summary = f"{len(self.loaded)} loaded · {len(self.changed)} changed"
        self.brief = f"{len(self.loaded)}"

    def skill_loaded(self, event: events.SkillLoaded) -> None:
        self.loaded.add(event.name)
        self._summarise()
        where = f"file: {event.file_path}" if event.file_path else "loaded"
        self.add_entry(
            Content.assemble(
                ("◐ " if event.file_path else "● ", "$primary"),
                (event.name, "bold"),
                f"  {where}  ",
                (format_tokens(event.tokens), "dim"),
            )
        )

    def skill_changed(self, event: events.SkillChanged) -> None:
        self.changed.add(event.name)
        self._summarise()
        self.add_entry(
            Content.assemble(
                (CHANGE_MARK.get(event.action, event.action) + " ", "bold $accent"),
                (event.name, "bold"),
                f"  by {event.who}  ",
                (event.message, "dim"),
            )
        )
