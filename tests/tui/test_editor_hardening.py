"""The editor under pressure: the agent writing the open file, deletion, bad bytes, huge files, symlinks.

Each test runs the real app with its real watcher on a temporary home and checks that the person's
buffer and the file on disk both survive, and that what the editor says is true.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from engine.config import load_config
from engine.memory.format import DELIMITER
from engine.memory.store import MemoryStore
from engine.skills.library import SkillLibrary
from engine.skills.manage import SkillManager
from engine.storage.journal import Journal
from tests.support.live_files_support import SKILL, make_skill, wait_for, watching
from tests.support.tui_support import MODEL_CONFIG, make_app
from tui.screens.conflict import ConflictScreen
from tui.watcher import HomeChanged
from widgets.diff_view import DiffView

LOADED = "Name: Dana" + DELIMITER + "Works on the docs site"
MINE = LOADED + DELIMITER + "Prefers pnpm"
AGENTS = "Deploys on Fridays"


def note_of(editor: Any) -> str:
    return str(editor.query_one(".file-note").content)


async def open_in_right(pilot: Any, name: str) -> Any:
    """The editor screen with `name` opened in its right pane (once the watcher is looking)."""
    await watching(pilot)
    await pilot.press("ctrl+e")
    screen = pilot.app.screen
    await pilot.pause()
    screen.open_named(screen.right, name)
    editor = screen.right
    assert await wait_for(pilot, lambda: editor.label == name or editor.label.endswith(name))
    return editor


def capture_notices(app: Any, into: list[str]) -> None:
    """Keep the text of every notification the app shows (they are toasts, gone from the screen soon)."""
    shown = app.notify

    def notify(message: str, **kwargs: Any) -> None:
        into.append(str(message))
        shown(message, **kwargs)

    app.notify = notify


async def agent_adds(app: Any, target: str, entry: str) -> None:
    """The app's agent writes memory, in this process (so the watcher knows the bytes are its own)."""
    store = MemoryStore.open(app.home, target, app.config, who="agent")
    result = await asyncio.to_thread(store.add, entry)
    assert result["success"], result


async def test_the_agent_writing_the_open_file_reloads_an_untouched_buffer_without_an_echo() -> None:
    app = make_app(MODEL_CONFIG)
    (app.home.memories / "USER.md").write_text(LOADED, encoding="utf-8")
    seen: list[Any] = []
    async with app.run_test(size=(140, 40), message_hook=seen.append) as pilot:
        editor = await open_in_right(pilot, "USER.md")
        assert await wait_for(pilot, lambda: editor.text == LOADED)
        await agent_adds(app, "user", AGENTS)
        assert await wait_for(pilot, lambda: editor.text == LOADED + DELIMITER + AGENTS)
        assert not editor.modified and not editor.disk_differs and "Reloaded" in note_of(editor)
        assert not [m for m in seen if isinstance(m, HomeChanged)]  # the agent's write is no hand edit


async def test_the_agent_writing_while_the_person_edits_is_flagged_and_nothing_is_lost() -> None:
    app = make_app(MODEL_CONFIG)
    user = app.home.memories / "USER.md"
    user.write_text(LOADED, encoding="utf-8")
    async with app.run_test(size=(140, 40)) as pilot:
        editor = await open_in_right(pilot, "USER.md")
        assert await wait_for(pilot, lambda: editor.text == LOADED)
        editor.replace_text(MINE)
        await agent_adds(app, "user", AGENTS)
        assert await wait_for(pilot, lambda: editor.disk_differs)  # flagged before any save
        assert editor.text == MINE and "changed on disk" in note_of(editor).lower()
        editor.area.focus()
        await pilot.press("ctrl+s")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConflictScreen))
        lines = app.screen.query_one(DiffView).plain_lines
        assert "-Prefers pnpm" in lines and f"+{AGENTS}" in lines
        assert user.read_text(encoding="utf-8") == LOADED + DELIMITER + AGENTS  # nothing written yet
        await pilot.press("h")  # merge by hand: both versions in the buffer
        assert await wait_for(pilot, lambda: "Prefers pnpm" in editor.text and AGENTS in editor.text)
    entries = Journal(app.home).entries("memory", "user")
    assert [e.who for e in entries][-1] == "agent"


