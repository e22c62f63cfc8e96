"""The workstation's shell: it opens on any home, the panes can be focused, zoomed, hidden, folded."""

from __future__ import annotations

import pytest

from engine import events
from tests.support.tui_support import MODEL_CONFIG, SESSION, ScriptedAgent, make_app, pause_until, settle
from tui import messages
from widgets.message_input import PromptInput
from widgets.pane import Pane
from widgets.transcript import Transcript
from widgets.transcript_blocks import NoticeBlock


async def test_opens_without_a_model_and_the_input_says_how_to_configure_one() -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        main = app.main_screen
        assert isinstance(app.focused, PromptInput)
        assert "No model configured" in main.prompt.input.placeholder
        assert "config.yaml (see above)" in main.prompt.input.placeholder  # the notice has the path
        notices = [b.text for b in main.transcript.query(NoticeBlock)]
        assert any("No model is configured" in text and "base_url" in text for text in notices)
        assert any("~/.hermes/config.yaml" in text for text in notices)
        assert main.status.state.model == ""
        await pilot.press("h", "i", "enter")
        await pilot.pause()
        texts = [b.text for b in main.transcript.query(NoticeBlock)]
        assert any(t.startswith("Not sent: no model is configured") for t in texts)
        assert main.status.state.working is False


async def test_function_keys_focus_each_pane_and_escape_returns_to_the_input() -> None:
    app = make_app(MODEL_CONFIG)
    async with app.run_test(size=(160, 48)) as pilot:
        main = app.main_screen
        for key, name in (("f2", "memory"), ("f3", "budget"), ("f4", "skills"), ("f5", "compression")):
            await pilot.press(key)
            await pilot.pause()
            assert main.pane(name).has_focus_within, name
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.focused, Transcript)
        await pilot.press("escape")
        assert isinstance(app.focused, PromptInput)


async def test_f10_zooms_the_focused_pane_and_again_restores() -> None:
    app = make_app(MODEL_CONFIG)
    async with app.run_test(size=(160, 48)) as pilot:
        main = app.main_screen
        await pilot.press("f3")
        await pilot.pause()
        await pilot.press("f10")
        await pilot.pause()
        assert main.maximized is main.budget
        await pilot.press("f10")
        await pilot.pause()
        assert main.maximized is None


async def test_f9_hides_a_pane_down_to_its_header_and_brings_it_back() -> None:
    app = make_app(MODEL_CONFIG)
    async with app.run_test(size=(160, 48)) as pilot:
        main = app.main_screen
        await pilot.press("f2")
        await pilot.pause()
        height = main.memory.size.height
        await pilot.press("f9")
        await pilot.pause()
        assert main.memory.collapsed and main.memory.size.height == 1
        assert main.memory.has_focus  # the header keeps the focus, so f9 works again
        assert main.budget.size.height > 1
        await pilot.press("f9")
        await pilot.pause()
        assert not main.memory.collapsed and main.memory.size.height == height
        assert main.memory.has_focus_within and not main.memory.has_focus  # back in the pane's body


async def test_wide_terminal_shows_the_side_column_and_ctrl_b_hides_it() -> None:
    app = make_app(MODEL_CONFIG)
    async with app.run_test(size=(160, 48)) as pilot:
        main = app.main_screen
        await pilot.pause()
        side = main.query_one("#side")
        assert side.display and side.outer_size.width == 64  # 40 % of 160
        assert not main.query_one("#pane-tabs").display
        await pilot.press("ctrl+b")
        await pilot.pause()
        assert main.query_one("#transcript-pane").size.width == 160
        await pilot.press("f4")  # asking for a side pane brings the column back
        await pilot.pause()
        assert side.outer_size.width == 64 and main.skills.has_focus_within


async def test_at_80x24_the_side_panes_fold_into_tabs_and_f_keys_swap_them_in() -> None:
    app = make_app(MODEL_CONFIG)
    async with app.run_test(size=(80, 24)) as pilot:
        main = app.main_screen
        await pilot.pause()
        tabs = main.query_one("#pane-tabs")
        assert tabs.display and main.folded
        assert main.query_one("#transcript-pane").size.width == 80
        assert not main.query_one("#side").display
        await pilot.press("f3")
        await pilot.pause()
        assert main.budget.size.width == 80 and main.budget.has_focus_within
        assert not main.query_one("#transcript-pane").display
        assert not main.memory.display  # only the chosen pane takes the place
        await pilot.press("f1")
        await pilot.pause()
        assert main.query_one("#transcript-pane").size.width == 80
        assert isinstance(app.focused, Transcript)


