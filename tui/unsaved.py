"""Unsaved editor buffers: found wherever they are, and asked about before anything drops them.

The editor screen keeps its two panes while it is not shown (esc), and a file can stand beside the
transcript; a modified buffer in any of them is only in memory. ctrl+q and opening another file over
a modified pane ask save / discard / cancel (`UnsavedScreen`); a save that does not land (refused,
or a conflict with the disk) keeps hws open, says why and shows the file. SIGTERM cannot ask: it
saves nothing (a half-made edit written unasked could be worse than none) and the home's
errors.log says which buffers were lost.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engine.editing.buffers import SaveResult
    from widgets.file_editor import FileEditor

log = logging.getLogger("engine.workstation")  # the engine's logger writes the home's logs


class UnsavedBuffers:
    """Finds the app's modified editor buffers and asks about them (owned by the app)."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.asking = False

    def editors(self) -> list[FileEditor]:
        """Every editor holding a file whose buffer differs from what was loaded or last saved."""
        found: list[FileEditor] = []
        screen = self.app.editor_screen
        if screen is not None:
            found += [screen.left, screen.right]
        main = self.app.main_screen
        if main is not None and main.is_mounted:
            beside = main.beside
            if beside is not None:
                found.append(beside)
        return [editor for editor in found if editor.has_file and editor.modified]

    def ask(self, editors: Sequence[FileEditor], doing: str, proceed: Callable[[], Any]) -> None:
        """Ask before `doing` (a verb: "quit", "open USER.md"); save or discard, then `proceed`."""
        from tui.screens.unsaved import DISCARD, SAVE, UnsavedScreen

        if self.asking:
            return
        self.asking = True
        editors = list(editors)

        def answered(choice: str | None) -> None:
            self.asking = False
            if choice == SAVE:
                self._save_then(editors, doing, proceed)
            elif choice == DISCARD:
                self.app.call_later(proceed)

        self.app.push_screen(UnsavedScreen([editor.label for editor in editors], doing), answered)

    def _save_then(self, editors: list[FileEditor], doing: str, proceed: Callable[[], Any]) -> None:
        waiting = {id(editor) for editor in editors}
        failed: list[tuple[FileEditor, SaveResult | None]] = []

        def done(editor: FileEditor, result: SaveResult | None) -> None:
            waiting.discard(id(editor))
            if result is None or not result.ok:
                failed.append((editor, result))
            if waiting:
                return
            if failed:
                self._not_done(doing, failed)
            else:
                self.app.call_later(proceed)

        controller = self.app.live_files.editor_controller
        for editor in editors:
            controller.save(editor, on_done=lambda result, editor=editor: done(editor, result))

    def _not_done(self, doing: str, failed: list[tuple[FileEditor, SaveResult | None]]) -> None:
        """Say which file did not save and why, and put the person in front of it."""
        editor, result = failed[0]
        if result is None:
            why = "the save failed; the details are in the home's logs/errors.log"
        elif result.status == "conflict":
            why = "it changed on disk; choose which version to keep first"
        else:
            why = result.message.rstrip(".")
        more = f" (and {len(failed) - 1} more)" if len(failed) > 1 else ""
        self.app.notify(
            f"{editor.label} could not be saved{more} ({why}), so hws did not {doing}.",
            severity="error",
            timeout=10,
        )
        if result is not None and result.status == "conflict":
            return  # the conflict dialog is already in front of the file
        self.show(editor)

    def show(self, editor: FileEditor) -> None:
        """Bring the screen holding `editor` forward and put the cursor in it."""
        screen = self.app.editor_screen
        if (
            screen is not None
            and editor in (screen.left, screen.right)
            and screen not in self.app.screen_stack
        ):
            self.app.push_screen(screen)
        editor.area.focus()

    def log_lost(self, why: str) -> list[str]:
        """Write the modified buffers that `why` (a signal) is about to lose to the home's logs."""
        lost = [editor.label for editor in self.editors()]
        if lost:
            log.error(
                "hws stopped (%s) with unsaved editor changes, which were not saved: %s",
                why,
                ", ".join(lost),
            )
        return lost
