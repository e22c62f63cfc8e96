"""The editor screen (ctrl+e): two files side by side — SOUL.md, MEMORY.md, USER.md, a skill's files.

Each pane is a `FileEditor`; ctrl+o opens a file in the focused pane, ctrl+s saves it through the
engine (checked, atomic, journaled; a conflict shows both versions), ctrl+g hands it to $EDITOR, and
ctrl+t moves it beside the live transcript (ctrl+t there brings it back to its pane). Buffers survive
leaving the screen (esc): ctrl+e comes back to them as they were, and hws asks before it quits with
one unsaved. Inside a pane ctrl+e is line-end, as in any text field; ctrl+home and ctrl+end go to the
file's start and end.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Static

from widgets.file_editor import FileEditor

if TYPE_CHECKING:
    from engine.editing.buffers import EditTarget
    from tui.file_editing import EditorController
    from tui.unsaved import UnsavedBuffers

HINTS = (
    "ctrl+o open · ctrl+s save · ctrl+g $EDITOR · ctrl+t beside the transcript · "
    "tab other pane · ctrl+z undo · esc back"
)


class EditorScreen(Screen[None]):
    """Two editor panes over the whole screen."""

    CSS_PATH = "editor.tcss"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+o", "open_file", "open", id="editor_open", tooltip="Open a file in the focused pane"),
        Binding("escape", "close", "back", id="editor_close", tooltip="Back to the workstation"),
    ]

    def __init__(
        self, initial: tuple[str, str], controller: EditorController, unsaved: UnsavedBuffers
    ) -> None:
        super().__init__()
        self.initial = initial
        self.controller = controller  # runs the engine calls of both panes
        self.unsaved = unsaved  # asks before a modified pane is replaced
        self._opened_initial = False
        self._focus_when_open: FileEditor | None = None  # the pane that takes focus once its file loads
        self.beside_from: FileEditor | None = None  # the pane whose file went beside the transcript

    def compose(self) -> ComposeResult:
        yield Static(
            Content.assemble(("▾ ", "dim"), ("Editor", "bold"), " ", ("— " + HINTS, "dim")),
            id="editor-header",
        )
        with Horizontal(id="editor-panes"):
            yield FileEditor(id="editor-left")
            yield FileEditor(id="editor-right")

    @property
    def left(self) -> FileEditor:
        return self.query_one("#editor-left", FileEditor)

    @property
    def right(self) -> FileEditor:
        return self.query_one("#editor-right", FileEditor)

    def on_mount(self) -> None:
        if not self._opened_initial:
            self._opened_initial = True
            for editor, name in zip((self.left, self.right), self.initial, strict=False):
                if name:
                    self.open_named(editor, name)
            self._focus_when_open = self.left if self.initial[0] else None
        self.call_after_refresh(self.left.area.focus)  # works when the file is already shown

    def file_opened(self, editor: FileEditor) -> None:
        """A pane's file finished loading: the first pane gets the focus its hidden editor could not take."""
        if editor is self._focus_when_open:
            self._focus_when_open = None
            if self.focused is None or self.focused is self.left.area:
                editor.area.focus()

    def open_named(self, editor: FileEditor, name: str) -> None:
        from engine.editing.buffers import EditError, find_target

        app: Any = self.app
        try:
            target = find_target(app.home, app.config, name)
        except EditError as exc:
            self.notify(str(exc), severity="warning")
            return
        self.open_target(target, editor)

    def open_target(self, target: EditTarget, editor: FileEditor | None = None) -> None:
        """Open `target` in `editor` (the focused pane by default). A file already open in a pane is
        shown there as it is; a pane with unsaved changes is replaced only after asking."""
        editor = editor or self.focused_editor()
        showing = self.showing(target)
        if showing is not None:
            showing.area.focus()
            return
        if editor.has_file and editor.modified:
            self.unsaved.ask([editor], f"open {target.label}", lambda: self._load(editor, target))
            return
        self._load(editor, target)

    def _load(self, editor: FileEditor, target: EditTarget) -> None:
        self.controller.open(editor, target)

    def showing(self, target: EditTarget) -> FileEditor | None:
        """The pane that has `target` open, if one has."""
        for editor in (self.left, self.right):
            if editor.has_file and os.path.abspath(editor.target.path) == os.path.abspath(target.path):
                return editor
        return None

    def focused_editor(self) -> FileEditor:
        focused = self.focused
        for editor in (self.left, self.right):
            if focused is not None and (focused is editor or editor in focused.ancestors):
                return editor
        return self.left

    def action_open_file(self) -> None:
        from tui.screens.file_picker import FilePickerScreen

        editor = self.focused_editor()
        where = "left" if editor is self.left else "right"

        def chosen(target: EditTarget | None) -> None:
            if target is not None:
                self.open_target(target, editor)
                editor.area.focus()

        self.app.push_screen(FilePickerScreen(where), chosen)

    async def move_beside(self, editor: FileEditor) -> None:
        """ctrl+t: the file leaves this screen and opens beside the live transcript."""
        if not editor.has_file:
            self.notify("Open a file first (ctrl+o), then ctrl+t puts it beside the transcript.")
            return
        app: Any = self.app
        main = app.main_screen
        there = main.beside
        if there is not None and there.has_file and there.modified:
            self.notify(
                f"{there.label} beside the transcript has unsaved changes: save it (ctrl+s) or bring it "
                f"back (ctrl+t) first, then ctrl+t moves {editor.label}.",
                severity="warning",
                timeout=8,
            )
            return
        beside = FileEditor(id="beside-editor", empty_hint="")
        state = (editor.target, editor.text, editor.base_digest, editor.loaded_text)
        self.beside_from = editor
        editor.close()
        app.pop_screen()
        await main.open_beside(beside)
        target, text, digest, loaded = state
        self.controller.open_state(
            beside, target, text, digest, loaded, "Beside the transcript: esc focuses the input."
        )
        beside.area.focus()

    def pane_for_return(self) -> FileEditor | None:
        """Where a file coming back from beside the transcript goes: the pane it left if that is
        still empty, else an empty pane, else one whose file has no unsaved changes; None if both
        panes hold unsaved changes (nothing is replaced unasked)."""
        origin = self.beside_from if self.beside_from in (self.left, self.right) else self.left
        other = self.right if origin is self.left else self.left
        for editor in (origin, other):
            if not editor.has_file:
                return editor
        for editor in (origin, other):
            if not editor.modified:
                return editor
        return None

    def take_back(self, editor: FileEditor, target: Any, text: str, digest: str, loaded: str) -> None:
        """A file coming back from beside the transcript, into `editor` (see `pane_for_return`)."""
        self.controller.open_state(editor, target, text, digest, loaded)
        editor.area.focus()

    def action_close(self) -> None:
        """esc: back to the workstation; the buffers stay here as they are (ctrl+e comes back)."""
        unsaved = [editor.label for editor in (self.left, self.right) if editor.has_file and editor.modified]
        self.app.pop_screen()
        if unsaved:
            them = "it" if len(unsaved) == 1 else "them"
            self.app.notify(
                f"Unsaved: {', '.join(unsaved)}. ctrl+e comes back to {them}; ctrl+q asks before quitting.",
                timeout=5,
            )