async def test_growing_the_terminal_unfolds_the_panes() -> None:
    app = make_app(MODEL_CONFIG)
    async with app.run_test(size=(80, 24)) as pilot:
        main = app.main_screen
        await pilot.press("f2")
        await pilot.resize_terminal(160, 48)
        await pilot.pause()
        assert not main.folded
        assert main.query_one("#side").outer_size.width == 64
        assert main.query_one("#transcript-pane").display


async def test_every_pane_has_a_header_with_its_key() -> None:
    app = make_app(MODEL_CONFIG)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        keys = [pane.pane_key for pane in app.main_screen.panes()]
        assert keys == ["F1", "F2", "F3", "F4", "F5"]
        for pane in app.main_screen.panes():
            assert isinstance(pane, Pane)
            header = pane.query_one("PaneHeader")
            assert pane.pane_key in str(header.render())


async def test_ctrl_q_quits() -> None:
    app = make_app()
    async with app.run_test() as pilot:
        await pilot.press("ctrl+q")
        await pilot.pause()
    assert app.return_code == 0


async def test_folded_tabs_repeat_each_panes_number_and_a_click_shows_the_pane() -> None:
    app = make_app(MODEL_CONFIG)
    async with app.run_test(size=(80, 24)) as pilot:
        main = app.main_screen
        main.post_message(messages.to_message(events.Usage(SESSION, 39_800, 412, 31_000, 0.012)))
        await pilot.pause()
        tabs = main.query_one("#pane-tabs")
        line = str(tabs.render())
        assert "F3 Budget 31%" in line
        await pilot.click("#pane-tabs", offset=(line.index("F4") + 1, 0))
        await pilot.pause()
        assert main.shown == "skills" and main.skills.has_focus_within


async def test_enter_on_the_skills_pane_opens_the_first_skill_without_an_arrow_key_first() -> None:
    """F4 then enter: the list had no highlight when it took the focus, so enter did nothing."""
    from tests.support.live_files_support import make_skill
    from tui.screens.text_view import TextScreen

    app = make_app(MODEL_CONFIG)
    make_skill(app.home.root)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot, app)
        assert await pause_until(pilot, lambda: app.main_screen.skills.entries.option_count == 1)
        await pilot.press("f4", "enter")
        await app.workers.wait_for_complete()
        assert await pause_until(pilot, lambda: isinstance(app.screen, TextScreen))
        assert "deploy-static" in app.screen.title_text


async def test_ctrl_z_in_the_journal_undoes_the_newest_write_without_an_arrow_key_first() -> None:
    """F2, tab to the journal, ctrl+z: it said "Highlight a journal entry first" though one was in view."""
    from engine.memory.store import Memory

    app = make_app(MODEL_CONFIG)
    Memory(app.home).tool_call({"action": "add", "target": "user", "content": "Likes tea"})
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot, app)
        memory = app.main_screen.memory
        assert await pause_until(pilot, lambda: len(memory.view.journal) == 1)
        await pilot.press("f2", "tab")
        assert app.focused is memory.journal
        await pilot.press("ctrl+z")
        await app.workers.wait_for_complete()
        assert await pause_until(pilot, lambda: len(memory.view.journal) == 2)
        assert (app.home.memories / "USER.md").read_text(encoding="utf-8") == ""


