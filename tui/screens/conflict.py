"""The conflict dialog: the file changed on disk since the buffer was loaded; show both, let the user choose.

Three ways out, and nothing is lost in any of them: keep yours (the disk's version is already in the
journal or the skill history), take the disk's (yours stays one ctrl+z away in the buffer), or merge
by hand (both versions go into the buffer between markers, and a save is refused until they are gone).
A file deleted on disk is said to be deleted: keep yours writes it back, the other choice accepts
the deletion (the buffer empties; ctrl+z brings it back).
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from engine.editing.merge import diff_lines
from tui.screens.closing import dismiss_once
from widgets.diff_view import DiffView

KEEP_MINE, TAKE_DISK, MERGE = "mine", "disk", "merge"


class ConflictScreen(ModalScreen[str | None]):
    """Both versions as a diff; dismisses with `mine`, `disk`, `merge`, or None (decide later)."""

    CSS_PATH = "conflict.tcss"
    AUTO_FOCUS = "#conflict-diff"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("m", "choose('mine')", "keep yours", id="conflict_keep_mine", tooltip="Save your version"),
        Binding("d", "choose('disk')", "take the disk's", id="conflict_take_disk", tooltip="Load the disk's"),
        Binding("h", "choose('merge')", "merge by hand", id="conflict_merge", tooltip="Both, with markers"),
        Binding("escape", "choose('')", "decide later", id="conflict_cancel", tooltip="Keep editing"),
    ]

    def __init__(
        self, label: str, mine: str, disk: str, context: int = 3, reason: str = "", deleted: bool = False
    ) -> None:
        super().__init__()
        self.label = label
        self.mine = mine
        self.disk = disk
        self.context = context
        self.reason = reason
        self.deleted = deleted  # the file is gone from disk (`disk` is then empty)

    def compose(self) -> ComposeResult:
        lines = diff_lines(self.mine, self.disk, self.context)
        view = DiffView(lines, id="conflict-diff")
        removed, added = view.changed
        with Vertical(id="conflict-frame"):
            yield Static(
                Content.assemble(
                    ("⚠ ", "$warning"),
                    (self.label, "bold"),
                    " was deleted on disk since you opened it"
                    if self.deleted
                    else " changed on disk since you opened it",
                    (f" — {self.reason}" if self.reason else "", "dim"),
                ),
                id="conflict-title",
            )
            yield Static(
                Content.assemble(
                    ("- yours ", "$error"),
                    (f"({removed} line{'s' if removed != 1 else ''} only in yours)  ", "dim"),
                    ("+ on disk ", "$success"),
                    ("(nothing: the file is gone)", "dim")
                    if self.deleted
                    else (f"({added} line{'s' if added != 1 else ''} only on disk)", "dim"),
                ),
                id="conflict-legend",
            )
            yield view
            with Horizontal(id="conflict-buttons"):
                mine, disk = (
                    ("write yours back", "accept the deletion")
                    if self.deleted
                    else ("keep yours", "take the disk's")
                )
                yield Button(f"m  {mine}", id="conflict-mine", variant="primary", compact=True)
                yield Button(f"d  {disk}", id="conflict-disk", compact=True)
                yield Button("h  merge by hand", id="conflict-merge", compact=True)
                yield Button("esc  decide later", id="conflict-later", compact=True)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        choice = {
            "conflict-mine": KEEP_MINE,
            "conflict-disk": TAKE_DISK,
            "conflict-merge": MERGE,
        }.get(event.button.id or "", "")
        self.action_choose(choice)

    def action_choose(self, choice: str) -> None:
        dismiss_once(self, choice or None)
