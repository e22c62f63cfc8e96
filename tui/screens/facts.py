"""`/facts [TEXT]`: the local fact store's facts matching TEXT (the most trusted without), with their trust.

Enter in the search box searches again; on the list, delete asks to remove the highlighted fact and
y removes it (any other key keeps it). The screen only draws and asks: `FactCommands` searches and
removes in the app's workers and calls back `show_found`, `show_problem` and `removed`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from widgets.facts_section import FactLine, fact_content

if TYPE_CHECKING:
    from engine.providers.facts.shown import FoundFact
    from tui.fact_commands import FactCommands

HELP = "enter searches · ↓ to the list · delete removes a fact (asks first) · esc closes"


class FactsScreen(ModalScreen[None]):
    """The search box, the facts found, and a line that says what happened."""

    CSS_PATH = "facts.tcss"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "close", id="facts_close", tooltip="Close (or keep the fact asked about)"),
        Binding(
            "delete",
            "ask_removal",
            "remove",
            id="facts_remove",
            tooltip="Remove the highlighted fact from the fact store; asks first",
        ),
        Binding(
            "y",
            "confirm_removal",
            "yes, remove",
            id="facts_confirm",
            show=False,
            tooltip="After delete asked: remove the fact (any other key keeps it)",
        ),
        Binding(
            "down",
            "to_list",
            "to the list",
            id="facts_to_list",
            show=False,
            tooltip="From the search box to the list",
        ),
    ]

    def __init__(self, commands: FactCommands, query: str = "") -> None:
        super().__init__()
        self.commands = commands
        self.query_text = query
        self.found: list[FoundFact] = []
        self.asking: FoundFact | None = None  # the fact delete asked about, until y or another key

    def compose(self) -> ComposeResult:
        with Vertical(id="facts-frame"):
            yield Static(Content.assemble(("Facts", "bold"), ("  ·  " + HELP, "dim")), id="facts-title")
            yield Input(self.query_text, placeholder="search the fact store", id="facts-query")
            yield OptionList(id="facts-list")
            yield Static("Searching…", id="facts-status")

    def on_mount(self) -> None:
        self.query_one("#facts-query", Input).focus()
        self.commands.search(self, self.query_text)

    @property
    def facts_list(self) -> OptionList:
        return self.query_one("#facts-list", OptionList)

    def _say(self, content: Content | str) -> None:
        self.query_one("#facts-status", Static).update(content)

    @on(Input.Submitted, "#facts-query")
    def _search(self, event: Input.Submitted) -> None:
        event.stop()
        self.query_text = event.value.strip()
        self.asking = None
        self._say("Searching…")
        self.commands.search(self, self.query_text)

    # What the workers call back.

    def show_found(self, query: str, found: Sequence[FoundFact]) -> None:
        self.found = list(found)
        listing = self.facts_list
        listing.clear_options()
        listing.add_options(
            Option(fact_content(FactLine(f.fact_id, f.content, f.trust, f.category)), id=str(f.fact_id))
            for f in self.found
        )
        if self.found:
            listing.highlighted = 0
        where = f"matching “{query}”" if query else "in the store, most trusted first"
        count = len(self.found)
        self._say(f"{count} fact{'s' if count != 1 else ''} {where}." if count else f"No fact {where}.")

    def show_problem(self, sentence: str) -> None:
        self._say(Content.styled(sentence, "$error"))

    def removed(self, fact_id: int | None, sentence: str) -> None:
        if fact_id is None:
            self._say(Content.styled(sentence, "$warning"))
            return
        self.found = [f for f in self.found if f.fact_id != fact_id]
        listing = self.facts_list
        index = listing.get_option_index(str(fact_id))
        listing.remove_option_at_index(index)
        if listing.option_count:
            listing.highlighted = min(index, listing.option_count - 1)
        self._say(Content.styled(sentence, "$success"))

    # Keys.

    def _highlighted(self) -> FoundFact | None:
        listing = self.facts_list
        if listing.highlighted is None:
            return None
        option_id = listing.get_option_at_index(listing.highlighted).id
        return next((f for f in self.found if str(f.fact_id) == option_id), None)

    def action_to_list(self) -> None:
        """Down from the search box: the list (the list's own down moves its cursor)."""
        self.facts_list.focus()

    def action_ask_removal(self) -> None:
        fact = self._highlighted()
        if fact is None:
            self._say(
                Content.styled("Highlight a fact in the list first (↓ from the search box).", "$warning")
            )
            return
        self.asking = fact
        self.facts_list.focus()
        self._say(
            Content.assemble(
                ("Remove ", "bold $warning"),
                (f"fact {fact.fact_id}", "bold"),
                f" “{' '.join(fact.content.split())}” from the store? ",
                ("y", "bold"),
                " removes it, any other key keeps it.",
            )
        )

    def action_confirm_removal(self) -> None:
        fact, self.asking = self.asking, None
        if fact is None:
            return
        self._say(f"Removing fact {fact.fact_id}…")
        self.commands.remove(self, fact.fact_id)

    def on_key(self, event: events.Key) -> None:
        """Any key but y (and delete, which asks) keeps the fact a removal asked about."""
        if self.asking is not None and event.key not in ("y", "delete"):
            self.asking = None
            self._say("Kept.")
            if event.key == "escape":
                event.stop()
                event.prevent_default()

    def action_close(self) -> None:
        self.dismiss(None)