async def test_ctrl_e_on_a_skill_being_read_edits_that_skill_beside_soul() -> None:
    """The skill view says the editor edits files; ctrl+e opened SOUL.md and MEMORY.md instead of the
    skill in view. Again later (the editor kept, its left pane edited) it goes to the free pane."""
    from tests.support.live_files_support import make_skill, wait_for
    from tui.screens.editor import EditorScreen
    from tui.screens.text_view import TextScreen

    app = make_app(MODEL_CONFIG)
    make_skill(app.home.root)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot, app)
        assert await pause_until(pilot, lambda: app.main_screen.skills.entries.option_count == 1)
        await pilot.press("f4", "enter")
        assert await wait_for(pilot, lambda: isinstance(app.screen, TextScreen))
        assert "ctrl+e edits it beside SOUL.md" in str(app.screen.query_one("#text-note").render())
        await pilot.press("ctrl+e")
        assert await wait_for(pilot, lambda: isinstance(app.screen, EditorScreen))
        editor = app.screen
        assert await wait_for(pilot, lambda: editor.right.label.endswith("deploy-static/SKILL.md"))
        assert editor.left.label == "SOUL.md"
        assert not any(isinstance(s, TextScreen) for s in app.screen_stack)

        editor.left.replace_text("# changed, not saved\n")
        editor.right.replace_text("---\nname: deploy-static\n---\nedited, not saved\n")
        await pilot.press("escape")  # back to the workstation, buffers kept
        await pilot.press("f4", "enter")
        assert await wait_for(pilot, lambda: isinstance(app.screen, TextScreen))
        await pilot.press("ctrl+e")
        assert await wait_for(pilot, lambda: isinstance(app.screen, EditorScreen))
        assert editor.right.text.endswith("edited, not saved\n"), "an unsaved buffer is never replaced"
        assert editor.left.text == "# changed, not saved\n"


async def test_the_editor_comes_back_with_its_buffers_after_esc() -> None:
    """ctrl+e, esc, ctrl+e: the popped editor screen had been removed with its panes, so the second
    ctrl+e pushed an empty screen and hws crashed (NoMatches '#editor-left')."""
    from tests.support.live_files_support import wait_for
    from tui.screens.editor import EditorScreen

    app = make_app(MODEL_CONFIG)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot, app)
        await pilot.press("ctrl+e")
        assert await wait_for(pilot, lambda: isinstance(app.screen, EditorScreen))
        editor = app.screen
        assert await wait_for(pilot, lambda: editor.left.label == "SOUL.md")
        editor.left.replace_text("# unsaved words\n")
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: app.screen is app.main_screen)
        await pilot.press("ctrl+e")
        assert await wait_for(pilot, lambda: isinstance(app.screen, EditorScreen))
        assert app.screen is editor and editor.left.text == "# unsaved words\n"
        await pilot.press("escape")  # again: back (ctrl+e in the editor is line-end)
        assert await wait_for(pilot, lambda: app.screen is app.main_screen)
        await pilot.press("ctrl+e")
        assert await wait_for(pilot, lambda: app.screen is editor)


async def test_f9_hides_the_budget_pane_down_to_its_header() -> None:
    """The budget's own height rule (by id) outweighed the hidden panes' one line: hiding emptied it and
    left it as tall as before."""
    app = make_app(MODEL_CONFIG)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot, app)
        budget = app.main_screen.budget
        shown = budget.size.height
        await pilot.press("f3", "f9")
        await pilot.pause()
        assert budget.collapsed and budget.size.height == 1
        await pilot.press("f9")
        await pilot.pause()
        assert budget.size.height == shown


@pytest.mark.parametrize("size", [(160, 48), (120, 40)])
async def test_the_budget_table_is_in_view_whole_beside_the_other_panes(size: tuple[int, int]) -> None:
    """At 160x48 the totals were scrolled off the budget pane (1.2fr) while the memory pane had rows
    to spare; at 120x40 every row wrapped onto two lines in the 46-column side panes."""
    from textual.widgets import Static

    app = make_app(MODEL_CONFIG)
    async with app.run_test(size=size) as pilot:
        await settle(pilot, app)
        await pilot.pause()
        budget = app.main_screen.budget
        body = budget.query_one("#budget-body")
        table = budget.query_one("#budget-table", Static)
        lines = str(table.render()).split("\n")
        assert any(line.startswith("total") for line in lines) and lines[-1].startswith("session")
        assert table.size.height == len(lines), "one screen row per table line: nothing wraps"
        assert body.max_scroll_y == 0 and body.size.height >= len(lines), (body.size, len(lines))
        assert app.main_screen.memory.size.height >= 6


