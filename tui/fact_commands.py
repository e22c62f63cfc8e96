"""`/facts [TEXT]`: search the local fact store and remove a fact, in the app's thread workers.

The screen (`tui.screens.facts`) only asks; the search and the removal run here, off the UI thread,
through the engine's `engine.providers.facts.shown` (a removal keeps the rules the agent's
`fact_store remove` keeps). A removal's `FactWritten` goes to the main screen as the agent's background
events do, so the memory pane shows it like any other fact write.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from tui import messages

if TYPE_CHECKING:
    from engine.providers.facts.shown import FoundFact
    from tui.app import HwsApp
    from tui.screens.facts import FactsScreen

NOT_ACTIVE = (
    "/facts searches the local fact store, which is not the memory provider; set `memory.provider: "
    "holographic` in config.yaml to use it (`hws memory provider setup` chooses one)."
)


class FactCommands:
    """Opens the facts screen and does its searches and removals."""

    def __init__(self, app: HwsApp) -> None:
        self.app = app

    def open_screen(self, query: str) -> None:
        from engine.providers.registry import fact_store_active
        from tui.screens.facts import FactsScreen

        if not fact_store_active(self.app.config):
            self.app.main_screen.post_message(messages.Notice(NOT_ACTIVE, "warning", "!"))
            return
        self.app.push_screen(FactsScreen(self, query))

    def search(self, screen: FactsScreen, query: str) -> None:
        self.app.run_worker(
            partial(self._search, screen, query),
            name="_search_facts",
            group="facts",
            description="search the fact store",
            exclusive=True,
            exit_on_error=False,
            thread=True,
        )

    def _search(self, screen: FactsScreen, query: str) -> None:
        from engine.providers.facts.shown import find

        limit = int(self.app.config.facts.search_results)
        try:
            found: list[FoundFact] = find(self.app.home, self.app.config, query, limit)
        except Exception as exc:  # an unreadable store: a sentence on the screen
            self.app.call_from_thread(screen.show_problem, f"The fact store could not be searched: {exc}")
            return
        self.app.call_from_thread(screen.show_found, query, found)

    def remove(self, screen: FactsScreen, fact_id: int) -> None:
        self.app.run_worker(
            partial(self._remove, screen, fact_id),
            name="_remove_fact",
            group="facts-remove",
            description="remove a fact",
            exit_on_error=False,
            thread=True,
        )

    def _remove(self, screen: FactsScreen, fact_id: int) -> None:
        from engine.providers.facts.shown import remove

        try:
            written, said = remove(self.app.home, self.app.config, fact_id, self.app.session_id)
        except Exception as exc:  # an unreadable store: a sentence on the screen
            written, said = None, f"Fact {fact_id} was not removed: {exc}"
        if written is not None:
            self.app.lifecycle.background_event(written)
        self.app.call_from_thread(screen.removed, fact_id if written is not None else None, said)
