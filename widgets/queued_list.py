"""The messages typed while a turn runs, dimmed above the input in the order they will be sent.

It shows what it is given; the app owns the queue. Enter (or a click) on one asks to edit it (it goes
back into the input, out of the queue); delete or backspace asks to drop it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from textual import on
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

QUEUE_TITLE = "queued: sent when the turn ends · enter edits · delete drops · esc: input"


class QueuedList(OptionList):
    """One line per queued message (its first line), dimmed."""

    DEFAULT_CSS = """
    QueuedList {
        height: auto;
        max-height: 6;
        display: none;
        border: none;
        border-top: dashed $panel-lighten-2;
        border-title-color: $text-muted;
        padding: 0 1;
        background: $surface;
        color: $text-muted;
    }
    QueuedList.-shown {
        display: block;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "delete,backspace", "drop", "drop", id="queued_drop", tooltip="Drop the queued message (not sent)"
        ),
    ]

    class EditRequested(Message):
        """Enter or a click on a queued message: back into the input with it."""

        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    class DropRequested(Message):
        """Delete on a queued message: it is not sent."""

        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def on_mount(self) -> None:
        self.border_title = QUEUE_TITLE

    def show(self, drafts: Sequence[str], labels: Sequence[str] = ()) -> None:
        """The queue as it is now: `drafts` in sending order; `labels` (a steer waiting) after them."""
        highlighted = self.highlighted
        self.clear_options()
        for number, draft in enumerate(drafts, start=1):
            first = draft.strip().splitlines()[0] if draft.strip() else ""
            more = " …" if "\n" in draft.strip() else ""
            self.add_option(Option(Content.assemble((f"{number}. ", "bold"), first, more)))
        for label in labels:
            self.add_option(Option(Content.styled(label, "italic"), disabled=True))
        self.set_class(bool(drafts) or bool(labels), "-shown")
        if drafts:
            self.highlighted = min(highlighted or 0, len(drafts) - 1)

    @on(OptionList.OptionSelected)
    def _edit(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.post_message(self.EditRequested(event.option_index))

    def action_drop(self) -> None:
        index = self.highlighted
        if index is not None and not self.get_option_at_index(index).disabled:
            self.post_message(self.DropRequested(index))
