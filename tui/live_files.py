"""The app's side of live files: the home watcher, routing its news to the panes, editors and identity.

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

from tui.watcher import FileChange, HomeChanged, HomeWatcher, OwnWritesLanded, WatchStatus
from widgets.file_editor import FileEditor
from widgets.next_session import SessionDrift

if TYPE_CHECKING:
    from engine.editing.buffers import EditTarget
    from tui.file_editing import EditorController
    from tui.screens.editor import EditorScreen

STORE_LABEL = {"soul": "SOUL.md", "memory": "MEMORY.md", "user": "USER.md"}


class DriftComputed(Message):
    """The next session's identity and skills index, compared with the running session's."""

    def __init__(self, drift: SessionDrift) -> None:
        super().__init__()
        self.drift = drift


def entry_summary(change: FileChange, width: int = 48) -> str:
    """For a memory file: the entries a change added and removed, e.g. `: + "Hates light themes"`."""
    if change.store not in ("memory", "user") or (change.after is None and change.before is None):
        return ""
    from engine.memory.format import parse_entries

    before = parse_entries(change.before or "")
    after = parse_entries(change.after or "")
    added = [e for e in after if e not in before]
    removed = [e for e in before if e not in after]
    parts = [f'+ "{_clip(e, width)}"' for e in added[:1]] + [f'- "{_clip(e, width)}"' for e in removed[:1]]
    more = len(added) + len(removed) - len(parts)
    if more > 0:
        parts.append(f"and {more} more")
    return (": " + ", ".join(parts)) if parts else ""


def _clip(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def change_label(change: FileChange, home_root: Any) -> str:
    if change.store in STORE_LABEL:
        return STORE_LABEL[change.store]
    with contextlib.suppress(ValueError):
        return change.path.relative_to(home_root).as_posix()
    return change.path.name


class LiveFilesMixin:
    """Mixed into `HwsApp`: owns the watcher and the editor controller, routes file news."""

    app: Any
    home: Any
    config: Any
    agent: Any
    editor_screen: EditorScreen | None

    def start_live_files(self) -> None:
        self._editor_controller: EditorController | None = None
        self.watcher: HomeWatcher | None = None
        self.watch_mode = ""
        self.watch_status_text = ""  # what the status bar says of the watcher ("" for file events)
        self.session_drift = SessionDrift()
        self.changed_skills: list[str] = []
        self._baseline: dict[str, str] = {}
        self.call_after_refresh(self._start_watcher)  # type: ignore[attr-defined]

    @property
    def editor_controller(self) -> EditorController:
        """Made when the first editor opens (its engine checks cost ~30 ms to import at start)."""
        if self._editor_controller is None:
            from tui.file_editing import EditorController

            self._editor_controller = EditorController(self)  # type: ignore[arg-type]
        return self._editor_controller

    def _start_watcher(self) -> None:
        self.run_worker(  # type: ignore[attr-defined]
            self._watch_in_thread,
            thread=True,
            group="watch",
            exit_on_error=False,
            description="watch the home",
        )

    def _watch_in_thread(self) -> None:
        watch = self.config.watch
        watcher = HomeWatcher(
            self.home,
            self.post_message,  # type: ignore[attr-defined]
            debounce=float(watch.debounce_ms) / 1000,
            poll_interval=float(watch.poll_interval),
            mode=str(watch.mode),
            remember_max_bytes=int(watch.remember_max_bytes),
            on_changes=self._journal_external,
        )
        if getattr(self, "_live_files_stopped", False):
            return  # the app closed before its watcher could start
        self.watcher = watcher
        watcher.start()
        if getattr(self, "_live_files_stopped", False):  # closed while starting: do not leave it running
            watcher.stop()
            return
        self._baseline = self._disk_layers()  # what a session started now would see

    def stop_live_files(self) -> None:
        self._live_files_stopped = True
        watcher = getattr(self, "watcher", None)
        if watcher is not None:
            watcher.stop()

    def on_unmount(self) -> None:
        self.stop_live_files()

    def _journal_external(self, changes: list[FileChange]) -> None:
        """On the watcher thread, before the news is posted: hand edits are journaled as `external`."""
        from engine.editing.external_edits import journal_external

        for change in changes:
            journal_external(self.home, self.config, change.store, change.path, change.before, change.after)

    # -- the watcher's news -------------------------------------------------------------------------

    def on_watch_status(self, message: WatchStatus) -> None:
        self.watch_mode = message.mode
        if message.mode == "events":
            text = ""
        elif message.mode == "polling":
            text = f"files: polling every {float(self.config.watch.poll_interval):g}s"
        else:
            text = "files: not watched"
        self.watch_status_text = text
        main = self.app.main_screen
        if main is not None and main.is_mounted and not _closing(self):
            for bar in main.query("#status"):  # none while the screen is still composing, or closing
                bar.update_state(files=text)  # type: ignore[attr-defined]
        if message.reason and message.mode != "events":
            self.notify(  # type: ignore[attr-defined]
                f"Files are {'polled' if message.mode == 'polling' else 'not watched'}: {message.reason}.",
                severity="warning",
                timeout=10,
            )

    def on_home_changed(self, message: HomeChanged) -> None:
        self.route_changes(list(message.changes), external=True)

    def on_own_writes_landed(self, message: OwnWritesLanded) -> None:
        """The agent (or one editor) wrote a file: other editors of it follow or flag it, nothing else."""
        if not _closing(self) and self._editor_controller is not None:  # none: no editor was ever open
            self._editor_controller.files_changed(message.changes, own=True)

    def route_changes(self, changes: list[FileChange], external: bool) -> None:
        """Send each change to what shows it: panes, open editors, the next-session bar, the identity view."""
        main = self.app.main_screen
        stores = {c.store for c in changes}
        if main is not None and main.is_mounted and not _closing(self):
            with contextlib.suppress(NoMatches):  # the screen is being taken down around us
                if stores & {"memory", "user"}:
                    self._refresh_pane(
                        main.memory, [c for c in changes if c.store in ("memory", "user")], external
                    )
                if "skill" in stores:
                    skill_changes = [c for c in changes if c.store == "skill"]
                    self._refresh_pane(main.skills, skill_changes, external)
                    if external:
                        main.skills.changed_outside(_skill_dirs(self.home, skill_changes))
                if "pending_memory" in stores:  # a write staged or decided by another hws (or Hermes)
                    main.memory.reload_from_disk()
                if "pending_skills" in stores:
                    main.skills.reload_from_disk()
        if external and self._editor_controller is not None:
            self._editor_controller.files_changed(changes)
        for change in changes:
            if change.store == "skill":
                name = _skill_name(self.home, change.path)
                if name and name not in self.changed_skills:
                    self.changed_skills.append(name)
        if stores & {"soul", "skill"}:
            self.refresh_session_drift()
        identity = self._identity_screen()
        if identity is not None and stores & {"soul", "user"}:
            identity.action_refresh_view()
        shown_changes = [c for c in changes if not c.store.startswith("pending_")]  # the panes show those
        if external and shown_changes:
            labels = sorted({change_label(c, self.home.root) for c in shown_changes})
            shown = ", ".join(labels[:3]) + (f" and {len(labels) - 3} more" if len(labels) > 3 else "")
            self.notify(f"Changed on disk: {shown}.", timeout=4)  # type: ignore[attr-defined]

    def _refresh_pane(self, pane: Any, changes: list[FileChange], external: bool) -> None:
        reload = getattr(pane, "reload_from_disk", None)
        if reload is not None:
            reload()
            return
        add_entry = getattr(pane, "add_entry", None)  # the panes before issue 7's: a line in their list
        if add_entry is None:
            return
        from textual.content import Content

        who = "external" if external else "you"
        for change in changes:
            add_entry(
                Content.assemble(
                    ("⟲ ", "$warning"),
                    (change_label(change, self.home.root), "bold"),
                    f" {change.kind} on disk ",
                    (f"({who})", "$warning" if external else "$primary"),
                    (entry_summary(change), ""),
                    (" — the next session reads it", "dim"),
                )
            )

    def _identity_screen(self) -> Any:
        from tui.screens.identity import IdentityScreen

        for screen in self.screen_stack:  # type: ignore[attr-defined]
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

        identity = identity_layer(self.home, self.config, exact=False)
        layers = {"identity": identity.text if identity else ""}
        try:
            index = SkillLibrary(self.home, self.config).index()
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
        prompt = getattr(self.agent, "prompt", None) if self.agent is not None else None
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
        self.run_worker(  # type: ignore[attr-defined]
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
        self.post_message(DriftComputed(drift))  # type: ignore[attr-defined]

    def on_drift_computed(self, message: DriftComputed) -> None:
        drift = message.drift
        if not drift.skills:
            self.changed_skills.clear()
            drift = SessionDrift(drift.soul, False, drift.skills_detail, ())
        self.session_drift = drift
        main = self.app.main_screen
        if main is not None and main.is_mounted and not _closing(self):
            with contextlib.suppress(NoMatches):  # the screen is being taken down around us
                main.next_session.show(drift)
                budget = main.budget
                mark = getattr(budget, "mark_layer_changed", None)  # issue 7's per-layer gauges, when present
                if mark is not None:
                    mark("identity", "changed on disk, applies to the next session" if drift.soul else "")
                    mark("skills", "changed on disk, applies to the next session" if drift.skills else "")
        identity = self._identity_screen()
        if identity is not None:
            identity.mark_soul_changed(drift.soul)

    def action_new_session_now(self) -> None:
        """ctrl+n: start a new session, which reads SOUL.md, the skills and memory from disk again."""
        self.app.commands.new_conversation()

    def session_restarted(self) -> None:
        """After /new (or a compression): the new prompt was read from disk, so compare again."""
        if getattr(self.agent, "prompt", None) is None:  # no prompt to read: the disk now is the start
            self.run_worker(  # type: ignore[attr-defined]
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

        screen = self.editor_screen
        if screen is None:
            initial = (*names, "", "")[:2] if names else ("SOUL.md", "MEMORY.md")
            screen = self.editor_screen = EditorScreen(initial)  # type: ignore[arg-type]
            # Installed, so leaving it (esc) keeps it: a popped screen that is not installed is removed
            # with its editors, and the next ctrl+e pushed that empty screen and crashed hws.
            self.install_screen(screen, name="hws-editor")  # type: ignore[attr-defined]
            self.push_screen(screen)  # type: ignore[attr-defined]
            return
        if screen not in self.screen_stack:  # type: ignore[attr-defined]
            self.push_screen(screen)  # type: ignore[attr-defined]
        for editor, name in zip((screen.focused_editor(), screen.right), names, strict=False):
            if name:
                screen.open_named(editor, name)

    def action_edit(self) -> None:
        from tui.screens.text_view import TextScreen

        screen = self.screen  # type: ignore[attr-defined]
        if isinstance(screen, TextScreen) and screen.edit_name:  # reading a skill: edit that skill
            self.pop_screen()  # type: ignore[attr-defined]
            self.edit_beside_soul(screen.edit_name)
            return
        self.open_editor()

    def edit_beside_soul(self, name: str) -> None:
        """The editor with `name` (a skill) in its right pane, SOUL.md on the left the first time; a pane
        with unsaved changes is never replaced."""
        screen = self.editor_screen
        if screen is None:
            self.open_editor("SOUL.md", name)
            return
        free = next((e for e in (screen.right, screen.left) if not e.modified), None)
        if free is None:
            self.notify(  # type: ignore[attr-defined]
                f"Both editor panes have unsaved changes: save one (ctrl+s), then ctrl+o opens {name}.",
                severity="warning",
            )
        if screen not in self.screen_stack:  # type: ignore[attr-defined]
            self.push_screen(screen)  # type: ignore[attr-defined]
        if free is not None:
            screen.open_named(free, name)
            free.area.focus()

    def action_identity(self) -> None:
        from tui.screens.identity import IdentityScreen

        if isinstance(self.screen, IdentityScreen):  # type: ignore[attr-defined]
            self.pop_screen()  # type: ignore[attr-defined]
            return
        screen = IdentityScreen(getattr(self, "identity_fetch", None))
        self.push_screen(screen)  # type: ignore[attr-defined]
        self.call_after_refresh(lambda: screen.mark_soul_changed(self.session_drift.soul))  # type: ignore[attr-defined]

    def on_file_editor_save_requested(self, message: FileEditor.SaveRequested) -> None:
        self.editor_controller.save(message.editor)

    def on_file_editor_external_requested(self, message: FileEditor.ExternalRequested) -> None:
        self.editor_controller.external(message.editor)

    def on_file_editor_changed(self, message: FileEditor.Changed) -> None:
        self.editor_controller.schedule_check(message.editor)

    async def on_file_editor_move_requested(self, message: FileEditor.MoveRequested) -> None:
        from tui.screens.editor import EditorScreen

        editor = message.editor
        if isinstance(editor.screen, EditorScreen):
            await editor.screen.move_beside(editor)
            return
        screen = self.editor_screen
        pane = screen.pane_for_return() if screen is not None else None
        if screen is not None and pane is None:
            self.notify(  # type: ignore[attr-defined]
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
        screen = self.editor_screen
        assert screen is not None
        back = pane or screen.pane_for_return() or screen.left
        self.call_after_refresh(lambda: screen.take_back(back, *state))


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