async def test_the_memory_panes_notes_wrap_instead_of_being_cut() -> None:
    """ "No session yet: the model will see these files as they are a…" even at 160x48."""
    from tests.support.tui_support import screen_cells

    app = make_app(MODEL_CONFIG)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot, app)
        await pilot.pause()
        side = ["".join(c for c, _ in line)[96:].strip(" ▏") for line in screen_cells(app)]  # the side column
        text = " ".join(" ".join(side).split())
        assert "No session yet: the model will see these files as they are at your first message." in text


async def test_f10_zooms_the_budget_pane_to_the_whole_screen_and_back() -> None:
    """The budget's own fitted height stayed while zoomed: it sat at the bottom under a hatched screen."""
    app = make_app(MODEL_CONFIG)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot, app)
        budget = app.main_screen.budget
        beside = budget.size.height
        await pilot.press("f3", "f10")
        await pilot.pause()
        assert budget.is_maximized and budget.size.height == 48
        await pilot.press("f10")
        await pilot.pause()
        assert not budget.is_maximized and budget.size.height == beside


async def test_the_editor_hints_are_whole_at_80_columns() -> None:
    """The header line was cut at "ctrl+t beside the", so "esc back" was not on the screen."""
    from tests.support.live_files_support import wait_for
    from tests.support.tui_support import screen_cells
    from tui.screens.editor import HINTS, EditorScreen

    app = make_app(MODEL_CONFIG)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("ctrl+e")
        assert await wait_for(pilot, lambda: isinstance(app.screen, EditorScreen))
        await pilot.pause()
        text = " ".join(" ".join("".join(c for c, _ in line).split()) for line in screen_cells(app))
        assert " ".join(HINTS.split()) in text, text[:300]


async def test_the_skills_legend_is_one_unbroken_line_beside_the_other_panes() -> None:
    """At 160x48 the legend wrapped in the middle: "… ◐ files · enter" then "opens" alone."""
    from tests.support.live_files_support import make_skill
    from tests.support.tui_support import screen_cells

    app = make_app(MODEL_CONFIG)
    make_skill(app.home.root)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot, app)
        assert await pause_until(pilot, lambda: app.main_screen.skills.entries.option_count == 1)
        lines = ["".join(c for c, _ in line)[96:].strip(" ▏") for line in screen_cells(app)]
        assert "○ indexed ● loaded ◐ files · enter opens" in lines, lines


async def test_pane_entries_start_in_the_column_of_the_panes_other_lines() -> None:
    """The journal and the skills list started one column left of every other line of their pane."""
    from engine.memory.store import Memory
    from tests.support.live_files_support import make_skill
    from tests.support.tui_support import screen_cells

    app = make_app(MODEL_CONFIG)
    make_skill(app.home.root)
    Memory(app.home).tool_call({"action": "add", "target": "user", "content": "Likes tea"})
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot, app)
        main = app.main_screen
        assert await pause_until(pilot, lambda: main.skills.entries.option_count == 1)
        assert await pause_until(pilot, lambda: main.memory.journal.option_count == 1)
        lines = ["".join(c for c, _ in line) for line in screen_cells(app)]

        def column(start: str) -> int:
            line = next(line for line in lines if start in line)
            return line.index(start)

        assert column("ops/deploy-static") - 2 == column("○ indexed ● loaded")  # after its tier mark
        assert column("agent ") - 6 == column("Journal · enter: diff")  # after the time


async def test_no_budget_line_is_cut_at_120_columns() -> None:
    """The side panes are 46 columns wide at 120: 'frozen', '2 skills', the total's percentage, the
    cached share and the session's totals ended in '…'."""
    from textual.widgets import Static

    from engine.memory.store import Memory
    from tests.support.live_files_support import make_skill

    agent = ScriptedAgent(
        [[events.Usage(SESSION, 39_800, 412, 31_000, 0.012), events.TurnFinished(SESSION, "")]]
    )
    app = make_app(MODEL_CONFIG, agent=agent)
    make_skill(app.home.root)
    Memory(app.home).tool_call({"action": "add", "target": "user", "content": "Likes tea"})
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        await pilot.press("h", "i", "enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        table = app.main_screen.budget.query_one("#budget-table", Static)
        width = table.content_region.width
        lines = str(table.render()).split("\n")
        assert lines[-1].startswith("session 1 call"), lines
        too_long = [line for line in lines if len(line) > width]
        assert not too_long, (width, too_long)