async def test_a_memory_file_deleted_while_open_is_written_back_from_the_buffer_on_request() -> None:
    app = make_app(MODEL_CONFIG)
    user = app.home.memories / "USER.md"
    user.write_text(LOADED, encoding="utf-8")
    async with app.run_test(size=(140, 40)) as pilot:
        editor = await open_in_right(pilot, "USER.md")
        assert await wait_for(pilot, lambda: editor.text == LOADED)
        editor.replace_text(MINE)
        user.unlink()
        assert await wait_for(pilot, lambda: "Deleted on disk" in note_of(editor))
        assert editor.text == MINE and editor.disk_differs
        editor.area.focus()
        await pilot.press("ctrl+s")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConflictScreen))
        assert not user.exists()  # the deletion is not undone silently
        title = str(app.screen.query_one("#conflict-title").render())
        assert title == "⚠ USER.md was deleted on disk since you opened it", title
        assert str(app.screen.query_one("#conflict-mine").label) == "m  write yours back"
        assert str(app.screen.query_one("#conflict-disk").label) == "d  accept the deletion"
        assert "deleted on disk" in note_of(editor)
        await pilot.press("m")  # keep mine: write the buffer back
        assert await wait_for(pilot, lambda: user.exists() and not editor.modified)
    assert user.read_text(encoding="utf-8") == MINE


async def test_a_skill_deleted_while_open_keeps_the_buffer_and_can_be_written_back() -> None:
    app = make_app(MODEL_CONFIG)
    path = make_skill(app.home.root)
    edited = SKILL + "3. Check the site answers.\n"
    async with app.run_test(size=(140, 40)) as pilot:
        editor = await open_in_right(pilot, "skills/ops/deploy-static/SKILL.md")
        assert await wait_for(pilot, lambda: editor.text == SKILL)
        editor.replace_text(edited)
        manager = SkillManager(SkillLibrary(app.home, app.config), who="agent")
        result = await asyncio.to_thread(manager.run, {"action": "delete", "name": "deploy-static"})
        assert result.get("success"), result
        assert await wait_for(pilot, lambda: "Deleted on disk" in note_of(editor))
        assert editor.text == edited
        editor.area.focus()
        await pilot.press("ctrl+s")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConflictScreen))
        assert not path.exists()
        await pilot.press("m")
        assert await wait_for(pilot, lambda: path.exists() and not editor.modified)
    assert path.read_text(encoding="utf-8") == edited


async def test_a_file_that_is_not_utf8_is_not_opened_and_not_touched() -> None:
    app = make_app(MODEL_CONFIG)
    user = app.home.memories / "USER.md"
    latin1 = "Name: Dana\n§\nLives in São Paulo".encode("latin-1", errors="replace")
    user.write_bytes(latin1)
    notices: list[str] = []
    async with app.run_test(size=(140, 40)) as pilot:
        capture_notices(app, notices)
        await watching(pilot)
        await pilot.press("ctrl+e")
        screen = app.screen
        await pilot.pause()
        screen.open_named(screen.right, "USER.md")
        assert await wait_for(pilot, lambda: any("not UTF-8" in n for n in notices))
        assert screen.right.label != "USER.md"  # the pane kept what it had
    assert any("USER.md is not UTF-8 text (bad byte at offset" in n for n in notices)
    assert user.read_bytes() == latin1


async def test_a_file_turned_to_bad_bytes_while_open_is_never_overwritten_unasked() -> None:
    app = make_app(MODEL_CONFIG)
    user = app.home.memories / "USER.md"
    user.write_text(LOADED, encoding="utf-8")
    binary = b"\xff\xfe\x00 not text"
    async with app.run_test(size=(140, 40)) as pilot:
        editor = await open_in_right(pilot, "USER.md")
        assert await wait_for(pilot, lambda: editor.text == LOADED)
        editor.replace_text(MINE)
        user.write_bytes(binary)
        assert await wait_for(pilot, lambda: "not as text" in note_of(editor))
        editor.area.focus()
        await pilot.press("ctrl+s")
        assert await wait_for(
            pilot, lambda: "Not saved" in note_of(editor) or isinstance(app.screen, ConflictScreen)
        )
        assert user.read_bytes() == binary
        assert editor.text == MINE


