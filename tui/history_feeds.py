"""Stored conversations for the workstation: transcript pages and the sessions screen's lists.

A transcript that scrolls past its window posts `HistoryWanted`; the app hands it here, a worker
reads the page from state.db (read-only) and posts `HistoryLoaded` back to that transcript. The
sessions screen asks for lists, searches and lineages the same way. A finished turn's user block
learns its stored id here, so pruned turns can be read back.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from functools import partial
from typing import TYPE_CHECKING, Any

from tui.read_history import HistoryReader, SessionsListState
from widgets.transcript_history import HistoryLoaded, HistoryPage, HistoryWanted

if TYPE_CHECKING:
    from tui.app import HwsApp
    from tui.screens.sessions import SessionsScreen


class HistoryFeeds:
    """Reading state.db for the transcript and the sessions screen, in the app's workers."""

    def __init__(self, app: HwsApp) -> None:
        self.app = app
        self.reader = HistoryReader(app.home, app.config)
        self.sessions_list = SessionsListState()  # where the sessions screen was left, for its next opening

    async def close(self) -> None:
        """Close the read-only connection: its thread is not a daemon and would keep `hws` from exiting."""
        try:
            await self.reader.close()
        except Exception:  # closing must never keep the window open
            pass

    def _run(
        self,
        work: Callable[[], Coroutine[Any, Any, None]],
        name: str,
        group: str,
        description: str,
        exclusive: bool = False,
    ) -> None:
        self.app.run_worker(
            work, name=name, group=group, description=description, exit_on_error=False, exclusive=exclusive
        )

    # Transcript pages.

    def read_history_page(self, wanted: HistoryWanted) -> None:
        work = partial(self._read_history_page, wanted)
        self._run(work, "read_history_page", "history-page", "read a page of stored messages")

    async def _read_history_page(self, wanted: HistoryWanted) -> None:
        anchor = wanted.anchor or (wanted.session_id, 0)
        try:
            page = await self.reader.page(
                wanted.direction,
                anchor[0],
                anchor[1],
                limit=int(self.app.tui.history_page_messages),
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

    def list_sessions(self, screen: SessionsScreen, offset: int, limit: int) -> None:
        work = partial(self._list_sessions, screen, offset, limit)
        self._run(work, "list_sessions", "sessions-list", "list past sessions", exclusive=True)

    async def _list_sessions(self, screen: SessionsScreen, offset: int, limit: int) -> None:
        try:
            rows = await self.reader.conversations(offset, limit)
            screen.post_message(screen.Listed(rows, offset, ""))
        except Exception as exc:
            screen.post_message(screen.Listed([], offset, f"Could not read state.db: {exc}"))

    def search_sessions(self, screen: SessionsScreen, query: str) -> None:
        work = partial(self._search_sessions, screen, query)
        self._run(work, "search_sessions", "sessions-list", "search past sessions", exclusive=True)

    async def _search_sessions(self, screen: SessionsScreen, query: str) -> None:
        try:
            rows, note = await self.reader.search(query)
        except Exception as exc:
            rows, note = [], f"The search failed: {exc}"
        screen.post_message(screen.Found(query, rows, note))

    def lineage_rows(self, screen: SessionsScreen, session_id: str) -> None:
        work = partial(self._lineage_rows, screen, session_id)
        self._run(work, "lineage_rows", "sessions-list", "read a lineage", exclusive=True)

    async def _lineage_rows(self, screen: SessionsScreen, session_id: str) -> None:
        try:
            rows = await self.reader.lineage_rows(session_id)
        except Exception:
            rows = []
        screen.post_message(screen.LineageListed(session_id, rows))
