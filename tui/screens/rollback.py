"""`/rollback`: the working folder's checkpoints by turn; one chosen shows its diff, enter again restores it.

The list says, for each checkpoint, what changed in the folder since (what a restore would undo).
Enter on a checkpoint shows its diff below the list; enter on the same one restores it. A restore
takes a checkpoint of the folder first, so it is listed next time and undoes the restore. The screen
dismisses with the sentence of what was done (None when closed without a restore).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from tui.screens.closing import dismiss_once

if TYPE_CHECKING:
    from engine.checkpoints.store import Change, Checkpoint, CheckpointStore
    from engine.config import Config
    from engine.home import Home

DIFF_MAX_LINES = 400  # lines of a checkpoint's diff shown; `hws checkpoints diff ID` prints it all


class RollbackScreen(ModalScreen[str | None]):
    """Dismisses with the sentence of the restore it made, or None."""

    CSS_PATH = "rollback.tcss"
    AUTO_FOCUS = "#rollback-list"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "back", id="rollback_close", tooltip="Close without restoring"),
    ]

    def __init__(self, home: Home, config: Config, folder: Path, *, chosen: str = "") -> None:
        super().__init__()
        from engine.checkpoints.store import CheckpointStore

        self.store: CheckpointStore = CheckpointStore(home, config, folder)
        self.listed: list[Checkpoint] = []
        self.chosen: Checkpoint | None = None  # shown with its diff: enter on it again restores it
        self.asked_for = chosen.strip()  # `/rollback ID`: that checkpoint is highlighted with its diff
        self.busy = False

    def compose(self) -> ComposeResult:
        with Vertical(id="rollback-frame"):
            yield Static(
                Content.assemble(("Checkpoints", "bold"), f" of {self.store.project}"), id="rollback-title"
            )
            yield OptionList(id="rollback-list")
            with VerticalScroll(id="rollback-diff-scroll"):
                yield Static(Content("Reading the checkpoints…"), id="rollback-diff")
            yield Static(
                Content.assemble(
                    ("enter ", "bold"),
                    "shows a checkpoint's diff; ",
                    ("enter ", "bold"),
                    "again restores it; ",
                    ("esc ", "bold"),
                    "closes",
                ),
                id="rollback-help",
            )

    def on_mount(self) -> None:
        self._load()

    @work(thread=True, exclusive=True, group="rollback", exit_on_error=False)
    def _load(self) -> None:
        from engine.checkpoints.store import CheckpointError

        try:
            every = self.store.checkpoints()
            now = self.store.current_tree() if every else ""
            rows = [(c, self.store.changes(c.tree, now)) for c in every]
        except CheckpointError as exc:
            self.app.call_from_thread(self._say, str(exc))
            return
        self.app.call_from_thread(self._listed, rows)

    def _listed(self, rows: list[tuple[Checkpoint, list[Change]]]) -> None:
        from engine.checkpoints import words

        self.listed = [c for c, _changes in rows]
        options = self.query_one("#rollback-list", OptionList)
        options.clear_options()
        for checkpoint, changes in rows:
            line = f"{words.label(checkpoint)}  ·  {checkpoint.id}  ·  since: {words.summary(changes)}"
            options.add_option(Option(Content(line), id=checkpoint.id))
        if not rows:
            self._say(
                "No checkpoints of this folder yet: one is taken before the agent's first change of a turn."
            )
            return
        asked = next(
            (i for i, c in enumerate(self.listed) if self.asked_for and c.id.startswith(self.asked_for)), None
        )
        options.highlighted = asked or 0
        if asked is not None:  # its diff at once: enter restores it, esc leaves the files as they are
            self.chosen = self.listed[asked]
            self._say(f"Comparing {self.chosen.id} with the folder…")
            self._show_diff(self.chosen)
        elif self.asked_for:
            self._say(
                f"No checkpoint {self.asked_for} of this folder; choose one (newest first) and press enter."
            )
        else:
            self._say("Choose a checkpoint (newest first) and press enter to see what restoring it changes.")

    def _say(self, text: str) -> None:
        self.query_one("#rollback-diff", Static).update(Content(text))

    @on(OptionList.OptionSelected, "#rollback-list")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if self.busy or event.option_index >= len(self.listed):
            return
        checkpoint = self.listed[event.option_index]
        if self.chosen is not None and self.chosen.commit == checkpoint.commit:
            self.busy = True
            self._say(f"Restoring {checkpoint.id}…")
            self._restore(checkpoint)
            return
        self.chosen = checkpoint
        self._say(f"Comparing {checkpoint.id} with the folder…")
        self._show_diff(checkpoint)

    @work(thread=True, exclusive=True, group="rollback", exit_on_error=False)
    def _show_diff(self, checkpoint: Checkpoint) -> None:
        from engine.checkpoints import words
        from engine.checkpoints.store import CheckpointError

        try:
            now = self.store.current_tree()  # the diff as the restore would make it: now → checkpoint
            changes = self.store.changes(now, checkpoint.tree)
            patch = self.store.patch(now, checkpoint.tree)
        except CheckpointError as exc:
            self.app.call_from_thread(self._say, str(exc))
            return
        lines = patch.splitlines()
        more = len(lines) - DIFF_MAX_LINES
        cut = f"\n… {more:,} more lines (hws checkpoints diff {checkpoint.id})" if more > 0 else ""
        head = [
            f"Restoring {checkpoint.id} ({words.label(checkpoint)}) changes {words.summary(changes)}:",
            *(f"  {words.restore_line(change)}" for change in changes),
            "Press enter again to restore it." if changes else "The folder already matches it.",
            "",
        ]
        text = "\n".join([*head, *lines[:DIFF_MAX_LINES]]) + cut
        self.app.call_from_thread(self._say, text)

    @work(thread=True, exclusive=True, group="rollback", exit_on_error=False)
    def _restore(self, checkpoint: Checkpoint) -> None:
        from engine.checkpoints import words
        from engine.checkpoints.store import CheckpointError

        try:
            restored = self.store.restore(checkpoint)
        except CheckpointError as exc:
            self.busy = False
            self.app.call_from_thread(self._say, str(exc))
            return
        sentence = words.restored_sentence(restored, str(self.store.project))
        self.app.call_from_thread(dismiss_once, self, sentence)

    def action_close(self) -> None:
        if not self.busy:
            dismiss_once(self, None)
