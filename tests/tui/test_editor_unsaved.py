"""Unsaved editor buffers are never lost unasked, and the editor's keys are an editor's keys.

ctrl+q with a modified buffer (on the editor screen, left with esc, or beside the transcript) asks:
save / discard / cancel. Opening another file over a modified pane asks the same. Inside an editor
ctrl+e is line-end (as in readline and every TextArea), esc leaves, ctrl+home / ctrl+end go to the
file's start and end; a file moved beside the transcript and back returns to its own pane.
"""

from __future__ import annotations

import logging
from typing import Any

from tests.support.live_files_support import wait_for, watching
from tests.support.tui_support import MODEL_CONFIG, make_app
from tui.screens.editor import EditorScreen

SOUL = "# Soul\n\nYou are a careful assistant.\nYou keep answers short.\n"


def make_editor_app() -> Any:
    app = make_app(MODEL_CONFIG)
    app.home.soul.write_text(SOUL, encoding="utf-8")
    return app


async def open_editor(pilot: Any) -> EditorScreen:
    """The editor screen with SOUL.md loaded in its left pane (the watcher already looking)."""
    app = pilot.app
    await watching(pilot)
    await pilot.press("ctrl+e")
    assert await wait_for(pilot, lambda: isinstance(app.screen, EditorScreen))
    screen = app.screen
    assert await wait_for(pilot, lambda: screen.left.label == "SOUL.md" and screen.left.area.has_focus)
    return screen


async def type_into(pilot: Any, text: str) -> None:
    await pilot.press(*("space" if c == " " else c for c in text))


def asking(app: Any) -> bool:
    return type(app.screen).__name__ == "UnsavedScreen"


# -- ctrl+q with unsaved buffers -------------------------------------------------------------------


async def test_ctrl_q_with_a_modified_buffer_asks_and_cancel_keeps_everything() -> None:
    app = make_editor_app()
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_editor(pilot)
        await pilot.press("ctrl+end")
        await type_into(pilot, "Be kind.")
        assert screen.left.modified
        await pilot.press("ctrl+q")
        assert await wait_for(pilot, lambda: asking(app))
        assert "SOUL.md" in str(app.screen.query_one("#unsaved-files").render())
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: app.screen is screen)
        assert app.is_running and screen.left.modified and screen.left.text.endswith("Be kind.")
        assert screen.left.area.has_focus  # back where the person was typing
    assert app.home.soul.read_text(encoding="utf-8") == SOUL


async def test_ctrl_q_then_save_writes_the_buffer_and_quits() -> None:
    app = make_editor_app()
    async with app.run_test(size=(120, 36)) as pilot:
        await open_editor(pilot)
        await pilot.press("ctrl+end")
        await type_into(pilot, "Be kind.")
        await pilot.press("ctrl+q")
        assert await wait_for(pilot, lambda: asking(app))
        await pilot.press("s")
        assert await wait_for(pilot, lambda: not app.is_running)
    assert app.return_code == 0
    assert app.home.soul.read_text(encoding="utf-8") == SOUL + "Be kind."


async def test_ctrl_q_then_discard_quits_and_leaves_the_file_as_it_was() -> None:
    app = make_editor_app()
    async with app.run_test(size=(120, 36)) as pilot:
        await open_editor(pilot)
        await type_into(pilot, "scratch ")
        await pilot.press("ctrl+q")
        assert await wait_for(pilot, lambda: asking(app))
        await pilot.press("d")
        assert await wait_for(pilot, lambda: not app.is_running)
    assert app.return_code == 0
    assert app.home.soul.read_text(encoding="utf-8") == SOUL


async def test_a_buffer_left_with_esc_still_asks_at_ctrl_q() -> None:
    """esc keeps the editor's buffers; ctrl+q from the workstation then quit and lost them unasked."""
    app = make_editor_app()
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_editor(pilot)
        await type_into(pilot, "draft ")
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: app.screen is app.main_screen)
        said = " ".join(str(n.message) for n in app._notifications)
        assert "Unsaved: SOUL.md. ctrl+e comes back to it" in said
        await pilot.press("ctrl+q")
        assert await wait_for(pilot, lambda: asking(app))
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: app.screen is app.main_screen)
        assert app.is_running and screen.left.text.startswith("draft ")


async def test_a_modified_file_beside_the_transcript_asks_at_ctrl_q() -> None:
    app = make_editor_app()
    async with app.run_test(size=(140, 40)) as pilot:
        await open_editor(pilot)
        await pilot.press("ctrl+t")
        main = app.main_screen
        assert await wait_for(pilot, lambda: main.beside is not None and main.beside.label == "SOUL.md")
        main.beside.area.focus()
        await pilot.pause()
        await type_into(pilot, "beside ")
        assert main.beside.modified
        await pilot.press("ctrl+q")
        assert await wait_for(pilot, lambda: asking(app))
        await pilot.press("s")
        assert await wait_for(pilot, lambda: not app.is_running)
    assert app.home.soul.read_text(encoding="utf-8") == "beside " + SOUL


async def test_a_save_that_is_refused_keeps_hws_open_and_says_why() -> None:
    """MEMORY.md over its limit cannot be saved: quitting after "save" would lose it."""
    app = make_editor_app()
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_editor(pilot)
        screen.right.area.focus()
        assert await wait_for(pilot, lambda: screen.right.label == "MEMORY.md")
        screen.right.replace_text("x" * 5000)
        await pilot.press("ctrl+q")
        assert await wait_for(pilot, lambda: asking(app))
        await pilot.press("s")
        assert await wait_for(pilot, lambda: app.screen is screen)
        await pilot.pause()
        assert app.is_running and screen.right.modified and screen.right.text == "x" * 5000
        assert "so hws did not quit" in " ".join(str(n.message) for n in app._notifications)
    memory = app.home.memories / "MEMORY.md"
    assert not memory.exists() or memory.read_text(encoding="utf-8") == ""


