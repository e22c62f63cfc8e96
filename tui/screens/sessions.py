"""The sessions screen (ctrl+r): browse and search past conversations, open one, resume it, follow lineage.

Browsing lists conversations newest first (a compression chain is one conversation), a page at a
time as you scroll. Typing searches with the agent's own `session_search`. In the list: enter opens
the highlighted conversation read-only (at the search hit), `r` resumes it here, `l` lists its
lineage (every session of its compression chain; enter or `r` on one of those works the same).
The screen only asks: the app reads state.db in workers and posts the answers back. What the list
showed (the query, the highlighted conversation, the scroll) is kept in a `SessionsListState` the app
holds, so closing the screen (esc, ctrl+r, opening a conversation) and opening it again comes back to
the same place, as Harlequin's and lazygit's lists do; the rows are then read again.
"""

from __future__ import annotations

import time
from datetime import datetime
from typing import TYPE_CHECKING, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from tui import messages
from tui.read_history import SessionsListState
from tui.screens.closing import dismiss_once
from widgets.pane import PaneHeader

if TYPE_CHECKING:
    from tui.read_history import SessionRow

SEARCH_DELAY_S = 0.25
Choice = tuple[str, str, int | None]


def marked(snippet: str) -> Content:
    """A search snippet with its >>>marks<<< shown in bold."""
    parts: list[Content | tuple[str, str] | str] = []
    rest = snippet
    while ">>>" in rest:
        before, _, after = rest.partition(">>>")
        hit, _, rest = after.partition("<<<")
        parts += [before, (hit, "bold $accent")]
    parts.append(rest)
    return Content.assemble(*parts)


def row_key(row: SessionRow) -> str:
    """What names a conversation across readings of the list (a search row's root is its conversation)."""
    return row.root_id or row.session_id


def short_when(when: str) -> str:
    """Hermes' "December 29, 2025 at 09:20 AM" as "2025-12-29 09:20" for the list (cut, it read "at 0")."""
    try:
        return datetime.strptime(when, "%B %d, %Y at %I:%M %p").strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return when


