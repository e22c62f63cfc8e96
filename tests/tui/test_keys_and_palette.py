"""Every binding has an id and can be rebound from config.yaml; the keys screen and palette list them."""

from __future__ import annotations

from pathlib import Path

from textual.binding import Binding
from textual.command import CommandPalette

from tests.support.tui_support import MODEL_CONFIG, make_app, pause_until, seed_sessions, settle
from tui.commands import SessionEntry, SkillEntry
from tui.keys import bindings_of, validate_keymap


async def test_every_binding_of_the_workstation_has_an_id() -> None:
    app = make_app()
    async with app.run_test():
        classes = app.binding_classes()
        assert len(classes) >= 6
        for where, cls in classes.items():
            for binding in bindings_of(cls):
                assert isinstance(binding, Binding)
                assert binding.id, f"{where}: {binding.key} -> {binding.action} has no id"


async def test_keys_in_config_rebind_by_id() -> None:
    config = MODEL_CONFIG + "keys:\n  focus_memory: f8\n  zoom_pane: x\n"
    app = make_app(config)
    async with app.run_test(size=(160, 48)) as pilot:
        main = app.main_screen
        await pilot.press("f2")
        await pilot.pause()
        assert not main.memory.has_focus_within
        await pilot.press("f8")
        await pilot.pause()
        assert main.memory.has_focus_within
        await pilot.press("f10")
        assert main.maximized is None
        await pilot.press("x")
        await pilot.pause()
        assert main.maximized is main.memory
        assert app.startup_warnings == []


async def test_unknown_binding_ids_warn_with_the_file() -> None:
    app = make_app(MODEL_CONFIG + "keys:\n  fly_away: f9\n  focus_budget: 3\n")
    async with app.run_test(notifications=True):
        assert any("keys.fly_away" in w and "config.yaml" in w for w in app.startup_warnings)
        assert any("keys.focus_budget" in w for w in app.startup_warnings)


def test_validate_keymap_accepts_lists_and_trims() -> None:
    keymap, warnings = validate_keymap({"quit": ["ctrl+x", " f10 "], "send": "  "}, {"quit", "send"})
    assert keymap == {"quit": "ctrl+x,f10"}
    assert len(warnings) == 1 and "keys.send" in warnings[0]


async def test_f12_shows_the_keys_screen_with_ids_and_current_keys() -> None:
    app = make_app(MODEL_CONFIG + "keys:\n  focus_memory: f8\n")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("f12")
        await pilot.pause()
        screen = app.screen
        assert type(screen).__name__ == "KeysScreen"
        rows = {row.binding_id: row for row in screen.rows}
        assert rows["focus_memory"].keys == "f8"
        assert rows["send"].keys == "enter"
        assert rows["newline"].keys == "shift+enter, ctrl+j"
        assert {"quit", "interrupt", "zoom_pane", "hide_pane", "copy_block", "sessions"} <= set(rows)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is app.main_screen


async def test_question_mark_types_in_the_input_even_from_a_pane_and_f12_shows_the_keys() -> None:
    app = make_app(MODEL_CONFIG)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.press("question_mark")
        assert app.main_screen.prompt.text == "?"
        await pilot.press("f2", "question_mark")
        await pilot.pause()
        assert app.screen is app.main_screen and app.main_screen.prompt.text == "??"
        await pilot.press("f2", "f12")
        await pilot.pause()
        assert type(app.screen).__name__ == "KeysScreen"


async def test_the_palette_lists_the_workstation_actions() -> None:
    app = make_app(MODEL_CONFIG)
    async with app.run_test(size=(120, 40)) as pilot:
        from tui.palette import workstation_commands

        titles = {command.title for command in workstation_commands(app)}
        for expected in (
            "Focus the memory pane",
            "Focus the compression pane",
            "Sessions",
            "Show the keys",
            "Copy the last reply",
            "/compress",
            "/theme",
            "/new",
            "Toggle the side panes",
        ):
            assert expected in titles
        await pilot.press("ctrl+p")
        await pilot.pause()
        assert CommandPalette.is_open(app)
        await pilot.press(*"compression")
        await app.workers.wait_for_complete()
        await pilot.pause(0.3)
        palette = app.screen
        listed = [str(option.prompt) for option in palette.query_one("CommandList").options]
        assert any("Focus the compression pane" in text for text in listed)
        await pilot.press("enter")
        await pilot.pause()
        await pilot.pause()
        assert app.main_screen.compression.has_focus_within