async def test_sigterm_saves_nothing_and_logs_which_buffers_were_lost(
    caplog: Any,
) -> None:
    app = make_editor_app()
    async with app.run_test(size=(120, 36)) as pilot:
        await open_editor(pilot)
        await type_into(pilot, "never saved ")
        with caplog.at_level(logging.WARNING, logger="engine"):
            app.lifecycle.quit_on_terminate()
            app.lifecycle._terminate_requested()
            assert await wait_for(pilot, lambda: not app.is_running)
    assert app.home.soul.read_text(encoding="utf-8") == SOUL
    lost = [r.getMessage() for r in caplog.records if "unsaved" in r.getMessage()]
    assert lost and "SOUL.md" in lost[0], caplog.records


async def test_opening_another_file_over_a_modified_pane_asks_first() -> None:
    """ctrl+o replaced a modified buffer and only said so afterwards."""
    from tui.screens.file_picker import FilePickerScreen

    app = make_editor_app()
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_editor(pilot)
        await type_into(pilot, "mine ")
        await pilot.press("ctrl+o")
        assert await wait_for(pilot, lambda: isinstance(app.screen, FilePickerScreen))
        await type_into(pilot, "USER")
        await pilot.pause()
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: asking(app))
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: app.screen is screen)
        assert screen.left.label == "SOUL.md" and screen.left.text.startswith("mine ")


# -- the editor's own keys -------------------------------------------------------------------------


async def test_ctrl_e_in_the_editor_is_line_end_and_esc_leaves() -> None:
    app = make_editor_app()
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_editor(pilot)
        area = screen.left.area
        await pilot.press("down", "down")
        assert area.cursor_location == (2, 0)
        await pilot.press("ctrl+e")
        await pilot.pause()
        assert app.screen is screen, "ctrl+e closed the editor"
        assert area.cursor_location == (2, len("You are a careful assistant."))
        await pilot.press("ctrl+a")
        assert area.cursor_location == (2, 0)
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: app.screen is app.main_screen)


async def test_ctrl_e_in_the_file_beside_the_transcript_is_line_end() -> None:
    app = make_editor_app()
    async with app.run_test(size=(140, 40)) as pilot:
        await open_editor(pilot)
        await pilot.press("ctrl+t")
        main = app.main_screen
        assert await wait_for(pilot, lambda: main.beside is not None and main.beside.label == "SOUL.md")
        area = main.beside.area
        area.focus()
        await pilot.pause()
        area.move_cursor((0, 0))
        await pilot.press("ctrl+e")
        await pilot.pause()
        assert app.screen is main and area.cursor_location == (0, len("# Soul"))


async def test_ctrl_home_and_ctrl_end_go_to_the_start_and_end_of_the_file() -> None:
    app = make_editor_app()
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_editor(pilot)
        area = screen.left.area
        await pilot.press("down", "right", "right")
        await pilot.press("ctrl+end")
        assert area.cursor_location == area.document.end
        await pilot.press("ctrl+home")
        assert area.cursor_location == (0, 0)
        await pilot.press("ctrl+shift+end")
        assert area.selected_text == SOUL


async def test_a_file_moved_beside_the_transcript_and_back_returns_to_its_own_pane() -> None:
    """From the right pane and back: the file landed in the left pane (replacing SOUL.md there, edits
    and all) and the right pane said `(no file)`."""
    app = make_editor_app()
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_editor(pilot)
        await type_into(pilot, "left edits ")
        right = screen.right
        assert await wait_for(pilot, lambda: right.label == "MEMORY.md")
        right.area.focus()
        await pilot.pause()
        await type_into(pilot, "Uses pnpm")
        await pilot.press("ctrl+t")
        main = app.main_screen
        assert await wait_for(pilot, lambda: main.beside is not None and main.beside.label == "MEMORY.md")
        main.beside.area.focus()
        await pilot.pause()
        await pilot.press("ctrl+t")
        assert await wait_for(pilot, lambda: app.screen is screen and main.beside is None)
        assert await wait_for(pilot, lambda: right.label == "MEMORY.md")
        assert right.text == "Uses pnpm" and right.modified
        assert screen.left.label == "SOUL.md" and screen.left.text.startswith("left edits ")
        assert right.area.has_focus


async def test_ctrl_t_back_when_its_pane_took_another_file_goes_to_a_free_pane_or_stays() -> None:
    """Both panes hold modified files: the file beside the transcript stays there, and says why."""
    app = make_editor_app()
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_editor(pilot)
        assert await wait_for(pilot, lambda: screen.right.label == "MEMORY.md")
        await pilot.press("ctrl+t")
        main = app.main_screen
        assert await wait_for(pilot, lambda: main.beside is not None and main.beside.label == "SOUL.md")
        main.beside.area.focus()
        await type_into(pilot, "beside ")
        await pilot.press("escape", "ctrl+e")  # to the input, then the editor screen
        assert await wait_for(pilot, lambda: app.screen is screen)
        screen.open_named(screen.left, "USER.md")
        assert await wait_for(pilot, lambda: screen.left.label == "USER.md")
        screen.left.replace_text("Dana")
        screen.right.replace_text("Deploys on Fridays")
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: app.screen is main)
        main.beside.area.focus()
        await pilot.pause()
        await pilot.press("ctrl+t")
        await pilot.pause()
        assert await wait_for(pilot, lambda: app.screen is main)
        assert main.beside is not None and main.beside.text.startswith("beside ")
        assert screen.left.text == "Dana" and screen.right.text == "Deploys on Fridays"
        notes = " ".join(str(n.message) for n in app._notifications)
        assert "unsaved" in notes
