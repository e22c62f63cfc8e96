"""What the agent's questions to the person share (an approval, a `clarify`): typing-safe focus.

A question never takes the focus by itself (the person may be typing), so keys meant for the input
never answer it. `ctrl+o` (the screen's key) moves to it with `take_focus`, remembering where the
person was; while it has the focus, printable keys stop at it, so no pane key acts around it. The
answer resolves the engine's Future; when the Future is done (answered here, or cancelled by the
engine), the block settles into a one-line record of what was decided.
"""

from __future__ import annotations

import asyncio

from textual.containers import Vertical
from textual.widget import Widget


class QuestionBlock(Vertical):
    """A question in the transcript whose answer resolves `future`; subclasses draw and settle it."""

    def __init__(self, future: asyncio.Future[str]) -> None:
        super().__init__()
        self.future = future
        self.focus_before: Widget | None = None
        """Where the focus was when the person moved to the question: it goes back there."""

    def on_mount(self) -> None:
        self.future.add_done_callback(lambda _: self._settle_if_attached())

    def first_stop(self) -> Widget:
        """Where `take_focus` puts the person (the first answer)."""
        raise NotImplementedError

    def take_focus(self) -> None:
        """Move the person to this question (their deliberate key), remembering where they were."""
        focused = self.app.focused
        if focused is None or self not in focused.ancestors_with_self:
            self.focus_before = focused
        # At once, not after the next refresh as `focus()` does: a digit typed right after ctrl+o answers.
        self.app.set_focus(self.first_stop())

    def check_consume_key(self, key: str, character: str | None) -> bool:
        return character is not None and character.isprintable()  # no pane key acts around it

    def move_among(self, stops: list[Widget], step: int) -> None:
        """Focus the stop `step` away from the focused one (wrapping); the first when none has it."""
        if not stops:
            return
        focused = self.app.focused
        index = stops.index(focused) if focused in stops else 0
        stops[(index + step) % len(stops)].focus()

    def resolve(self, value: str) -> bool:
        """Give the engine its answer; False when it already has one (or stopped waiting)."""
        if self.future.done():
            return False
        self.future.set_result(value)
        return True

    def _settle_if_attached(self) -> None:
        if self.is_attached:
            self.settle()

    def settle(self) -> None:
        """Redraw as answered (the Future is done: its result, or cancelled)."""
        raise NotImplementedError
