"""The sessions screen (ctrl+r): browse and search past sessions, open one, resume it.

The list comes from the app's session catalog, which the session store fills; until it lands
the screen says so. Search here will be the same search as the agent's `session_search`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from widgets.pane import PaneHeader

if TYPE_CHECKING:
    from tui.commands import SessionEntry


class SessionsScreen(Screen[str | None]):
    """Past sessions; enter resumes the highlighted one (when the store is there)."""

    CSS_PATH = "sessions.tcss"
    AUTO_FOCUS = "#session-search"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,ctrl+r", "close", "back", id="close_sessions", tooltip="Back to the workstation"),
    ]

    def __init__(self, entries: list[SessionEntry] | None = None) -> None:
        super().__init__()
        self.entries = list(entries or [])

    def compose(self) -> ComposeResult:
        with Vertical(id="sessions-frame"):
            yield PaneHeader(Content.assemble(("▾ ", "dim"), ("^r", "bold"), " Sessions"))
            yield Input(placeholder='search past sessions (words, names, "phrases")', id="session-search")
            yield OptionList(id="session-list")
            yield Static(id="session-note")

    def on_mount(self) -> None:
        self._show(self.entries)

    def _show(self, entries: list[SessionEntry]) -> None:
        options = self.query_one("#session-list", OptionList)
        options.clear_options()
        options.add_options(
            Option(
                Content.assemble(
                    (e.when + "  ", "dim"), (e.title or "(untitled)", "bold"), "  ", (e.session_id, "dim")
                ),
                id=e.session_id,
            )
            for e in entries
        )
        note = self.query_one("#session-note", Static)
        if self.entries:
            note.update(f"{len(entries)} of {len(self.entries)} sessions · enter resumes · esc goes back")
        else:
            note.update(
                "No sessions to show yet: this list fills from state.db once the session store lands. "
                "Then you can search every message (the agent's session_search), open a session read-only, "
                "resume it, and follow its compression lineage. esc goes back."
            )

    @on(Input.Changed, "#session-search")
    def _search(self, event: Input.Changed) -> None:
        words = event.value.lower().split()
        self._show([e for e in self.entries if all(w in f"{e.title} {e.session_id}".lower() for w in words)])

    @on(OptionList.OptionSelected, "#session-list")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_close(self) -> None:
        self.dismiss(None)
