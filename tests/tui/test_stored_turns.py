"""Stored turns drawn as one widget each: they look exactly like their separate blocks, and thaw into them."""

from __future__ import annotations

import json
from typing import Any

from engine.home import Home
from tests.support.tui_support import (
    FIXED_WALL_TIME,
    MODEL_CONFIG,
    make_app,
    make_home,
    open_stored_view,
    pause_until,
    screen_cells,
)
from widgets.stored_turn import StoredTurn
from widgets.transcript_blocks import FrozenReply, ToolBlock, UserBlock

TURNS = 4


async def session_with_tools(home: Home) -> str:
    """Turns of a question, a tool call (the last one failing), its result and a Markdown reply."""
    from engine.sessions.store import SessionStore

    store = await SessionStore.open(home.state_db)
    try:
        session = await store.create_session(source="cli", title="Tools", started_at=FIXED_WALL_TIME)
        for turn in range(TURNS):
            at = FIXED_WALL_TIME + turn * 60
            call = {
                "id": f"call-{turn}",
                "type": "function",
                "function": {"name": "read_file", "arguments": json.dumps({"path": f"src/part{turn}.py"})},
            }
            await store.append_message(session.id, "user", f"question {turn}", timestamp=at)
            await store.append_message(session.id, "assistant", "", tool_calls=[call], timestamp=at + 1)
            result = '{"error": "no such file"}' if turn == TURNS - 1 else f"def part{turn}(): pass"
            await store.append_message(
                session.id,
                "tool",
                result,
                tool_call_id=f"call-{turn}",
                tool_name="read_file",
                timestamp=at + 2,
            )
            await store.append_message(
                session.id,
                "assistant",
                f"## Part {turn}\n\nIt **reads** the file.\n\n- first point\n- second point",
                timestamp=at + 3,
            )
        return session.id
    finally:
        await store.close()


async def open_view(pilot: Any, app: Any, session_id: str) -> Any:
    return await open_stored_view(pilot, app, session_id, settle=3)


async def test_a_stored_turn_is_one_widget_that_looks_exactly_like_its_blocks() -> None:
    home = make_home(MODEL_CONFIG)
    session_id = await session_with_tools(home)
    app = make_app(MODEL_CONFIG)
    async with app.run_test(size=(100, 50)) as pilot:
        transcript = await open_view(pilot, app, session_id)
        turns = list(transcript.query(StoredTurn))
        assert [t.text for t in turns] == [f"question {n}" for n in range(TURNS)], "one widget per turn"
        assert not transcript.query(ToolBlock) and not transcript.query(FrozenReply)
        frozen = screen_cells(app)
        text = "\n".join("".join(c for c, _ in line) for line in frozen)
        assert "you  question 0" in text and "read_file  src/part0.py  ✓" in text
        assert "✗" in text and "Part 3" in text and "reads the file" in text
        transcript.scroll_to(y=0, animate=False, immediate=True)
        await pilot.pause()
        frozen = screen_cells(app)
        for turn in turns:  # taken apart, the same turns draw the same cells in the same colours
            await transcript.paging.thaw(turn)
        for _ in range(3):
            await pilot.pause()
        assert not transcript.query(StoredTurn)
        assert len(transcript.query(ToolBlock)) == TURNS
        assert screen_cells(app) == frozen


async def test_enter_thaws_a_stored_turn_so_its_tool_call_can_be_expanded_and_copied() -> None:
    home = make_home(MODEL_CONFIG)
    session_id = await session_with_tools(home)
    app = make_app(MODEL_CONFIG)
    async with app.run_test(size=(100, 40)) as pilot:
        transcript = await open_view(pilot, app, session_id)
        await pilot.press("ctrl+up")  # the cursor on the newest block: the last turn
        last = transcript.cursor
        assert isinstance(last, StoredTurn) and last.text == f"question {TURNS - 1}"
        copied = last.copy_text()
        assert copied.startswith(f"question {TURNS - 1}") and "no such file" in copied and "Part 3" in copied
        await pilot.press("enter")
        assert await pause_until(pilot, lambda: not last.is_attached)
        cursor = transcript.cursor
        assert type(cursor) is UserBlock and cursor.text == f"question {TURNS - 1}"
        assert cursor.ref == last.ref, "the thawed blocks keep where their messages live"
        await pilot.press("ctrl+down", "enter")
        tool = transcript.cursor
        assert isinstance(tool, ToolBlock) and tool.expanded and tool.has_class("-failed")
        assert len(transcript.query(StoredTurn)) == TURNS - 1, "only the turn expanded was taken apart"


async def test_a_stored_turn_lays_its_replies_out_again_for_a_new_width_once() -> None:
    home = make_home(MODEL_CONFIG)
    session_id = await session_with_tools(home)
    app = make_app(MODEL_CONFIG)
    async with app.run_test(size=(100, 40)) as pilot:
        transcript = await open_view(pilot, app, session_id)
        turn = transcript.query(StoredTurn).last()
        assert turn.replies_width == turn.content_region.width, "laid out at its width from the start"
        await pilot.resize_terminal(70, 40)
        assert await pause_until(pilot, lambda: turn.replies_width == turn.content_region.width < 70)
        width = turn.replies_width
        assert max(strip.cell_length for strip in turn.reply_strips(2)) <= width
        assert "It reads the file." in "".join(s.text for s in turn.reply_strips(2))


async def test_a_mouse_drag_over_a_stored_turns_reply_selects_that_text() -> None:
    """The turn is one widget drawing many lines; a drag used to select the user's question instead."""
    home = make_home(MODEL_CONFIG)
    session_id = await session_with_tools(home)
    app = make_app(MODEL_CONFIG)
    async with app.run_test(size=(100, 50)) as pilot:
        transcript = await open_view(pilot, app, session_id)
        turn = list(transcript.query(StoredTurn))[1]
        lines = [turn.render_line(y).text for y in range(turn.content_region.height)]
        row = next(i for i, line in enumerate(lines) if "reads the file" in line)
        column = lines[row].index("reads") + turn.styles.padding.left
        await pilot.mouse_down(turn, offset=(column, row))
        await pilot.hover(turn, offset=(column + 2, row))
        await pilot.mouse_up(turn, offset=(column + len("reads the file") - 1, row))  # the last cell is in
        await pilot.pause()
        assert app.screen.get_selected_text() == "reads the file"


async def test_a_stored_tool_call_shows_no_made_up_duration() -> None:
    """state.db keeps no duration for a call: its line read `✓ 0ms` as if it had been timed."""
    home = make_home(MODEL_CONFIG)
    session_id = await session_with_tools(home)
    app = make_app(MODEL_CONFIG)
    async with app.run_test(size=(100, 50)) as pilot:
        await open_view(pilot, app, session_id)
        text = "\n".join("".join(c for c, _ in line) for line in screen_cells(app))
        assert "read_file  src/part0.py  ✓" in text
        assert "0ms" not in text, text
