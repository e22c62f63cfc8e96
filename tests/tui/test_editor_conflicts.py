"""An edit conflict in the editor, detected on save and resolved each of the three ways, with nothing lost."""

from __future__ import annotations

from typing import Any

from engine.editing.merge import DISK_MARK, MINE_MARK
from engine.memory.format import DELIMITER
from engine.prompt.soul import SoulFile
from engine.storage.journal import Journal
from tests.support.live_files_support import replace_atomically, wait_for, watching
from tests.support.tui_support import MODEL_CONFIG, make_app
from tui.screens.conflict import ConflictScreen
from widgets.diff_view import DiffView

LOADED = "Name: Dana" + DELIMITER + "Works on the docs site"
MINE = LOADED + DELIMITER + "Prefers pnpm"
THEIRS = LOADED + DELIMITER + "Deploys on Fridays"


def note_of(editor: Any) -> str:
    return str(editor.query_one(".file-note").content)


async def open_user_md_and_conflict(pilot: Any) -> Any:
    """USER.md open on the right, edited in the buffer, changed on disk meanwhile; ctrl+s → the dialog."""
    app = pilot.app
    await watching(pilot)
    await pilot.press("ctrl+e")
    screen = app.screen
    await pilot.pause()
    screen.open_named(screen.right, "USER.md")
    editor = screen.right
    assert await wait_for(pilot, lambda: editor.label == "USER.md")
    editor.replace_text(MINE)
    replace_atomically(app.home.memories / "USER.md", THEIRS)  # the agent, or another editor
    assert await wait_for(pilot, lambda: editor.disk_differs)  # the watcher flagged the modified buffer
    assert editor.text == MINE
    editor.area.focus()
    await pilot.press("ctrl+s")
    assert await wait_for(pilot, lambda: isinstance(app.screen, ConflictScreen))
    dialog = app.screen
    lines = dialog.query_one(DiffView).plain_lines
    assert "-Prefers pnpm" in lines and "+Deploys on Fridays" in lines
    assert (app.home.memories / "USER.md").read_text(encoding="utf-8") == THEIRS  # nothing written yet
    return editor


async def test_conflict_keep_mine_saves_mine_and_the_disk_version_stays_in_the_journal() -> None:
    app = make_app(MODEL_CONFIG)
    (app.home.memories / "USER.md").write_text(LOADED, encoding="utf-8")
    async with app.run_test(size=(140, 40)) as pilot:
        editor = await open_user_md_and_conflict(pilot)
        await pilot.press("m")
        assert await wait_for(pilot, lambda: not editor.modified and "saved" in note_of(editor))
    assert (app.home.memories / "USER.md").read_text(encoding="utf-8") == MINE
    journal = Journal(app.home)
    entries = journal.entries("memory", "user")
    assert [e.who for e in entries][-2:] == ["external", "user"]
    assert journal.text(entries[-2].after_hash) == THEIRS  # the disk's version is kept, and can be undone to


async def test_conflict_take_disk_loads_theirs_and_ctrl_z_brings_mine_back() -> None:
    app = make_app(MODEL_CONFIG)
    (app.home.memories / "USER.md").write_text(LOADED, encoding="utf-8")
    async with app.run_test(size=(140, 40)) as pilot:
        editor = await open_user_md_and_conflict(pilot)
        await pilot.press("d")
        assert await wait_for(pilot, lambda: editor.text == THEIRS)
        assert not editor.modified and not editor.disk_differs
        editor.area.focus()
        await pilot.press("ctrl+z")
        assert await wait_for(pilot, lambda: editor.text == MINE)  # yours was not lost
        await pilot.press("ctrl+s")  # and saving it now is not a conflict: the buffer knows the disk's
        assert await wait_for(pilot, lambda: "saved" in note_of(editor))
    assert (app.home.memories / "USER.md").read_text(encoding="utf-8") == MINE


async def test_conflict_merge_by_hand_keeps_both_and_refuses_markers_until_resolved() -> None:
    app = make_app(MODEL_CONFIG)
    (app.home.memories / "USER.md").write_text(LOADED, encoding="utf-8")
    async with app.run_test(size=(140, 40)) as pilot:
        editor = await open_user_md_and_conflict(pilot)
        await pilot.press("h")
        assert await wait_for(pilot, lambda: MINE_MARK in editor.text)
        merged = editor.text
        assert "Prefers pnpm" in merged and "Deploys on Fridays" in merged and DISK_MARK in merged
        editor.area.focus()
        await pilot.press("ctrl+s")
        assert await wait_for(pilot, lambda: "Not saved" in note_of(editor))
        assert "merge marker" in note_of(editor)
        assert (app.home.memories / "USER.md").read_text(encoding="utf-8") == THEIRS
        resolved = THEIRS + DELIMITER + "Prefers pnpm"
        editor.replace_text(resolved)
        await pilot.press("ctrl+s")
        assert await wait_for(pilot, lambda: "saved" in note_of(editor))
    assert (app.home.memories / "USER.md").read_text(encoding="utf-8") == resolved


async def test_conflict_on_soul_decided_later_writes_nothing() -> None:
    app = make_app(MODEL_CONFIG)
    async with app.run_test(size=(140, 40)) as pilot:
        await watching(pilot)
        await pilot.press("ctrl+e")
        screen = app.screen
        editor = screen.left
        assert await wait_for(pilot, lambda: editor.label == "SOUL.md")
        original = editor.text
        editor.replace_text(original + "\nMine.\n")
        app.home.soul.write_text(original + "\nTheirs.\n", encoding="utf-8")
        editor.area.focus()
        await pilot.press("ctrl+s")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConflictScreen))
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: app.screen is screen)
        assert editor.text.endswith("Mine.\n") and "Not saved" in note_of(editor)
    assert app.home.soul.read_text(encoding="utf-8").endswith("Theirs.\n")
    history = SoulFile(app.home).history()  # the watcher journaled the hand edit, with its before
    assert [e.who for e in history] == ["external"]
    assert Journal(app.home).text(history[0].after_hash).endswith("Theirs.\n")


async def test_an_untouched_buffer_follows_the_disk() -> None:
    app = make_app(MODEL_CONFIG)
    async with app.run_test(size=(140, 40)) as pilot:
        await watching(pilot)
        await pilot.press("ctrl+e")
        editor = app.screen.right  # MEMORY.md, empty, not modified
        assert await wait_for(pilot, lambda: editor.label == "MEMORY.md")
        replace_atomically(app.home.memories / "MEMORY.md", "Uses pnpm")
        assert await wait_for(pilot, lambda: editor.text == "Uses pnpm")
        assert not editor.modified and "Reloaded" in note_of(editor)