async def test_a_file_over_the_size_limit_is_not_opened_and_says_how_to_edit_it() -> None:
    app = make_app(MODEL_CONFIG + "editor:\n  max_file_bytes: 2048\n")
    path = make_skill(app.home.root)
    big = path.parent / "references" / "api.md"
    big.parent.mkdir()
    big.write_text("# API\n" + "x" * 5000, encoding="utf-8")
    notices: list[str] = []
    async with app.run_test(size=(140, 40)) as pilot:
        capture_notices(app, notices)
        await watching(pilot)
        await pilot.press("ctrl+e")
        screen = app.screen
        await pilot.pause()
        screen.open_named(screen.right, "skills/ops/deploy-static/references/api.md")
        assert await wait_for(pilot, lambda: any("editor.max_file_bytes" in n for n in notices))
    assert any("5,006 bytes; the editor opens files up to 2,048" in n and "ctrl+g" in n for n in notices)
    assert big.read_text(encoding="utf-8") == "# API\n" + "x" * 5000


async def test_a_symlink_out_of_the_home_is_refused_when_opened(tmp_path: Path) -> None:
    app = make_app(MODEL_CONFIG)
    outside = tmp_path / "elsewhere" / "USER.md"
    outside.parent.mkdir()
    outside.write_text("Not the home's", encoding="utf-8")
    user = app.home.memories / "USER.md"
    user.symlink_to(outside)
    notices: list[str] = []
    async with app.run_test(size=(140, 40)) as pilot:
        capture_notices(app, notices)
        await watching(pilot)
        await pilot.press("ctrl+e")
        screen = app.screen
        await pilot.pause()
        screen.open_named(screen.right, "USER.md")
        assert await wait_for(pilot, lambda: any("symlink out of the home" in n for n in notices))
    assert outside.read_text(encoding="utf-8") == "Not the home's"


async def test_a_file_swapped_for_a_symlink_out_of_the_home_while_open_is_not_written_through(
    tmp_path: Path,
) -> None:
    app = make_app(MODEL_CONFIG)
    user = app.home.memories / "USER.md"
    user.write_text(LOADED, encoding="utf-8")
    outside = tmp_path / "elsewhere.md"
    outside.write_text(LOADED, encoding="utf-8")  # same bytes: a hash check alone would let it through
    async with app.run_test(size=(140, 40)) as pilot:
        editor = await open_in_right(pilot, "USER.md")
        assert await wait_for(pilot, lambda: editor.text == LOADED)
        editor.replace_text(MINE)
        user.unlink()
        user.symlink_to(outside)
        editor.area.focus()
        await pilot.press("ctrl+s")
        assert await wait_for(pilot, lambda: "Not saved" in note_of(editor))
        assert "outside the home" in note_of(editor)
        assert editor.text == MINE
    assert outside.read_text(encoding="utf-8") == LOADED
    assert load_config(app.home.root) is not None


async def test_a_file_moved_beside_the_transcript_and_back_then_edited_by_hand_reloads_where_it_is() -> None:
    """The editor that stood beside the transcript is gone; a hand edit of its file crashed hws
    (NoMatches 'TextArea' on the removed editor) instead of reaching the one that holds the file now."""
    app = make_app(MODEL_CONFIG)
    memory = app.home.memories / "MEMORY.md"
    async with app.run_test(size=(140, 40)) as pilot:
        editor = await open_in_right(pilot, "MEMORY.md")
        editor.area.focus()
        await pilot.press("ctrl+t")
        assert await wait_for(pilot, lambda: app.main_screen.beside is not None)
        app.main_screen.beside.area.focus()
        await pilot.press("ctrl+t")  # back into the editor screen's pane it came from
        assert await wait_for(
            pilot, lambda: app.main_screen.beside is None and app.screen.right.label == "MEMORY.md"
        )
        back = app.screen.right
        memory.write_text("Uses pnpm", encoding="utf-8")
        assert await wait_for(pilot, lambda: back.text == "Uses pnpm")
        assert "Reloaded" in note_of(back)
        await pilot.press("escape")
        memory.write_text("Uses pnpm" + DELIMITER + "Deploys on Fridays", encoding="utf-8")
        await pilot.press("ctrl+e")
        assert await wait_for(pilot, lambda: back.text.endswith("Deploys on Fridays"))
