"""Index upkeep: a closing store merges its search index a little, and never loses or changes a hit."""

from __future__ import annotations

import hashlib
import random
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from engine.config import defaults
from engine.sessions import upkeep
from engine.sessions.store import SessionStore

WORDS = [
    "kiln",
    "glaze",
    "pottery",
    "wheel",
    "clay",
    "fire",
    "studio",
    "dana",
    "class",
    "monday",
    "wheelhouse",
    "bisque",
]
CJK = ["陶艺课", "星期一", "釉料", "拉坯"]


def settings(**overrides: Any) -> dict[str, Any]:
    values = dict(defaults().sessions)
    values.update(overrides)
    return values


async def grow(path: Path, messages: int, **overrides: Any) -> SessionStore:
    """A store grown one committed message at a time, as the agent writes: many index pieces."""
    rng = random.Random(7)
    store = await SessionStore.open(path, settings=settings(**overrides))
    session = await store.create_session()
    for i in range(messages):
        # Words known to the queries among many others: a wide vocabulary makes FTS5 write
        # pieces large enough that it does not merge them all at once.
        known = [rng.choice(WORDS) for _ in range(6)]
        other = [f"w{rng.randint(0, 50_000)}" for _ in range(40)]
        text = " ".join(known + other) + f" note{i}"
        if i % 7 == 0:
            text += " " + rng.choice(CJK)
        await store.append_message(session.id, "user" if i % 2 else "assistant", text)
    return store


def pieces(path: Path) -> dict[str, int]:
    conn = sqlite3.connect(path)
    try:
        return {table: upkeep.segments(conn, table) for table in upkeep.OUR_INDEXES}
    finally:
        conn.close()


QUERIES = ["kiln", "pottery class", '"clay fire"', "note123", "陶艺", "星期一", "wheel*", "dana AND bisque"]


async def answers(path: Path) -> list[list[tuple[int, str]]]:
    store = await SessionStore.open(path, settings=settings(index_upkeep_ms=0))
    try:
        return [[(h.message_id, h.snippet) for h in (await store.search(q, limit=30)).hits] for q in QUERIES]
    finally:
        await store.close()


async def test_closing_merges_the_index_and_every_search_answers_the_same(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    store = await grow(path, 300, index_upkeep_ms=0)
    await store.close()
    assert min(pieces(path).values()) > 6  # a piece per commit, merged by FTS5 only as they pile up
    before = await answers(path)
    assert all(before), "every query finds something in this corpus"

    store = await SessionStore.open(path, settings=settings(index_upkeep_ms=5000, index_max_segments=1))
    await store.close()
    assert store.last_upkeep is not None and not store.last_upkeep.unfinished
    assert pieces(path) == {"hws_fts": 1, "hws_fts_cjk": 1}
    assert await answers(path) == before
    check = await SessionStore.open(path)
    try:
        assert await check.integrity_errors() == []
    finally:
        await check.close()


async def test_the_default_upkeep_keeps_pieces_few_while_a_store_grows(tmp_path: Path) -> None:
    limit = defaults().sessions["index_max_segments"]
    seen: dict[bool, list[int]] = {True: [], False: []}
    for tidied in (True, False):
        path = tmp_path / f"state-{tidied}.db"
        for _ in range(5):  # five sessions, the store closed after each, as `hws run` does
            store = await grow(path, 100, **({} if tidied else {"index_upkeep_ms": 0}))
            await store.close()
            assert (store.last_upkeep is not None) == tidied
            seen[tidied].append(max(pieces(path).values()))
    assert max(seen[False]) > limit  # without upkeep the pieces pile up past the limit
    assert max(seen[True]) <= limit, seen


async def test_a_small_budget_stops_early_and_the_next_close_carries_on(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    store = await grow(path, 300, index_upkeep_ms=0)
    await store.close()
    before = await answers(path)
    rounds = 0
    while True:
        store = await SessionStore.open(
            path, settings=settings(index_upkeep_ms=0.001, index_max_segments=1, index_merge_pages=4)
        )
        await store.close()
        rounds += 1
        assert store.last_upkeep is not None
        assert await answers(path) == before  # a half-merged index answers the same
        if not store.last_upkeep.unfinished:
            break
        assert rounds < 500
    assert rounds > 1
    assert pieces(path) == {"hws_fts": 1, "hws_fts_cjk": 1}


async def test_no_upkeep_when_it_is_turned_off_or_the_store_is_read_only(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    store = await grow(path, 200, index_upkeep_ms=0)
    await store.close()
    assert store.last_upkeep is None
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    shape = pieces(path)

    reader = await SessionStore.open(path, read_only=True, settings=settings(index_max_segments=1))
    await reader.close()
    assert reader.last_upkeep is None
    assert pieces(path) == shape
    assert hashlib.sha256(path.read_bytes()).hexdigest() == digest


async def test_upkeep_gives_way_to_another_writer_and_loses_nothing(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    store = await grow(path, 200, index_upkeep_ms=0)
    await store.close()
    before = await answers(path)
    shape = pieces(path)

    store = await SessionStore.open(
        path, settings=settings(index_max_segments=1, index_upkeep_ms=500, busy_timeout_ms=50)
    )
    other = sqlite3.connect(path, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")  # another process in the middle of a write
        await store.close()  # does not raise, does not wait for the budget
        other.execute("COMMIT")
    finally:
        other.close()
    assert store.last_upkeep is None
    assert pieces(path) == shape
    assert await answers(path) == before


@pytest.mark.parametrize("budget_ms", [0.001, 50])
async def test_tidy_reports_what_it_did(tmp_path: Path, budget_ms: float) -> None:
    path = tmp_path / "state.db"
    store = await grow(path, 300, index_upkeep_ms=0)
    await store.close()
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        done = upkeep.tidy(conn, budget_ms / 1000, max_segments=1, pages=8)
    finally:
        conn.close()
    assert done.steps >= 1
    assert done.seconds >= 0
    assert done.segments and set(done.segments) <= set(upkeep.OUR_INDEXES)
    assert done.segments == pieces(path)
    if budget_ms < 1:
        assert done.unfinished  # a merge of everything was started and is left for the next close
    if not done.unfinished:
        assert all(n == 1 for n in pieces(path).values())


async def test_tidy_begins_no_step_that_would_end_past_its_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each step here takes 60 ms (a clock that only steps move): 3 fit in 200 ms, a 4th would end at 240.

    (Every index gets one step whatever is left of the budget, so none waits behind another forever;
    one index is tidied here.)
    """
    path = tmp_path / "state.db"
    store = await grow(path, 300, index_upkeep_ms=0)
    await store.close()
    now = [0.0]
    real_step = upkeep._step

    def slow_step(conn: sqlite3.Connection, table: str, pages: int) -> int:
        now[0] += 0.060
        return real_step(conn, table, pages)

    monkeypatch.setattr(upkeep, "_step", slow_step)
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        done = upkeep.tidy(conn, 0.200, max_segments=1, pages=4, tables=["hws_fts"], clock=lambda: now[0])
    finally:
        conn.close()
    assert done.unfinished  # the budget ran out before the index was merged
    assert done.seconds <= 0.200 and done.steps == 3
