"""The unsaved-changes question: files modified in an editor, and something about to drop them.

Save (each file through the engine, as ctrl+s does), discard (the files stay as they are on disk),
or cancel (back to where you were, every buffer as it was). Asked by ctrl+q and by opening another
file over a modified pane; see `tui.unsaved`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from tui.screens.closing import dismiss_once

SAVE, DISCARD = "save", "discard"


class UnsavedScreen(ModalScreen[str | None]):
    """Dismisses with `save`, `discard`, or None (cancel)."""

    CSS_PATH = "unsaved.tcss"
    AUTO_FOCUS = "#unsaved-save"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s", "choose('save')", "save", id="unsaved_save", tooltip="Save the files, then go on"),
        Binding("d", "choose('discard')", "discard", id="unsaved_discard", tooltip="Drop the changes, go on"),
        Binding(
            "escape", "choose('')", "cancel", id="unsaved_cancel", tooltip="Back to the files, as they were"
        ),
        Binding("left", "app.focus_previous", "previous choice", id="unsaved_previous", show=False),
        Binding("right", "app.focus_next", "next choice", id="unsaved_next", show=False),
    ]

    def __init__(self, labels: Sequence[str], doing: str) -> None:
        super().__init__()
        self.labels = list(labels)
        self.doing = doing  # what waits on the answer, as a verb: "quit", "open USER.md"

    def compose(self) -> ComposeResult:
        count = len(self.labels)
        with Vertical(id="unsaved-frame"):
            yield Static(
                Content.assemble(
                    ("⚠ ", "$warning"),
                    ("Unsaved changes", "bold"),
                    f" in {count} file{'s' if count != 1 else ''}, before you {self.doing}:",
                ),
                id="unsaved-title",
            )
            yield Static(Content.assemble(*_bulleted(self.labels)), id="unsaved-files")
            yield Static(
                Content.styled("The changes are only in the editor until they are saved.", "dim"),
                id="unsaved-note",
            )
            with Horizontal(id="unsaved-buttons"):
                yield Button(f"s  save and {self.doing}", id="unsaved-save", variant="primary", compact=True)
                yield Button(
                    f"d  discard and {self.doing}", id="unsaved-discard", variant="error", compact=True
                )
                yield Button("esc  cancel", id="unsaved-cancel", compact=True)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        choice = {"unsaved-save": SAVE, "unsaved-discard": DISCARD}.get(event.button.id or "", "")
        self.action_choose(choice)

    def action_choose(self, choice: str) -> None:
        dismiss_once(self, choice or None)


def _bulleted(labels: Sequence[str]) -> list[Content | tuple[str, str] | str]:
    parts: list[Content | tuple[str, str] | str] = []
    for index, label in enumerate(labels):
        parts += ["\n" if index else "", ("● ", "$warning"), (label, "bold")]
    return parts
