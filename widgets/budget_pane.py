"""The budget pane: how full the context window is, and what the provider reported per call.

For now it shows the usage the engine reports (last call and session totals); the split by prompt
layer, the cached prefix and the compression threshold fill in when the prompt builder lands.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.content import Content

from widgets.gauge import GaugeLevels, format_tokens, gauge
from widgets.pane import LogPane

if TYPE_CHECKING:
    from engine import events


class BudgetPane(LogPane):
    pane_key = "F3"
    pane_title = "Budget"
    intro = "The split by prompt layer and the cached prefix come with the prompt builder. Calls:"

    def __init__(self, context_window: int, levels: GaugeLevels | None = None, id: str | None = None) -> None:
        super().__init__(id=id)
        self.context_window = context_window
        self.levels = levels or GaugeLevels()
        self.used = 0
        self.total_in = 0
        self.total_out = 0
        self.total_cached = 0
        self.total_cost = 0.0
        self._summarise()

    def _summarise(self) -> None:
        window = self.context_window
        fraction = self.used / window if window else 0.0
        head = f"{format_tokens(self.used)} / {format_tokens(window)} "
        self.summary = Content.assemble(head, gauge(fraction, 10, self.levels))
        self.brief = f"{fraction * 100:.0f}%"

    def usage(self, event: events.Usage) -> None:
        self.used = event.prompt_tokens + event.completion_tokens
        self.total_in += event.prompt_tokens
        self.total_out += event.completion_tokens
        self.total_cached += event.cached_tokens
        self.total_cost += event.cost_usd
        self._summarise()
        self.add_entry(
            Content.assemble(
                "last call: ",
                (format_tokens(event.prompt_tokens), "bold"),
                " in, ",
                (format_tokens(event.cached_tokens), "$success"),
                " cached, ",
                format_tokens(event.completion_tokens),
                f" out, ${event.cost_usd:.3f}",
            )
        )

    def set_window(self, context_window: int) -> None:
        self.context_window = context_window
        self._summarise()
