"""ctrl+o in the editor: the file picker lists the home's editable files, filters as you type, opens once."""

from __future__ import annotations

from typing import Any

from textual import events as textual_events
from textual.widgets import OptionList

from tests.support.live_files_support import SKILL, make_skill, wait_for
from tests.support.tui_support import MODEL_CONFIG, make_app
from tui.screens.file_picker import FilePickerScreen


async def open_picker(pilot: Any) -> tuple[Any, FilePickerScreen]:
    """The editor screen, its right pane focused, and the picker opened over it with ctrl+o."""
    app = pilot.app
    await pilot.press("ctrl+e")
    editor_screen = app.screen
    await pilot.pause()
    editor_screen.right.area.focus()
    await pilot.press("ctrl+o")
    assert await wait_for(pilot, lambda: isinstance(app.screen, FilePickerScreen))
    picker = app.screen
    assert await wait_for(pilot, lambda: bool(picker.targets))
    return editor_screen, picker


def listed(picker: FilePickerScreen) -> list[str]:
    listing = picker.query_one("#picker-list", OptionList)
    return [str(listing.get_option_at_index(i).prompt) for i in range(listing.option_count)]


async def test_the_picker_filters_as_you_type_and_opens_in_the_pane_that_asked() -> None:
    app = make_app(MODEL_CONFIG)
    make_skill(app.home.root)
    async with app.run_test(size=(140, 40)) as pilot:
        editor_screen, picker = await open_picker(pilot)
        everything = listed(picker)
        assert any("SOUL.md" in line for line in everything)
        assert any("deploy-static" in line for line in everything)
        await pilot.press(*"deploy")
        assert await wait_for(pilot, lambda: 0 < len(listed(picker)) < len(everything))
        assert all("deploy-static" in line for line in listed(picker))
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: app.screen is editor_screen)
        assert await wait_for(pilot, lambda: "deploy-static" in editor_screen.right.label)
        assert editor_screen.right.text == SKILL


async def test_escape_closes_the_picker_and_leaves_the_pane_as_it_was() -> None:
    app = make_app(MODEL_CONFIG)
    async with app.run_test(size=(140, 40)) as pilot:
        editor_screen, _ = await open_picker(pilot)
        before = (editor_screen.right.label, editor_screen.right.text)
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: app.screen is editor_screen)
        assert (editor_screen.right.label, editor_screen.right.text) == before


async def test_enter_pressed_twice_in_the_picker_opens_once() -> None:
    """The second enter's submission was still queued when the picker left; it closed the editor too."""
    app = make_app(MODEL_CONFIG)
    async with app.run_test(size=(140, 40)) as pilot:
        editor_screen, _ = await open_picker(pilot)
        await pilot.press(*"user")
        await pilot.pause()
        for _ in range(2):  # a burst: both reach the filter before it handles either
            app.post_message(textual_events.Key("enter", None))
        assert await wait_for(pilot, lambda: app.screen is editor_screen)
        for _ in range(5):
            await pilot.pause()
        assert app.is_running
        assert [type(s).__name__ for s in app.screen_stack] == ["MainScreen", "EditorScreen"]
        assert editor_screen.right.label == "USER.md"
