"""Pick a file to edit: SOUL.md, the memory files, every local skill's SKILL.md and support files."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from tui.screens.closing import dismiss_once

if TYPE_CHECKING:
    from engine.editing.buffers import EditTarget

KIND_NOTE = {
    "soul": "who the agent is",
    "memory": "facts about the environment",
    "user": "facts about the user",
    "skill": "skill",
    "skill_file": "skill file",
}


class FilePickerScreen(ModalScreen["EditTarget | None"]):
    """Type to filter; enter opens the highlighted file in the editor pane that asked."""

    CSS_PATH = "file_picker.tcss"
    AUTO_FOCUS = "#picker-filter"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss_none", "back", id="picker_cancel", tooltip="Close without opening"),
        Binding("down", "move(1)", show=False, id="picker_down"),
        Binding("up", "move(-1)", show=False, id="picker_up"),
    ]

    def __init__(self, where: str = "") -> None:
        super().__init__()
        self.where = where
        self.targets: list[EditTarget] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="picker-frame"):
            yield Static(
                Content.assemble(
                    ("Open a file", "bold"), (f" in the {self.where} pane" if self.where else "", "dim")
                )
            )
            yield Input(placeholder="filter: soul, user, a skill's name…", id="picker-filter")
            yield OptionList(id="picker-list")

    def on_mount(self) -> None:
        self._load_targets()

    @work(thread=True, exclusive=True, exit_on_error=False, description="list editable files")
    def _load_targets(self) -> None:
        from engine.editing.buffers import all_targets

        app: Any = self.app
        targets = all_targets(app.home, app.config)
        self.app.call_from_thread(self._show_targets, targets)

    def _show_targets(self, targets: list[EditTarget]) -> None:
        self.targets = targets
        self._filter(self.query_one("#picker-filter", Input).value)

    @on(Input.Changed, "#picker-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self._filter(event.value)

    def _filter(self, text: str) -> None:
        words = text.lower().split()
        listing = self.query_one("#picker-list", OptionList)
        listing.clear_options()
        for index, target in enumerate(self.targets):
            haystack = f"{target.label} {target.skill} {target.kind}".lower()
            if all(word in haystack for word in words):
                note = KIND_NOTE.get(target.kind, "")
                listing.add_option(
                    Option(Content.assemble((target.label, "bold"), ("  " + note, "dim")), id=str(index))
                )
        if listing.option_count:
            listing.highlighted = 0

    def action_move(self, step: int) -> None:
        listing = self.query_one("#picker-list", OptionList)
        if listing.option_count:
            current = listing.highlighted or 0
            listing.highlighted = max(0, min(listing.option_count - 1, current + step))

    @on(Input.Submitted, "#picker-filter")
    def _submitted(self) -> None:
        listing = self.query_one("#picker-list", OptionList)
        if listing.highlighted is not None:
            option = listing.get_option_at_index(listing.highlighted)
            dismiss_once(self, self.targets[int(option.id or 0)])

    @on(OptionList.OptionSelected, "#picker-list")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        dismiss_once(self, self.targets[int(event.option.id or 0)])

    def action_dismiss_none(self) -> None:
        dismiss_once(self, None)
