"""The page above the window is read while the reader looks at this one, so a step up needs no read."""

from __future__ import annotations

import asyncio
from typing import Any

from tests.support.tui_support import make_app, make_home, open_stored_view, pause_until
from tests.tui.test_history_paging import CONFIG, TURNS, long_session
from widgets.stored_turn import StoredTurn


def record_reads(app: Any, gate: asyncio.Event) -> list[tuple[str, int, int]]:
    """Every page the app reads, as (direction, anchor message id, request); read-aheads wait for `gate`."""
    reads: list[tuple[str, int, int]] = []
    original = app.history_feeds.reader.page

    async def page(direction: str, session_id: str, anchor: int, **kwargs: Any) -> Any:
        reads.append((direction, anchor, kwargs["request"]))
        if kwargs["request"] < 0:
            await gate.wait()
        return await original(direction, session_id, anchor, **kwargs)

    app.history_feeds.reader.page = page
    return reads


async def open_view(pilot: Any, app: Any, session_id: str) -> Any:
    return await open_stored_view(pilot, app, session_id, settle=0)


def questions(transcript: Any) -> list[str]:
    return [turn.text for turn in transcript.query(StoredTurn)]


async def test_a_step_up_mounts_the_page_read_ahead_without_reading_it_again() -> None:
    home = make_home(CONFIG)
    session_id = await long_session(home)
    app = make_app(CONFIG)
    async with app.run_test(size=(100, 30)) as pilot:
        gate = asyncio.Event()
        gate.set()
        reads = record_reads(app, gate)
        transcript = await open_view(pilot, app, session_id)
        anchor = transcript.paging.pruned.anchor
        assert await pause_until(pilot, lambda: transcript.paging._ahead_page is not None)
        assert reads[-1][0] == "up" and reads[-1][1] == anchor[1] and reads[-1][2] < 0, "read ahead"
        before = len(reads)
        earliest = questions(transcript)[0]
        await pilot.press("home")
        assert await pause_until(pilot, lambda: not transcript.paging._history_pending)
        shown = questions(transcript)
        assert shown.index(earliest) > 0, "the page above was mounted"
        assert all(read[2] < 0 for read in reads[before:]), "the step itself read nothing"
        assert await pause_until(pilot, lambda: transcript.paging._ahead_page is not None)
        assert transcript.paging._ahead_anchor == transcript.paging.pruned.anchor, (
            "and the next page is read ahead"
        )


async def test_a_step_asked_while_the_page_is_still_being_read_ahead_waits_for_that_read() -> None:
    home = make_home(CONFIG)
    session_id = await long_session(home)
    app = make_app(CONFIG)
    async with app.run_test(size=(100, 30)) as pilot:
        gate = asyncio.Event()
        reads = record_reads(app, gate)
        transcript = await open_view(pilot, app, session_id)
        assert await pause_until(pilot, lambda: any(read[2] < 0 for read in reads))
        earliest = questions(transcript)[0]
        before = len(reads)
        await pilot.press("home")
        for _ in range(5):
            await pilot.pause()
        assert transcript.paging._history_pending == "up" and transcript.paging.pruned.loading
        assert len(reads) == before, "no second read of the same page"
        gate.set()
        assert await pause_until(pilot, lambda: not transcript.paging._history_pending)
        shown = questions(transcript)
        assert shown.index(earliest) > 0 and not transcript.paging.pruned.loading
        for _ in range(TURNS):  # and on to the first message, read ahead all the way
            if not transcript.paging.pruned.more:
                break
            await pilot.press("home")
            assert await pause_until(pilot, lambda: not transcript.paging._history_pending, 400)
        assert questions(transcript)[0] == "question 0"
