"""The dialog for a message too large for the model's context window: how to go on, before it is sent.

Four ways out, and the message is never lost: save it to a file in the project and send its path
(the agent reads what it needs with its tools), cut it to its start and end, send it anyway, or go
back to the input with the message as it was.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from tui.screens.closing import dismiss_once

FILE, CUT, SEND = "file", "cut", "send"


class OversizedScreen(ModalScreen[str | None]):
    """Dismisses with `file`, `cut`, `send`, or None (back to the input)."""

    CSS_PATH = "oversized.tcss"
    AUTO_FOCUS = "#oversized-file"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "f", "choose('file')", "save to a file", id="oversized_file", tooltip="Save it, send its path"
        ),
        Binding("c", "choose('cut')", "cut to fit", id="oversized_cut", tooltip="Keep its start and end"),
        Binding("s", "choose('send')", "send anyway", id="oversized_send", tooltip="Send it as it is"),
        Binding("escape", "choose('')", "back", id="oversized_cancel", tooltip="Back to the input"),
    ]

    def __init__(self, sentence: str, folder: str) -> None:
        super().__init__()
        self.sentence = sentence
        self.folder = folder

    def compose(self) -> ComposeResult:
        with Vertical(id="oversized-frame"):
            yield Static(
                Content.assemble(("⚠ ", "$warning"), ("Too large for the model", "bold")),
                id="oversized-title",
            )
            yield Static(self.sentence, id="oversized-text")
            yield Static(
                Content.assemble(
                    ("f ", "bold"),
                    f"saves it in the project ({self.folder}) and sends its path: the agent reads what it "
                    "needs.\n",
                    ("c ", "bold"),
                    "keeps its start and end, with a note of what was cut.\n",
                    ("s ", "bold"),
                    "sends it as it is: the model will most likely refuse it.",
                ),
                id="oversized-help",
            )
            with Horizontal(id="oversized-buttons"):
                yield Button("f  save to a file", id="oversized-file", variant="primary", compact=True)
                yield Button("c  cut to fit", id="oversized-cut", compact=True)
                yield Button("s  send anyway", id="oversized-send", compact=True)
                yield Button("esc  back", id="oversized-back", compact=True)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_choose((event.button.id or "").removeprefix("oversized-").replace("back", ""))

    def action_choose(self, choice: str) -> None:
        dismiss_once(self, choice or None)