async def test_the_palette_offers_skills_and_sessions_from_their_providers() -> None:
    skills = [SkillEntry("astro-navbar", "build an Astro navbar")]
    sessions = [SessionEntry("20260101_120000_abc123", "Navbar work", "2026-01-01")]
    app = make_app(MODEL_CONFIG, skill_source=lambda: skills, session_source=lambda: sessions)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        await pilot.press("ctrl+p", *"astro")
        await app.workers.wait_for_complete()
        await pilot.pause(0.3)
        listed = [str(option.prompt) for option in app.screen.query_one("CommandList").options]
        assert any("skill: astro-navbar" in text for text in listed)
        await pilot.press("enter")
        await pilot.pause()
        assert app.main_screen.prompt.text == "/astro-navbar "
        assert [e.title for e in app.session_entries] == ["Navbar work"]


async def test_ctrl_r_opens_and_closes_the_sessions_screen() -> None:
    app = make_app(MODEL_CONFIG)
    await seed_sessions(
        app.home,
        [
            ("Navbar work", [("user", "add a navbar to the docs"), ("assistant", "Done.")]),
            ("Deploy script", [("user", "write the rsync deploy script"), ("assistant", "Written.")]),
        ],
    )
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        await pilot.press("ctrl+r")
        await app.workers.wait_for_complete()
        await pilot.pause()
        screen = app.screen
        assert type(screen).__name__ == "SessionsScreen"
        assert screen.query_one("#session-list").option_count == 2
        await pilot.press(*"rsync", "enter")  # enter searches at once (typing waits for a pause)
        assert await pause_until(pilot, lambda: screen.mode == "search" and not screen.reading)
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert [row.title for row in screen.rows] == ["Deploy script"]
        assert screen.query_one("#session-list").option_count == 1
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert app.screen is app.main_screen


async def test_the_keys_screen_at_80x24_shows_whole_descriptions_and_where_each_key_works() -> None:
    """At 80 columns the descriptions were cut ("Interrupt the running tur"), and the `where` column
    was past the right edge at any width."""
    from tests.support.tui_support import screen_cells

    app = make_app(MODEL_CONFIG)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f12")
        await pilot.pause()
        await pilot.pause()
        lines = ["".join(c for c, _ in line) for line in screen_cells(app)]
        text = " ".join(" ".join(line.replace("│", " ").split()) for line in lines)
        header = next(line for line in lines if " id " in line and "what it does" in line)
        assert "where" in header, header
        described = "Interrupt the running turn (twice: clear the input)"
        words = iter(text.split())  # the description's words in order (the `where` cell sits between)
        assert all(word in words for word in described.split(" "))
        assert "esc closes" in text


def test_docs_keys_lists_every_binding_as_the_app_has_it(tmp_path: Path) -> None:
    from tui.keys_reference import main, reference_markdown

    docs = Path(__file__).resolve().parents[2] / "docs" / "keys.md"
    assert main(["--check", str(docs)]) == 0, "run python -m tui.keys_reference --write docs/keys.md"
    table = reference_markdown()
    assert "`focus_memory`" in table and "`copy_block`" in table and "`/compress [focus]`" in table
    stale = tmp_path / "keys.md"
    stale.write_text(docs.read_text(encoding="utf-8").replace("`zoom_pane`", "`zoom`"), encoding="utf-8")
    assert main(["--check", str(stale)]) == 1
    assert main(["--write", str(stale)]) == 0 and stale.read_text(encoding="utf-8") == docs.read_text("utf-8")
