"""A past session, read-only: its stored messages in a transcript that pages through state.db.

Opened from the sessions screen (at a search hit, when there is one) or the palette. `r` resumes
the conversation in the main window; esc goes back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Static

from tui.screens.closing import dismiss_once
from widgets.pane import PaneHeader
from widgets.transcript import Transcript

if TYPE_CHECKING:
    from engine.config import Section

Choice = tuple[str, str, int | None]


class SessionViewScreen(Screen[Choice | None]):
    DEFAULT_CSS = """
    SessionViewScreen { background: $surface; }
    SessionViewScreen > #session-view-frame { height: 1fr; }
    SessionViewScreen #session-view-note {
        height: 1;
        padding: 0 1;
        color: $text-muted;
        text-style: italic;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "back", id="close_session_view", tooltip="Back"),
        Binding("r", "resume", "resume", id="session_view_resume", tooltip="Resume this conversation here"),
    ]

    def __init__(self, session_id: str, tui: Section, around: int | None = None) -> None:
        super().__init__()
        self.session_id = session_id
        self.tui = tui  # the `tui:` config section: the transcript's previews and line budget
        self.around = around

    def compose(self) -> ComposeResult:
        with Vertical(id="session-view-frame"):
            yield PaneHeader(
                Content.assemble(("▾ ", "dim"), ("session ", "bold"), self.session_id, ("  read-only", "dim"))
            )
            tui = self.tui
            yield Transcript(  # the same window onto state.db as the main transcript's
                id="session-view-transcript",
                tool_preview_chars=int(tui.tool_preview_chars),
                prune_keep_lines=int(tui.prune_keep_lines),
                prune_excess_lines=int(tui.prune_excess_lines),
            )
            yield Static(
                "read-only · scroll to page through state.db · r resumes here · esc back",
                id="session-view-note",
            )

    @property
    def transcript(self) -> Transcript:
        return self.query_one(Transcript)

    def on_mount(self) -> None:
        transcript = self.transcript
        transcript.focus()
        transcript.open_history(self.session_id, self.around)

    def action_resume(self) -> None:
        dismiss_once(self, ("resume", self.session_id, None))

    def action_close(self) -> None:
        dismiss_once(self, None)
