"""The engine side of every open FileEditor: load, live checks, save with conflicts, $EDITOR, disk changes.

Editors live on the editor screen (two panes) and beside the transcript (one); their requests bubble
to the app, which hands them here. Engine calls run in thread workers and come back through
`call_from_thread`, so only this module's UI-thread methods touch the widgets.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
import weakref
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.css.query import NoMatches

from engine.editing import buffers as editing
from engine.editing.merge import merge_with_markers
from engine.storage.self_writes import content_hash
from widgets.file_editor import FileEditor

if TYPE_CHECKING:
    from textual.timer import Timer

    from engine.config import Config
    from engine.home import Home
    from tui.app import HwsApp
    from tui.watcher import FileChange

CHECK_DELAY_S = 0.15  # pause in typing before the buffer is checked again

SaveDone = Callable[["editing.SaveResult | None"], object]
"""Told how a save ended: its result, or None when the save itself failed."""


def external_editor_command(configured: str) -> list[str]:
    """`editor.external_command`, else $VISUAL, else $EDITOR, else vi (split as a shell would)."""
    for raw in (configured, os.environ.get("VISUAL", ""), os.environ.get("EDITOR", "")):
        if raw and raw.strip():
            return shlex.split(raw)
    return ["vi"]


class EditorController:
    """Runs the engine calls of the app's file editors and feeds the answers back to them."""

    def __init__(self, app: HwsApp) -> None:
        self.app = app
        self.editors: weakref.WeakSet[FileEditor] = weakref.WeakSet()
        self._timers: dict[int, Timer] = {}
        self._saving: set[int] = set()  # editors whose save is running (their own write is no news)

    @property
    def home(self) -> Home:
        return self.app.home

    @property
    def config(self) -> Config:
        return self.app.config

    # -- opening ------------------------------------------------------------------------------------

    def open(self, editor: FileEditor, target: editing.EditTarget) -> None:
        """Load `target` into `editor` (in a thread; a file that cannot be opened is a notice)."""
        self.editors.add(editor)

        def load() -> None:
            try:
                loaded = editing.load(self.home, self.config, target)
            except editing.EditError as exc:
                self.app.call_from_thread(self.app.notify, str(exc), severity="warning", timeout=8)
                return
            self.app.call_from_thread(self._opened, editor, loaded)

        self.app.run_worker(load, thread=True, group=f"edit-load-{id(editor)}", description="open a file")

    def _opened(self, editor: FileEditor, loaded: editing.Loaded) -> None:
        if not editor.is_attached:
            return
        target = loaded.target
        editor.open(target, target.label, target.language, loaded.text, loaded.digest)
        self.schedule_check(editor, delay=0)
        opened = getattr(editor.screen, "file_opened", None)
        if opened is not None:
            opened(editor)

    def open_state(
        self, editor: FileEditor, target: Any, text: str, digest: str, loaded_text: str, note: str = ""
    ) -> None:
        """Give `editor` a buffer carried over from another editor (its undo history starts again)."""
        self.editors.add(editor)
        editor.open(target, target.label, target.language, loaded_text, digest)
        editor.replace_text(text)
        if note:
            editor.note(note)
        self.schedule_check(editor, delay=0)

    # -- live checks --------------------------------------------------------------------------------

    def schedule_check(self, editor: FileEditor, delay: float = CHECK_DELAY_S) -> None:
        key = id(editor)
        timer = self._timers.pop(key, None)
        if timer is not None:
            timer.stop()
        if delay <= 0:
            self._check_now(editor)
        else:
            self._timers[key] = editor.set_timer(delay, lambda: self._check_now(editor))

    def _check_now(self, editor: FileEditor) -> None:
        self._timers.pop(id(editor), None)
        target = editor.target
        if target is None:
            return
        text = editor.text

        def run() -> None:
            result = editing.check(self.config, target, text, editing.disk_text(target))
            self.app.call_from_thread(self._checked, editor, target, text, result)

        self.app.run_worker(
            run, thread=True, exclusive=True, group=f"edit-check-{id(editor)}", description="check a buffer"
        )

    def _checked(self, editor: FileEditor, target: Any, text: str, result: Any) -> None:
        if editor.target is target and editor.is_attached:
            try:
                editor.show_check(result)
            except NoMatches:  # the app closed while the check ran: its parts are already gone
                pass

    # -- saving -------------------------------------------------------------------------------------

    def save(
        self,
        editor: FileEditor,
        expect: str | None = None,
        forced: bool = False,
        on_done: SaveDone | None = None,
    ) -> None:
        """Save the buffer if the file is still as loaded; a conflict opens the three-way choice.

        `on_done` hears how it ended (None: the save itself failed) once the editor shows it.
        """
        target = editor.target
        if target is None:
            if on_done is not None:
                on_done(None)
            return
        text = editor.text
        base = expect if expect is not None else editor.base_digest

        def run() -> None:
            try:
                result = editing.save(self.home, self.config, target, text, base)
            except Exception:
                self.app.call_from_thread(self._save_failed, editor, on_done)
                raise
            self.app.call_from_thread(self._saved, editor, target, text, result, forced, on_done)

        self._saving.add(id(editor))
        self.app.run_worker(run, thread=True, group=f"edit-save-{id(editor)}", description="save a file")

    def _save_failed(self, editor: FileEditor, on_done: SaveDone | None) -> None:
        self._saving.discard(id(editor))
        if on_done is not None:
            on_done(None)

    def _saved(
        self,
        editor: FileEditor,
        target: Any,
        text: str,
        result: editing.SaveResult,
        forced: bool,
        on_done: SaveDone | None = None,
    ) -> None:
        self._saving.discard(id(editor))
        try:
            self._show_saved(editor, target, text, result)
        finally:
            if on_done is not None:
                on_done(result)

    def _show_saved(self, editor: FileEditor, target: Any, text: str, result: editing.SaveResult) -> None:
        if editor.target is not target or not editor.is_attached:
            return
        if result.status == "conflict":
            self._conflict(editor, text, result)
            return
        if not result.ok:
            editor.refused(result.message)  # the buffer stays as it is
            self.app.notify(result.message, severity="error", timeout=8)
            return
        editor.saved(result.text, result.digest, result.message)
        self.schedule_check(editor, delay=0)
        if result.status == "saved":
            self.app.live_files.file_saved(target)

    def _conflict(self, editor: FileEditor, mine: str, result: editing.SaveResult) -> None:
        from tui.screens.conflict import KEEP_MINE, MERGE, TAKE_DISK, ConflictScreen

        editor.disk_differs = True
        deleted = result.digest == editing.ABSENT or not editor.target.path.exists()
        editor.note(
            "Not saved: the file was deleted on disk. Choose: write yours back, or accept the deletion."
            if deleted
            else "Not saved: the file changed on disk. Choose: keep yours, take the disk's, or merge.",
            "warning",
        )

        def chosen(choice: str | None) -> None:
            if choice == KEEP_MINE:
                self.save(editor, expect=result.digest, forced=True)
            elif choice == TAKE_DISK:
                editor.replace_text(result.disk)  # one edit: ctrl+z brings yours back
                editor.rebase(result.digest, result.disk)
                took = "Accepted the deletion (the buffer is empty)" if deleted else "Took the disk's version"
                editor.note(f"{took}; ctrl+z brings yours back.", "warning")
            elif choice == MERGE:
                editor.replace_text(merge_with_markers(mine, result.disk))
                editor.rebase(result.digest, result.disk)
                editor.note(
                    "Both versions are in the buffer between markers; keep what you want, then ctrl+s."
                )
            else:
                editor.note("Not saved; the file on disk differs. ctrl+s shows both again.", "warning")
            self.schedule_check(editor, delay=0)

        context = int(self.config.editor.diff_context_lines)
        self.app.push_screen(
            ConflictScreen(editor.label, mine, result.disk, context, deleted=deleted), chosen
        )

    # -- the person's own editor --------------------------------------------------------------------

    def external(self, editor: FileEditor) -> None:
        """Suspend the app, run $VISUAL/$EDITOR on a temp copy (right suffix), take its text back."""
        target = editor.target
        if target is None:
            return
        command = external_editor_command(str(self.config.editor.external_command or ""))
        with tempfile.TemporaryDirectory(prefix="hws-edit-") as folder:
            path = Path(folder) / Path(target.label).name  # SOUL.md, USER.md, SKILL.md: the editor sees it
            path.write_text(editor.text, encoding="utf-8")
            try:
                with self.app.suspend():
                    completed = subprocess.run([*command, str(path)], check=False)
            except Exception as exc:  # headless, the browser, or no such program
                name = type(exc).__name__
                reason = (
                    "the workstation is not in a real terminal"
                    if name == "SuspendNotSupported"
                    else f"{command[0]} could not run ({exc})"
                )
                editor.note(f"ctrl+g: {reason}; the buffer is unchanged.", "warning")
                return
            self.app.refresh()
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                editor.note(
                    f"Could not read back what {command[0]} wrote ({exc}); the buffer is unchanged.", "error"
                )
                return
        if completed.returncode != 0:
            editor.note(
                f"{command[0]} exited with {completed.returncode}; the buffer is unchanged.", "warning"
            )
            return
        if text == editor.text:
            editor.note(f"{command[0]} changed nothing.")
            return
        editor.replace_text(text)
        editor.note(f"Edited in {Path(command[0]).name}; ctrl+s saves it.")
        self.schedule_check(editor, delay=0)

    # -- the watcher's news -------------------------------------------------------------------------

    def files_changed(self, changes: Iterable[FileChange], own: bool = False) -> None:
        """A file open in an editor changed on disk: reload an untouched buffer, flag a modified one.

        `own`: this process wrote it (the agent's tools, or an editor's save, which that editor
        already knows about).
        """
        # is_attached, not is_mounted: Textual leaves is_mounted True on a removed widget, and an
        # editor taken away (ctrl+t back from beside the transcript) has no TextArea left to reload.
        by_path = {os.path.abspath(c.path): c for c in changes}
        for editor in list(self.editors):
            target = editor.target
            if target is None or not editor.is_attached or (own and id(editor) in self._saving):
                continue
            change = by_path.get(os.path.abspath(target.path))
            if change is None:
                continue
            if change.kind == "deleted":
                editor.disk_differs = True
                editor.note(
                    "Deleted on disk; your buffer is kept, and ctrl+s offers to write it back.", "warning"
                )
                continue
            if change.after is None:
                editor.disk_differs = True
                editor.note("Changed on disk (not as text the editor can show).", "warning")
                continue
            editor.disk_changed(change.after, content_hash(change.after))
            self.schedule_check(editor, delay=0)
