"""Files edited beside the running app: a real watcher, real files, the right pane updated, no echoes."""

from __future__ import annotations

from typing import Any

from engine.skills.history import SkillHistory
from engine.storage.journal import Journal
from tests.support.live_files_support import (
    SKILL,
    SessionAgent,
    make_skill,
    replace_atomically,
    wait_for,
    watching,
    write_in_place,
)
from tests.support.tui_support import MODEL_CONFIG, make_app
from tui.watcher import HomeChanged


def memory_lines(memory: Any) -> list[str]:
    """The memory pane's file section as plain lines (heads, notes, diff entries)."""
    return [str(line.render()) for line in memory.query("#memory-files > Static")]


async def test_user_md_replaced_atomically_updates_the_memory_pane_and_is_journaled() -> None:
    app = make_app(MODEL_CONFIG)
    user = app.home.memories / "USER.md"
    user.write_text("Name: Dana", encoding="utf-8")
    seen: list[Any] = []
    async with app.run_test(message_hook=seen.append) as pilot:
        await watching(pilot)
        memory = app.main_screen.memory
        replace_atomically(user, "Name: Dana\n§\nHates light themes")
        assert await wait_for(pilot, lambda: any("Hates light themes" in f.disk for f in memory.view.files))
        assert await wait_for(
            pilot, lambda: bool(memory.view.journal) and memory.view.journal[0].who == "external"
        )
        assert memory.view.journal[0].target == "user"
        shown = str(memory.journal.get_option_at_index(0).prompt)
        assert " external ✎ user " in shown, shown  # every name stands apart from its mark
        assert next(m for m in seen if isinstance(m, HomeChanged)).stores == {"user"}
        assert await wait_for(pilot, lambda: any(line.startswith("⟲") for line in memory_lines(memory)))
        lines = memory_lines(memory)
        user_at = next(i for i, line in enumerate(lines) if line.startswith("USER.md"))
        assert lines[user_at + 1].startswith("⟲ changed on disk outside hws at "), lines
        assert not any(line.startswith("⟲") for line in lines[:user_at]), "MEMORY.md was not touched"
    entry = Journal(app.home).last("memory", "user")
    assert entry is not None and entry.who == "external"
    assert Journal(app.home).text(entry.after_hash) == "Name: Dana\n§\nHates light themes"
    assert Journal(app.home).text(entry.before_hash) == "Name: Dana"


async def test_soul_written_in_place_shows_next_session_and_ctrl_n_starts_one() -> None:
    agent = SessionAgent()
    app = make_app(MODEL_CONFIG, agent=agent)
    async with app.run_test() as pilot:
        await watching(pilot)
        bar = app.main_screen.next_session
        assert not bar.has_class("-shown")
        write_in_place(
            app.home.soul, app.home.soul.read_text(encoding="utf-8") + "\nAlways answer in French.\n"
        )
        assert await wait_for(pilot, lambda: bar.has_class("-shown"))
        text = str(bar.content_for(bar.drift))
        assert "SOUL.md changed on disk, applies to the next session" in text and "ctrl+n" in text
        await pilot.press("ctrl+n")
        assert await wait_for(pilot, lambda: agent.new_sessions == 1 and not bar.has_class("-shown"))
    entries = Journal(app.home).entries("soul", "soul")
    assert [e.who for e in entries] == ["external"]


async def test_skill_created_edited_and_deleted_by_hand_reach_the_skills_pane_and_next_index() -> None:
    app = make_app(MODEL_CONFIG)
    existing = make_skill(app.home.root)
    async with app.run_test() as pilot:
        await watching(pilot)
        skills = app.main_screen.skills
        bar = app.main_screen.next_session
        created = make_skill(app.home.root, "astro-navbar", "web")
        assert await wait_for(pilot, lambda: skills.row("astro-navbar") is not None)
        assert skills.row("astro-navbar").category == "web"
        assert await wait_for(pilot, lambda: bar.drift.skills)
        assert "astro-navbar" in bar.drift.skill_names
        assert "the next session's index: 2 skills" in bar.drift.skills_detail
        write_in_place(existing, SKILL + "3. Check the site answers.\n")
        created.unlink()
        assert await wait_for(pilot, lambda: skills.row("astro-navbar") is None)
        assert skills.row(existing.parent.name) is not None
    history = SkillHistory(app.home)
    assert [(e.action, e.who) for e in history.entries("astro-navbar")] == [
        ("create", "external"),
        ("delete", "external"),
    ]
    assert [(e.action, e.who) for e in history.entries("deploy-static")] == [("edit", "external")]


