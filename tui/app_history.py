"""Stored conversations in the workstation: transcript pages, the sessions screen, resuming.

A mixin of `HwsApp`. A transcript that scrolls past its window posts `HistoryWanted`; a worker
reads the page from state.db (read-only) and posts `HistoryLoaded` back to that transcript. The
sessions screen asks for lists, searches and lineages the same way. A finished turn's user block
learns its stored id here, so pruned turns can be read back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual import work

from tui import messages
from tui.read_history import HistoryReader
from widgets.transcript_history import HistoryLoaded, HistoryPage, HistoryWanted

if TYPE_CHECKING:
    from engine.config import Config
    from engine.home import Home
    from tui.agent_port import AgentPort


class HistoryFeeds:
    """Reading state.db for the transcript and the sessions screen (mixed into `HwsApp`)."""

    home: Home
    config: Config
    agent: AgentPort | None
    session_id: str
    turn_running: bool
    tui: Any

    if TYPE_CHECKING:
        main_screen: Any
        screen: Any

        def notify(self, message: str, **kwargs: Any) -> None: ...
        def push_screen(self, screen: Any, callback: Any = None) -> Any: ...
        def pop_screen(self) -> Any: ...
        def replace_agent(self, end_reason: str, resume: str | None, reason: str) -> Any: ...

    def init_history(self) -> None:
        from tui.screens.sessions import SessionsListState

        self.history = HistoryReader(self.home, self.config)
        self.sessions_list = SessionsListState()  # where the sessions screen was left, for its next opening

    async def on_unmount(self) -> None:
        """Close the read-only connection: its thread is not a daemon and would keep `hws` from exiting.

        Textual calls each class's own `on_unmount`, so the other mixins' run as well.
        """
        try:
            await self.history.close()
        except Exception:  # closing must never keep the window open
            pass

    # Transcript pages.

    @work(group="history-page", exit_on_error=False, description="read a page of stored messages")
    async def read_history_page(self, wanted: HistoryWanted) -> None:
        anchor = wanted.anchor or (wanted.session_id, 0)
        try:
            page = await self.history.page(
                wanted.direction,
                anchor[0],
                anchor[1],
                limit=int(self.tui.history_page_messages),
                width=wanted.width,
                stop=wanted.stop_at,
                request=wanted.request,
            )
        except Exception as exc:  # a locked or damaged database: the marker says so, the app stays up
            page = HistoryPage(
                wanted.direction, request=wanted.request, error=f"Could not read state.db: {exc}"
            )
        wanted.transcript.post_message(HistoryLoaded(page))

    # The sessions screen.

    def action_sessions(self) -> None:
        from tui.screens.sessions import SessionsScreen

        if isinstance(self.screen, SessionsScreen):
            self.screen.close()
            return
        screen = SessionsScreen(
            current=self.session_id, page_size=int(self.tui.sessions_page), state=self.sessions_list
        )
        self.push_screen(screen, self.session_chosen)

    @work(group="sessions-list", exclusive=True, exit_on_error=False, description="list past sessions")
    async def list_sessions(self, screen: Any, offset: int, limit: int) -> None:
        try:
            rows = await self.history.conversations(offset, limit)
            screen.post_message(screen.Listed(rows, offset, ""))
        except Exception as exc:
            screen.post_message(screen.Listed([], offset, f"Could not read state.db: {exc}"))

    @work(group="sessions-list", exclusive=True, exit_on_error=False, description="search past sessions")
    async def search_sessions(self, screen: Any, query: str) -> None:
        try:
            rows, note = await self.history.search(query)
        except Exception as exc:
            rows, note = [], f"The search failed: {exc}"
        screen.post_message(screen.Found(query, rows, note))

    @work(group="sessions-list", exclusive=True, exit_on_error=False, description="read a lineage")
    async def lineage_rows(self, screen: Any, session_id: str) -> None:
        try:
            rows = await self.history.lineage_rows(session_id)
        except Exception:
            rows = []
        screen.post_message(screen.LineageListed(session_id, rows))

    def session_chosen(self, choice: tuple[str, str, int | None] | None) -> None:
        """What the sessions screen closed with: ("open" | "resume", session id, message to show)."""
        if not choice:
            return
        action, session_id, around = choice
        if action == "resume":
            self.resume_session(session_id)
        else:
            self.view_session(session_id, around)

    def view_session(self, session_id: str, around: int | None = None) -> None:
        """Open a past session read-only (at `around`, a search hit, when given)."""
        from tui.screens.session_view import SessionViewScreen

        self.push_screen(SessionViewScreen(session_id, around), self.session_chosen)

    def resume_session(self, session_id: str) -> None:
        """Continue a past conversation (at the tip of its compression chain) in the main window."""
        if self.turn_running:
            self.notify("Resuming waits for the running turn: ctrl+c interrupts it.", severity="warning")
            return
        if getattr(self, "agent_factory", None) is None:
            self.main_screen.post_message(
                messages.Notice("Resuming needs a model: configure one and restart.", "warning", "!")
            )
            return
        if session_id == self.session_id:
            self.notify("That is the conversation you are in.")
            return
        self.replace_agent("resumed_other", session_id, "resume")

    def open_session(self, session_id: str) -> None:
        """The palette's session entries: show the session read-only (r there resumes it)."""
        self.view_session(session_id)
