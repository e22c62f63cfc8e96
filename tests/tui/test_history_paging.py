"""Paging up a long stored conversation: one read per step, the reading place kept, the DOM bounded."""

from __future__ import annotations

from typing import Any

from engine.home import Home
from tests.support.tui_support import FIXED_WALL_TIME, MODEL_CONFIG, make_app, make_home, pause_until
from tui.screens.session_view import SessionViewScreen
from widgets.transcript_blocks import UserBlock

CONFIG = (
    MODEL_CONFIG + "tui:\n  history_page_messages: 20\n  prune_keep_lines: 120\n  prune_excess_lines: 60\n"
)
TURNS = 150


async def long_session(home: Home) -> str:
    from engine.sessions.store import SessionStore

    store = await SessionStore.open(home.state_db)
    try:
        session = await store.create_session(source="cli", title="Long", started_at=FIXED_WALL_TIME)
        for turn in range(TURNS):
            at = FIXED_WALL_TIME + turn * 60
            await store.append_message(session.id, "user", f"question {turn}", timestamp=at)
            await store.append_message(
                session.id, "assistant", f"Answer {turn}.\n\n- first point\n- second point", timestamp=at + 1
            )
        return session.id
    finally:
        await store.close()


def first_visible(transcript: Any) -> Any:
    """The first block whose top is in view, and its row on the screen."""
    for child in transcript.children:
        if isinstance(child, UserBlock) and child.virtual_region.y >= transcript.scroll_y:
            return child, child.virtual_region.y - transcript.scroll_y
    raise AssertionError("no user block in view")


async def test_paging_up_reads_one_page_per_step_keeps_the_place_and_reaches_the_start() -> None:
    home = make_home(CONFIG)
    session_id = await long_session(home)
    app = make_app(CONFIG)
    async with app.run_test(size=(100, 30)) as pilot:
        app.view_session(session_id)
        assert await pause_until(
            pilot, lambda: isinstance(app.screen, SessionViewScreen) and bool(app.screen.query("Transcript"))
        )
        transcript = app.screen.transcript  # type: ignore[attr-defined]
        assert await pause_until(
            pilot, lambda: not transcript.paging._history_pending and bool(transcript.query(UserBlock)), 400
        )
        texts = [b.text for b in transcript.query(UserBlock)]
        assert texts[-1] == f"question {TURNS - 1}", "it opens at the newest turn"
        asked = transcript.paging._history_request
        await pilot.press("home")
        assert await pause_until(pilot, lambda: not transcript.paging._history_pending, 400)
        for _ in range(5):
            await pilot.pause()
        assert transcript.paging._history_request == asked + 1, "one page per step, not a cascade of reads"
        block, row = first_visible(transcript)
        assert transcript.scroll_y > 0, "the page read above does not pull the view to its top"
        await pilot.press("home")  # the next step starts from the block the reader was looking at
        assert await pause_until(pilot, lambda: not transcript.paging._history_pending, 400)
        for _ in range(5):
            await pilot.pause()
        if block.is_attached:
            assert block.virtual_region.y - transcript.scroll_y >= row, "earlier turns arrived above it"
        for _ in range(TURNS):  # on to the first message
            if transcript.paging.pruned is None or not transcript.paging.pruned.more:
                break
            await pilot.press("home")
            assert await pause_until(pilot, lambda: not transcript.paging._history_pending, 400)
            await pilot.pause()
            assert len(transcript.children) < 120, "old turns leave the DOM at the bottom"
        texts = [b.text for b in transcript.query(UserBlock)]
        assert texts[0] == "question 0"
