"""Live files: the home watcher, routing its news to the panes, editors and identity (held by the app).

`HomeChanged` (from `tui.watcher`) arrives here: MEMORY.md / USER.md go to the memory pane, skill files
to the skills pane and to the next session's Tier 1 index, SOUL.md to the identity layer; open editors
learn that their file changed. The running session's prompt is frozen, so nothing silently changes it:
the `NextSessionBar` says what the next session will see differently, with one key to start it now.
Saves made in the app's own editors take the same route (the watcher does not echo them).
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

from textual.css.query import NoMatches
from textual.message import Message

from engine.text.sentences import sentence
from tui.watcher import FileChange, HomeWatcher, OwnWritesLanded, WatchStatus
from widgets.file_editor import FileEditor
from widgets.next_session import SessionDrift

if TYPE_CHECKING:
    from engine.editing.buffers import EditTarget
    from tui.app import HwsApp
    from tui.file_editing import EditorController

STORE_LABEL = {"soul": "SOUL.md", "memory": "MEMORY.md", "user": "USER.md"}


class DriftComputed(Message):
    """The next session's identity and skills index, compared with the running session's."""

    def __init__(self, drift: SessionDrift) -> None:
        super().__init__()
        self.drift = drift


def change_label(change: FileChange, home_root: Any) -> str:
    if change.store in STORE_LABEL:
        return STORE_LABEL[change.store]
    with contextlib.suppress(ValueError):
        return change.path.relative_to(home_root).as_posix()
    return change.path.name


class LiveFiles:
    """Held by the app: owns the watcher, the editor controller and the next-session comparison."""

    def __init__(self, app: HwsApp) -> None:
        self.app = app
        self._editor_controller: EditorController | None = None
        self.watcher: HomeWatcher | None = None
        self.watch_mode = ""
        self.session_drift = SessionDrift()
        self.changed_skills: list[str] = []
        self._baseline: dict[str, str] = {}
        self._stopped = False

    def start(self) -> None:
        self.app.call_after_refresh(self._start_watcher)

    @property
    def editor_controller(self) -> EditorController:
        """Made when the first editor opens (its engine checks cost ~30 ms to import at start)."""
        if self._editor_controller is None:
            from tui.file_editing import EditorController

            self._editor_controller = EditorController(self.app)
        return self._editor_controller

    def _start_watcher(self) -> None:
        self.app.run_worker(
            self._watch_in_thread,
            thread=True,
            group="watch",
            exit_on_error=False,
            description="watch the home",
        )

    def _watch_in_thread(self) -> None:
        watch = self.app.config.watch
        watcher = HomeWatcher(
            self.app.home,
            self.app.post_message,
            debounce=float(watch.debounce_ms) / 1000,
            poll_interval=float(watch.poll_interval),
            mode=str(watch.mode),
            remember_max_bytes=int(watch.remember_max_bytes),
            on_changes=self._journal_external,
        )
        if self._stopped:
            return  # the app closed before its watcher could start
        self.watcher = watcher
        watcher.start()
        if self._stopped:  # closed while starting: do not leave it running
            watcher.stop()
            return
        self._baseline = self._disk_layers()  # what a session started now would see
        self._journal_edits_made_while_closed()

    def _journal_edits_made_while_closed(self) -> None:
        """Hand edits of the memory files from before the watcher started: journaled as `external`."""
        from engine.editing.external_edits import journal_edits_made_while_closed

        if journal_edits_made_while_closed(self.app.home, self.app.config) and not self._stopped:
            self.app.call_from_thread(self.app.pane_feeds.refresh, "memory")

    def stop(self) -> None:
        self._stopped = True
        if self.watcher is not None:
            self.watcher.stop()

    def _journal_external(self, changes: list[FileChange]) -> None:
        """On the watcher thread, before the news is posted: hand edits are journaled as `external`."""
        from engine.editing.external_edits import journal_external

        for change in changes:
            journal_external(
                self.app.home, self.app.config, change.store, change.path, change.before, change.after
            )

    # -- the watcher's news -------------------------------------------------------------------------

    def watch_status(self, message: WatchStatus) -> None:
        self.watch_mode = message.mode
        if message.mode == "events":
            text = ""
        elif message.mode == "polling":
            text = f"files: polling every {float(self.app.config.watch.poll_interval):g}s"
        else:
            text = "files: not watched"
        main = self.app.main_screen
        if main is not None:
            main.files_note = text  # the status bar's first frame shows it when the watcher spoke first
        if main is not None and main.is_mounted and not _closing(self.app):
            for bar in main.query("#status"):  # none while the screen is still composing, or closing
                bar.update_state(files=text)
        if message.reason and message.mode != "events":
            self.app.notify(
                sentence(
                    f"Files are {'polled' if message.mode == 'polling' else 'not watched'}: {message.reason}"
                ),
                severity="warning",
                timeout=10,
            )

    def own_writes_landed(self, message: OwnWritesLanded) -> None:
        """The agent (or one editor) wrote a file: other editors of it follow or flag it, nothing else."""
        if not _closing(self.app) and self._editor_controller is not None:  # none: no editor was ever open
            self._editor_controller.files_changed(message.changes, own=True)

    def route_changes(self, changes: list[FileChange], external: bool) -> None:
        """Send each change to what shows it: panes, open editors, the next-session bar, the identity view."""
        main = self.app.main_screen
        stores = {c.store for c in changes}
        if main is not None and main.is_mounted and not _closing(self.app):
            with contextlib.suppress(NoMatches):  # the screen is being taken down around us
                if stores & {"memory", "user"}:
                    main.memory.reload_from_disk()
                if "skill" in stores:
                    skill_changes = [c for c in changes if c.store == "skill"]
                    main.skills.reload_from_disk()
                    if external:
                        main.skills.changed_outside(_skill_dirs(self.app.home, skill_changes))
                if "pending_memory" in stores:  # a write staged or decided by another hws (or Hermes)
                    main.memory.reload_from_disk()
                if "pending_skills" in stores:
                    main.skills.reload_from_disk()
        if external and self._editor_controller is not None:
            self._editor_controller.files_changed(changes)
        for change in changes:
            if change.store == "skill":
                name = _skill_name(self.app.home, change.path)
                if name and name not in self.changed_skills:
                    self.changed_skills.append(name)
        if stores & {"soul", "skill"}:
            self.refresh_session_drift()
        identity = self._identity_screen()
        if identity is not None and stores & {"soul", "user"}:
            identity.action_refresh_view()
        shown_changes = [c for c in changes if not c.store.startswith("pending_")]  # the panes show those
        if external and shown_changes:
            labels = sorted({change_label(c, self.app.home.root) for c in shown_changes})
            shown = ", ".join(labels[:3]) + (f" and {len(labels) - 3} more" if len(labels) > 3 else "")
            self.app.notify(f"Changed on disk: {shown}.", timeout=4)

    def _identity_screen(self) -> Any:
        from tui.screens.identity import IdentityScreen

        for screen in self.app.screen_stack:
            if isinstance(screen, IdentityScreen):
                return screen
        return None

    def file_saved(self, target: EditTarget) -> None:
        """A save from one of the app's editors (the watcher stays silent about it: it is ours)."""
        text = target.path.read_text(encoding="utf-8") if target.path.exists() else None
        store = "skill" if target.kind in ("skill", "skill_file") else target.kind
        change = FileChange(target.path, store, "modified", None, text)
        self.route_changes([change], external=False)

    def skill_changed_on_disk(self, name: str) -> None:
        """The agent created or changed a skill: the next session's index differs from this one's."""
        if name and name not in self.changed_skills:
            self.changed_skills.append(name)
        self.refresh_session_drift()

    # -- the next session ---------------------------------------------------------------------------

    def _disk_layers(self) -> dict[str, str]:
        """The identity and skills index a session started now would get (blocking: call in a thread)."""
        from engine.prompt.build import identity_layer
        from engine.skills.library import SkillLibrary

        identity = identity_layer(self.app.home, self.app.config, exact=False)
        layers = {"identity": identity.text if identity else ""}
        try:
            index = SkillLibrary(self.app.home, self.app.config).index()
        except Exception:  # a broken skills folder must not break the bar
            layers["skills"] = ""
            layers["skills_detail"] = ""
            return layers
        layers["skills"] = index.text
        layers["skills_detail"] = (
            f"the next session's index: {len(index.entries)} skills, {index.tokens:,} tokens"
        )
        return layers

    def _running_layers(self) -> dict[str, str]:
        """The running session's frozen identity and index (the agent's prompt, else what start saw)."""
        prompt = getattr(self.app.agent, "prompt", None) if self.app.agent is not None else None
        if prompt is None:
            return self._baseline
        stored = prompt.layer("stored")
        identity = prompt.layer("identity") or stored
        skills = prompt.layer("skills") or stored
        return {
            "identity": identity.text if identity else self._baseline.get("identity", ""),
            "skills": skills.text if skills else self._baseline.get("skills", ""),
        }

    def refresh_session_drift(self) -> None:
        self.app.run_worker(
            self._drift_in_thread,
            thread=True,
            exclusive=True,
            group="session-drift",
            exit_on_error=False,
            description="compare the next session with this one",
        )

    def _drift_in_thread(self) -> None:
        now = self._disk_layers()
        running = self._running_layers()
        if not running:
            return
        soul = now["identity"].strip() not in running.get("identity", "")
        skills = now["skills"].strip() not in running.get("skills", "")
        drift = SessionDrift(soul, skills, now.get("skills_detail", ""), tuple(self.changed_skills))
        self.app.post_message(DriftComputed(drift))

    def drift_computed(self, message: DriftComputed) -> None:
        drift = message.drift
        if not drift.skills:
            self.changed_skills.clear()
            drift = SessionDrift(drift.soul, False, drift.skills_detail, ())
        self.session_drift = drift
        main = self.app.main_screen
        if main is not None and main.is_mounted and not _closing(self.app):
            with contextlib.suppress(NoMatches):  # the screen is being taken down around us
                main.next_session.show(drift)
        identity = self._identity_screen()
        if identity is not None:
            identity.mark_soul_changed(drift.soul)

    def session_restarted(self) -> None:
        """After /new (or a compression): the new prompt was read from disk, so compare again."""
        if getattr(self.app.agent, "prompt", None) is None:  # no prompt to read: the disk now is the start
            self.app.run_worker(
                self._rebase_in_thread, thread=True, group="session-drift", exit_on_error=False
            )
            return
        self.refresh_session_drift()

    def _rebase_in_thread(self) -> None:
        self._baseline = self._disk_layers()
        self._drift_in_thread()

    # -- editors ------------------------------------------------------------------------------------

    def open_editor(self, *names: str) -> None:
        """ctrl+e: the editor screen (with `names` opened in its panes the first time)."""
        from tui.screens.editor import EditorScreen

        screen = self.app.editor_screen
        if screen is None:
            initial = (*names, "", "")[:2] if names else ("SOUL.md", "MEMORY.md")
            screen = self.app.editor_screen = EditorScreen(initial, self.editor_controller, self.app.unsaved)
            # Installed, so leaving it (esc) keeps it: a popped screen that is not installed is removed
            # with its editors, and the next ctrl+e pushed that empty screen and crashed hws.
            self.app.install_screen(screen, name="hws-editor")
            self.app.push_screen(screen)
            return
        if screen not in self.app.screen_stack:
            self.app.push_screen(screen)
        for editor, name in zip((screen.focused_editor(), screen.right), names, strict=False):
            if name:
                screen.open_named(editor, name)

    def edit(self) -> None:
        """ctrl+e: reading a skill, edit that skill; else the editor screen."""
        from tui.screens.text_view import TextScreen

        screen = self.app.screen
        if isinstance(screen, TextScreen) and screen.edit_name:  # reading a skill: edit that skill
            self.app.pop_screen()
            self.edit_beside_soul(screen.edit_name)
            return
        self.open_editor()

    def edit_beside_soul(self, name: str) -> None:
        """The editor with `name` (a skill) in its right pane, SOUL.md on the left the first time; a pane
        with unsaved changes is never replaced."""
        screen = self.app.editor_screen
        if screen is None:
            self.open_editor("SOUL.md", name)
            return
        free = next((e for e in (screen.right, screen.left) if not e.modified), None)
        if free is None:
            self.app.notify(
                f"Both editor panes have unsaved changes: save one (ctrl+s), then ctrl+o opens {name}.",
                severity="warning",
            )
        if screen not in self.app.screen_stack:
            self.app.push_screen(screen)
        if free is not None:
            screen.open_named(free, name)
            free.area.focus()

    def toggle_identity(self) -> None:
        """f6: the identity view (SOUL.md and USER.md beside what was observed), or back from it."""
        from tui.screens.identity import IdentityScreen

        if isinstance(self.app.screen, IdentityScreen):
            self.app.pop_screen()
            return
        screen = IdentityScreen(self.app.identity_fetch)
        self.app.push_screen(screen)
        self.app.call_after_refresh(lambda: screen.mark_soul_changed(self.session_drift.soul))

    async def move_editor(self, message: FileEditor.MoveRequested) -> None:
        """ctrl+t: an editor beside the transcript goes back to the editor screen, and back again."""
        from tui.screens.editor import EditorScreen

        editor = message.editor
        if isinstance(editor.screen, EditorScreen):
            await editor.screen.move_beside(editor)
            return
        screen = self.app.editor_screen
        pane = screen.pane_for_return() if screen is not None else None
        if screen is not None and pane is None:
            self.app.notify(
                f"Both editor panes have unsaved changes: save one (ctrl+s), then ctrl+t brings "
                f"{editor.label} back. It stays beside the transcript.",
                severity="warning",
                timeout=8,
            )
            return
        state = (editor.target, editor.text, editor.base_digest, editor.loaded_text)
        main = self.app.main_screen
        await main.close_beside()
        self.open_editor()
        screen = self.app.editor_screen
        assert screen is not None
        back = pane or screen.pane_for_return() or screen.left
        self.app.call_after_refresh(lambda: screen.take_back(back, *state))


def _skill_name(home: Any, path: Any) -> str:
    from engine.editing.external_edits import skill_dir_for

    folder = skill_dir_for(home, path)
    return folder.name if folder is not None else ""


def _skill_dirs(home: Any, changes: list[FileChange]) -> list[str]:
    """The skill folders (as paths) that changed files belong to."""
    from engine.editing.external_edits import skill_dir_for

    folders = (skill_dir_for(home, change.path) for change in changes)
    return [str(folder) for folder in folders if folder is not None]


def _closing(app: Any) -> bool:
    """True once the app has begun to close: its screens' parts are being removed and queries fail."""
    return bool(getattr(app, "_closing", False) or getattr(app, "_exit", False))