async def test_the_apps_own_saves_do_not_echo() -> None:
    app = make_app(MODEL_CONFIG)
    seen: list[Any] = []
    async with app.run_test(size=(140, 40), message_hook=seen.append) as pilot:
        await watching(pilot)
        await pilot.press("ctrl+e")
        screen = app.screen
        assert await wait_for(pilot, lambda: screen.right.has_file)  # MEMORY.md
        editor = screen.right
        editor.area.focus()
        editor.area.insert("Project uses pnpm")
        await pilot.press("ctrl+s")
        assert await wait_for(
            pilot, lambda: not editor.modified and "saved" in str(editor.query_one(".file-note").content)
        )
        await pilot.pause(0.3)  # several debounce windows: an echo would have arrived by now
        assert not [m for m in seen if isinstance(m, HomeChanged)]
        assert (app.home.memories / "MEMORY.md").read_text(encoding="utf-8") == "Project uses pnpm"
    entry = Journal(app.home).last("memory", "memory")
    assert entry is not None and entry.who == "user"


async def test_an_invalid_memory_save_is_refused_and_the_buffer_kept() -> None:
    app = make_app(MODEL_CONFIG)
    user = app.home.memories / "USER.md"
    user.write_text("Name: Dana", encoding="utf-8")
    async with app.run_test(size=(140, 40)) as pilot:
        await watching(pilot)
        await pilot.press("ctrl+e")
        screen = app.screen
        screen.open_named(screen.right, "USER.md")
        assert await wait_for(pilot, lambda: screen.right.label == "USER.md")
        editor = screen.right
        long_entry = "Dana's projects: " + "astro, " * 200
        buffer = "Name: Dana\n§\n" + long_entry
        editor.replace_text(buffer)
        assert await wait_for(
            pilot,
            lambda: editor.check is not None and editor.check.usage is not None and editor.check.usage.over,
        )
        usage = str(editor.query_one(".file-usage").content)
        assert "over" in usage and "/1,375 chars" in usage
        problems = str(editor.query_one(".file-problems").content)
        assert "line 3: USER.md would be" in problems and "entry 2" in problems
        editor.area.focus()
        await pilot.press("ctrl+s")
        assert await wait_for(pilot, lambda: "Not saved" in str(editor.query_one(".file-note").content))
        assert editor.text == buffer and editor.modified
        assert user.read_text(encoding="utf-8") == "Name: Dana"


async def test_an_invalid_skill_save_is_refused_with_the_yaml_line_and_the_buffer_kept() -> None:
    app = make_app(MODEL_CONFIG)
    path = make_skill(app.home.root)
    async with app.run_test(size=(140, 40)) as pilot:
        await watching(pilot)
        app.open_editor("SOUL.md", "skills/ops/deploy-static/SKILL.md")
        await pilot.pause()
        screen = app.screen
        assert await wait_for(pilot, lambda: screen.right.label.endswith("SKILL.md"))
        editor = screen.right
        broken = SKILL.replace("description: Deploy a", "description: Deploy: a")
        editor.replace_text(broken)
        editor.area.focus()
        await pilot.press("ctrl+s")
        assert await wait_for(pilot, lambda: "Not saved" in str(editor.query_one(".file-note").content))
        assert "line 3: YAML error" in str(editor.query_one(".file-note").content)
        assert editor.text == broken
        assert path.read_text(encoding="utf-8") == SKILL


async def test_when_file_events_cannot_start_the_app_polls_and_the_status_bar_says_so(
    monkeypatch: Any,
) -> None:
    """The inotify watch limit cannot be reached from a test: the events observer fails as it would."""
    import errno

    from tui import watcher as watcher_module

    real_observer = watcher_module._default_observer

    def no_inotify(kind: str, poll_interval: float) -> Any:
        if kind == "events":
            raise OSError(errno.ENOSPC, "inotify watch limit reached")
        return real_observer(kind, poll_interval)

    monkeypatch.setattr(watcher_module, "_default_observer", no_inotify)
    app = make_app(MODEL_CONFIG + "watch:\n  poll_interval: 0.2\n")
    user = app.home.memories / "USER.md"
    user.write_text("Name: Dana", encoding="utf-8")
    async with app.run_test(size=(140, 40)) as pilot:
        await watching(pilot)
        status = app.main_screen.status
        assert await wait_for(pilot, lambda: status.state.files == "files: polling every 0.2s")
        assert app.live_files.watch_mode == "polling"
        memory = app.main_screen.memory
        replace_atomically(user, "Name: Dana\n§\nPolled, not evented")
        assert await wait_for(pilot, lambda: any("Polled, not evented" in f.disk for f in memory.view.files))
        assert await wait_for(
            pilot, lambda: bool(memory.view.journal) and memory.view.journal[0].who == "external"
        )
        assert memory.view.journal[0].target == "user"