class SessionsScreen(Screen[Choice | None]):
    """Past conversations; enter opens one read-only, r resumes it."""

    CSS_PATH = "sessions.tcss"
    AUTO_FOCUS = "#session-search"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,ctrl+r", "close", "back", id="close_sessions", tooltip="Back to the workstation"),
        Binding("r", "resume", "resume", id="session_resume", tooltip="Resume the highlighted conversation"),
        Binding("l", "lineage", "lineage", id="session_lineage", tooltip="List the highlighted lineage"),
        Binding(
            "down",
            "to_list",
            "to the list",
            id="session_to_list",
            tooltip="From the search box: move to the list",
            show=False,
        ),
    ]

    class Listed(Message, bubble=False):
        def __init__(self, rows: list[SessionRow], offset: int, error: str) -> None:
            super().__init__()
            self.rows = rows
            self.offset = offset
            self.error = error

    class Found(Message, bubble=False):
        def __init__(self, query: str, rows: list[SessionRow], note: str) -> None:
            super().__init__()
            self.query = query
            self.rows = rows
            self.note = note

    class LineageListed(Message, bubble=False):
        def __init__(self, session_id: str, rows: list[SessionRow]) -> None:
            super().__init__()
            self.session_id = session_id
            self.rows = rows

    def __init__(
        self, current: str = "", page_size: int = 100, state: SessionsListState | None = None
    ) -> None:
        super().__init__()
        self.HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]
        self.current = current
        self.page_size = page_size
        self.state = state if state is not None else SessionsListState()
        self.rows: list[SessionRow] = []
        self.mode = "browse"  # browse | search | lineage
        self.search_text = ""
        self.exhausted = False
        # Waiting for an answer. Not `loading`: that is Textual's reactive, which covers the screen
        # with a spinner and hides the search box, whose focus then fell to the list mid-typing.
        self.reading = False
        self._asked = page_size  # how many rows the last first-page question asked for
        self._timer: Timer | None = None
        self._before_lineage: tuple[str, list[SessionRow]] | None = None
        self._list_wanted = False  # enter in the search box: the list takes focus once it is filled
        self._keep: tuple[str, float] | None = None  # the row (and scroll) the next answer highlights

    def compose(self) -> ComposeResult:
        with Vertical(id="sessions-frame"):
            yield PaneHeader(Content.assemble(("▾ ", "dim"), ("^r", "bold"), " Sessions"))
            yield Input(
                placeholder='search every past message (words, names, "phrases")', id="session-search"
            )
            with Horizontal(id="sessions-body"):
                yield OptionList(id="session-list")
                yield Static(id="session-preview")
            yield Static(id="session-note")

    def on_mount(self) -> None:
        # Typing searches at once: the list only takes focus after enter (AUTO_FOCUS alone lost the race
        # with the list's first fill).
        search = self.query_one("#session-search", Input)
        search.focus()
        state = self.state
        if not state.query and not state.rows:
            self._note("Reading state.db…")
            self._browse()
            return
        # Back where the list was left: the rows as they were at once, then read again in place.
        self.search_text = state.query
        self.mode = "search" if state.query else "browse"
        with self.prevent(Input.Changed):
            search.value = state.query
        search.cursor_position = len(state.query)
        self.rows = list(state.rows)
        self._show(select=state.highlighted, scroll_y=state.scroll_y)
        if state.in_list and self.rows:
            self.options.focus()
        self._keep = (state.highlighted, state.scroll_y)
        if self.mode == "search":
            self._search()
        else:
            self._browse(limit=max(self.page_size, len(self.rows)))

    @property
    def options(self) -> OptionList:
        return self.query_one("#session-list", OptionList)

    # Asking the app.

    def _browse(self, offset: int = 0, limit: int = 0) -> None:
        self.reading = True
        limit = limit or self.page_size
        if offset == 0:
            self._asked = limit
        self.app.post_message(messages.SessionsWanted(self, offset, limit))

    def _search(self) -> None:
        self.reading = True
        self._note(f"Searching for {self.search_text!r}…")
        self.app.post_message(messages.SessionsSearched(self, self.search_text))

    @on(Input.Changed, "#session-search")
    def _typed(self, event: Input.Changed) -> None:
        self.search_text = event.value.strip()
        self._keep = None  # a new query starts at its best hit
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_timer(SEARCH_DELAY_S, self._query_settled)

    def _query_settled(self) -> None:
        self._timer = None
        if self.search_text:
            self.mode = "search"
            self._search()
        else:
            self.mode = "browse"
            self.exhausted = False
            self._browse()

    @on(Input.Submitted, "#session-search")
    def _to_list(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._query_settled()
        self._list_wanted = True
        self.options.focus()
        if not self.reading:
            self._focus_list_when_drawn()

    def _focus_list_when_drawn(self) -> None:
        """After the answer is drawn: refilling the list can blur it for a frame, which sent focus back
        to the search box (typing a query and enter left the cursor there)."""
        if not self._list_wanted:
            return
        self._list_wanted = False

        def focus() -> None:
            if self.rows and self.is_current:
                self.options.focus()

        self.call_after_refresh(focus)

    # Answers.

    @on(Listed)
    def _listed(self, message: Listed) -> None:
        if self.mode != "browse":
            return
        self.reading = False
        if message.offset == 0:
            self.rows = []
        self.rows += message.rows
        self.exhausted = len(message.rows) < (self._asked if message.offset == 0 else self.page_size)
        if message.offset > 0:
            self._show(keep=True)
        else:
            self._show_kept()
        self._focus_list_when_drawn()
        if message.error:
            self._note(message.error)
        elif not self.rows:
            self._note("No past sessions yet: they appear here as you talk with the agent. esc goes back.")
        else:
            more = "" if self.exhausted else " (more as you scroll)"
            count = f"{len(self.rows)} conversation{'s' if len(self.rows) != 1 else ''}{more}"
            self._note(f"{count} · enter opens · r resumes · l lineage · esc back")

    @on(Found)
    def _found(self, message: Found) -> None:
        if self.mode != "search" or message.query != self.search_text:
            return
        self.reading = False
        self.rows = list(message.rows)
        self._show_kept()
        self._focus_list_when_drawn()
        count = (
            f"{len(self.rows)} conversation{'s' if len(self.rows) != 1 else ''} match {self.search_text!r}"
        )
        self._note(f"{count} · enter opens at the hit · r resumes · {message.note}".rstrip(" ·"))

    @on(LineageListed)
    def _lineage(self, message: LineageListed) -> None:
        self.rows = list(message.rows)
        self._show()
        self._note(
            f"Lineage of {message.session_id}: {len(self.rows)} session(s), root first · enter opens · "
            "r resumes · esc back to the list"
        )

    # Drawing.

    def _prompt(self, row: SessionRow) -> Content:
        title = row.title or row.preview[:60] or "(untitled)"
        parts: list[Content | tuple[str, str] | str] = [
            (f"{short_when(row.when):<16} ", "dim"),
            (title, "bold"),
            (f"  {row.message_count} msgs", "dim"),
        ]
        if len(row.sessions) > 1:
            parts.append((f"  ⇣{len(row.sessions) - 1}", "$accent"))
        if row.branch_of:
            parts.append(("  ⑂ branch", "$accent"))
        if row.session_id == self.current:
            parts.append(("  ● now", "$success"))
        if row.snippet:
            parts.append("\n   ")
            if row.rewound:
                parts.append(("rewound · ", "$warning"))
            parts.append(marked(row.snippet[:200]))
        return Content.assemble(*parts)

    def _show(self, keep: bool = False, select: str = "", scroll_y: float | None = None) -> None:
        """Fill the list: the highlight kept (`keep`), on the conversation `select`, or on the first."""
        options = self.options
        highlighted = options.highlighted if keep else None
        kept_scroll = options.scroll_y if keep else scroll_y
        if select:
            highlighted = next((i for i, row in enumerate(self.rows) if row_key(row) == select), None)
        options.clear_options()
        options.add_options(Option(self._prompt(row), id=f"{index}") for index, row in enumerate(self.rows))
        if self.rows:
            options.highlighted = highlighted if highlighted is not None else 0
        if kept_scroll is not None and highlighted is not None:
            scroll = kept_scroll

            def place() -> None:  # where it was: the highlighted row is still in view there
                options.scroll_to(y=scroll, animate=False, immediate=True)
                if options.highlighted is not None:
                    options.scroll_to_highlight()

            self.call_after_refresh(place)
        self._preview()
        self._remember()

    def _show_kept(self) -> None:
        """A first page or a search's answer: on the row the list was left at, when it is still there."""
        kept, self._keep = self._keep, None
        if kept is None:
            self._show()
        else:
            self._show(select=kept[0], scroll_y=kept[1])

    def _remember(self) -> None:
        """Keep where the list is (the app holds it while the screen is closed)."""
        if self.mode == "lineage" or not self.is_mounted:
            return
        row = self.highlighted_row()
        state = self.state
        state.query = self.search_text
        state.rows = list(self.rows)
        state.highlighted = row_key(row) if row is not None else ""
        state.scroll_y = self.options.scroll_y
        state.in_list = self.focused is self.options

    def _note(self, text: str) -> None:
        self.query_one("#session-note", Static).update(text)

    def highlighted_row(self) -> SessionRow | None:
        index = self.options.highlighted
        if index is None or not 0 <= index < len(self.rows):
            return None
        return self.rows[index]

    @on(OptionList.OptionHighlighted, "#session-list")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self._preview()
        self._remember()
        if (
            self.mode == "browse"
            and not self.exhausted
            and not self.reading
            and event.option_index >= len(self.rows) - 5
        ):
            self._browse(len(self.rows))

    def _preview(self) -> None:
        row = self.highlighted_row()
        preview = self.query_one("#session-preview", Static)
        if row is None:
            preview.update("")
            return
        lines: list[Content | str] = [
            Content.styled(row.title or "(untitled)", "bold"),
            Content.styled(row.session_id, "dim"),
            f"{row.when} · {row.source or '?'} · {row.message_count} messages",
        ]
        if row.last_active:
            lines.append(
                Content.styled(
                    "last active " + time.strftime("%Y-%m-%d %H:%M", time.localtime(row.last_active)), "dim"
                )
            )
        if len(row.sessions) > 1:
            lines.append(
                Content.styled(
                    f"{len(row.sessions)} sessions (compressed {len(row.sessions) - 1}×)", "$accent"
                )
            )
        if row.preview:
            lines += ["", Content.styled("first message", "dim"), row.preview]
        if row.branch_of:
            lines.append(Content.styled(f"a branch of {row.branch_of}", "$accent"))
        if row.snippet:
            label = (
                "best hit (rewound with /undo: kept, no longer in the conversation)"
                if row.rewound
                else "best hit"
            )
            lines += ["", Content.styled(label, "dim"), marked(row.snippet)]
        preview.update(Content("\n").join(Content(x) if isinstance(x, str) else x for x in lines))

    # Keys.

    @on(OptionList.OptionSelected, "#session-list")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        row = self.highlighted_row()
        if row is not None:
            self._remember()
            if row.match_session_id and row.match_message_id is not None:  # a search hit: open there
                dismiss_once(self, ("open", row.match_session_id, row.match_message_id))
            else:
                dismiss_once(self, ("open", row.session_id, None))

    def action_resume(self) -> None:
        row = self.highlighted_row()
        if row is not None:
            self._remember()
            dismiss_once(self, ("resume", row.session_id, None))

    def action_lineage(self) -> None:
        row = self.highlighted_row()
        if row is None:
            return
        if self.mode != "lineage":
            self._remember()
            self._before_lineage = (self.mode, list(self.rows))
        self.mode = "lineage"
        self.app.post_message(messages.LineageWanted(self, row.session_id))

    def action_close(self) -> None:
        if self.mode == "lineage" and self._before_lineage is not None:
            self.mode, self.rows = self._before_lineage
            self._before_lineage = None
            self._show(select=self.state.highlighted, scroll_y=self.state.scroll_y)
            self._note("Back to the list · enter opens · r resumes · l lineage · esc back")
            return
        self.close()

    def close(self) -> None:
        """Leave the screen, keeping where the list is for the next time it opens."""
        self._remember()
        dismiss_once(self, None)

    def action_to_list(self) -> None:
        """Down in the search box goes to the results, as it would in any picker (it did nothing)."""
        if self.rows:
            self.options.focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Letters typed in the search box are the query, not keys; down is the list's own key there.
        if action == "to_list":
            return isinstance(self.focused, Input)
        return not (action in ("resume", "lineage") and isinstance(self.focused, Input))
