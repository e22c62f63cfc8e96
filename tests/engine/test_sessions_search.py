"""Full-text search: ranking, filters, CJK, hidden messages, and every plan the planner can choose."""

from __future__ import annotations

import random
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from engine.config import defaults
from engine.sessions.store import SessionStore


def settings(**overrides: Any) -> dict[str, Any]:
    values = dict(defaults().sessions)
    values.update(overrides)
    return values


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SessionStore]:
    opened = await SessionStore.open(tmp_path / "state.db")
    yield opened
    await opened.close()


async def _session(store: SessionStore, texts: list[tuple[str, str]], **kwargs: Any) -> tuple[str, list[int]]:
    session = await store.create_session(**kwargs)
    ids = [await store.append_message(session.id, role, text) for role, text in texts]
    return session.id, ids


async def test_bm25_ranks_the_message_with_more_rare_terms_first(store: SessionStore) -> None:
    _, ids = await _session(
        store,
        [
            ("user", "the cat sat on the mat"),
            ("user", "a kiln fires pottery at high heat; the glaze melts in the kiln"),
            ("user", "pottery is fun"),
            ("user", "we talked about the weather"),
        ],
    )
    result = await store.search("kiln pottery")
    assert [h.message_id for h in result.hits] == [ids[1], ids[2]]
    assert result.hits[0].score > result.hits[1].score
    assert ">>>kiln<<<" in result.hits[0].snippet and ">>>pottery<<<" in result.hits[0].snippet


async def test_an_exact_phrase_needs_the_words_side_by_side(store: SessionStore) -> None:
    _, ids = await _session(store, [("user", "the class on pottery"), ("user", "a pottery class tonight")])
    assert [h.message_id for h in (await store.search('"pottery class"')).hits] == [ids[1]]


async def test_a_prefix_matches_longer_words(store: SessionStore) -> None:
    _, ids = await _session(
        store, [("user", "deployment done"), ("user", "we deployed it"), ("user", "nothing")]
    )
    assert {h.message_id for h in (await store.search("deploy*")).hits} == {ids[0], ids[1]}


async def test_boolean_operators_filter_exactly(store: SessionStore) -> None:
    _, ids = await _session(
        store,
        [("user", "docker compose up"), ("user", "docker swarm init"), ("user", "compose a song")],
    )
    assert [h.message_id for h in (await store.search("docker AND compose")).hits] == [ids[0]]
    assert [h.message_id for h in (await store.search("docker NOT swarm")).hits] == [ids[0]]


async def test_tool_names_and_tool_call_arguments_are_searchable(store: SessionStore) -> None:
    session = await store.create_session()
    call = await store.append_message(
        session.id,
        "assistant",
        None,
        tool_calls=[
            {
                "id": "c",
                "type": "function",
                "function": {"name": "terminal", "arguments": '{"cmd": "pytest -x"}'},
            }
        ],
    )
    result = await store.search("pytest")
    assert [h.message_id for h in result.hits] == [call]
    assert ">>>pytest<<<" in result.hits[0].snippet


async def test_filters_by_role_date_session_and_source(store: SessionStore) -> None:
    first = await store.create_session(source="cli", started_at=1000.0)
    a = await store.append_message(first.id, "user", "glaze recipe", timestamp=1000.0)
    b = await store.append_message(first.id, "assistant", "glaze answer", timestamp=2000.0)
    second = await store.create_session(source="telegram", started_at=3000.0)
    c = await store.append_message(second.id, "user", "glaze again", timestamp=3000.0)
    tool = await store.create_session(source="tool", started_at=4000.0)
    d = await store.append_message(tool.id, "tool", "glaze from a tool", timestamp=4000.0)

    async def ids(**kwargs: Any) -> set[int]:
        return {h.message_id for h in (await store.search("glaze", **kwargs)).hits}

    assert await ids() == {a, b, c, d}
    assert await ids(roles=["user"]) == {a, c}
    assert await ids(since=1500.0) == {b, c, d}
    assert await ids(until=2500.0) == {a, b}
    assert await ids(since=1500.0, until=3500.0) == {b, c}
    assert await ids(since=9999.0) == set()
    assert await ids(session_ids=[second.id]) == {c}
    assert await ids(sources=["telegram"]) == {c}
    assert await ids(exclude_sources=["tool", "subagent"]) == {a, b, c}
    assert await ids(exclude_session_ids=[first.id]) == {c, d}


async def test_cjk_substrings_of_every_length_are_found(store: SessionStore) -> None:
    _, ids = await _session(
        store,
        [
            ("user", "部署服务器的时候出现了错误，数据库连接失败。"),
            ("assistant", "数据库连接失败通常是因为密码错误"),
            ("user", "今日はいい天気ですね"),
            ("user", "한국어 문장입니다"),
            ("user", "plain english with no cjk at all"),
        ],
    )

    async def found(query: str) -> set[int]:
        return {h.message_id for h in (await store.search(query)).hits}

    assert await found("数据库") == {ids[0], ids[1]}
    assert await found("连接失败") == {ids[0], ids[1]}
    assert await found("数据") == {ids[0], ids[1]}  # two characters: through the trigram vocabulary
    assert await found("败") == {ids[0], ids[1]}  # one character, last before the end of the text
    assert await found("部署") == {ids[0]}
    assert await found("天気") == {ids[2]}
    assert await found("문장") == {ids[3]}
    assert await found('"密码错误"') == {ids[1]}
    snippet = (await store.search("数据")).hits[0].snippet
    assert ">>>数据<<<" in snippet


async def test_a_question_in_cjk_finds_messages_sharing_its_words(store: SessionStore) -> None:
    _, ids = await _session(store, [("user", "数据库连接失败"), ("user", "今天天气很好")])
    hits = (await store.search("为什么数据库连接失败了")).hits
    assert hits and hits[0].message_id == ids[0]


async def test_mixed_script_queries_search_both_indexes(store: SessionStore) -> None:
    _, ids = await _session(
        store, [("user", "docker 部署 ok"), ("user", "docker only"), ("user", "部署 only")]
    )
    found = [h.message_id for h in (await store.search("docker 部署")).hits]
    assert set(found) == set(ids) and found[0] == ids[0]  # the message holding both ranks first


async def test_rewound_and_compacted_messages_are_found_a_rewound_one_says_so(store: SessionStore) -> None:
    _, ids = await _session(
        store, [("user", "secret plan alpha"), ("user", "secret plan beta"), ("user", "plan")]
    )
    conn = sqlite3.connect(store.path)
    conn.execute("UPDATE messages SET active = 0, compacted = 0 WHERE id = ?", (ids[0],))  # /undo
    conn.execute(
        "UPDATE messages SET active = 0, compacted = 1 WHERE id = ?", (ids[1],)
    )  # in-place compaction
    conn.commit()
    conn.close()
    hits = {h.message_id: h.rewound for h in (await store.search("secret")).hits}
    assert hits == {ids[0]: True, ids[1]: False}  # compacted in place is not "rewound"


async def test_edits_and_deletes_by_another_writer_keep_the_index_right(store: SessionStore) -> None:
    _, ids = await _session(store, [("user", "alpha words"), ("user", "beta 数据库"), ("user", "gamma")])
    conn = sqlite3.connect(store.path)
    conn.execute("UPDATE messages SET content = 'delta 连接' WHERE id = ?", (ids[0],))
    conn.execute("DELETE FROM messages WHERE id = ?", (ids[1],))
    conn.commit()
    conn.close()
    assert (await store.search("alpha")).hits == ()
    assert [h.message_id for h in (await store.search("delta")).hits] == [ids[0]]
    assert [h.message_id for h in (await store.search("连接")).hits] == [ids[0]]
    assert (await store.search("数据库")).hits == ()
    assert await store.integrity_errors() == []


async def test_empty_and_punctuation_only_queries_find_nothing_without_error(store: SessionStore) -> None:
    await _session(store, [("user", "anything")])
    for query in ("", "   ", "???", '"', "AND OR NOT", "*"):
        assert (await store.search(query)).hits == ()


# -- the planner on a larger database, with small thresholds so every plan is exercised

WORDS = [f"w{i}" for i in range(400)]


@pytest.fixture
async def big(tmp_path: Path) -> AsyncIterator[SessionStore]:
    """1,500 messages: `w0`..`w3` are in most of them, `w50`.. are rarer, `rare*` words are planted."""
    path = tmp_path / "state.db"
    store = await SessionStore.open(path, settings=settings(search_rank_rows=20, search_window_rows=10))
    rng = random.Random(5)
    weights = [1 / (i + 1) for i in range(len(WORDS))]
    for s in range(30):
        session = await store.create_session(source="cli")
        for m in range(50):
            words = rng.choices(WORDS, weights, k=30)
            if (s * 50 + m) % 97 == 0:
                words.append("rareplanted")
            await store.append_message(session.id, "user" if m % 2 == 0 else "assistant", " ".join(words))
    yield store
    await store.close()


def matching_ids(store: SessionStore, word: str) -> list[int]:
    conn = sqlite3.connect(store.path)
    try:
        rows = conn.execute(
            "SELECT id FROM messages WHERE ' ' || content || ' ' LIKE ? ORDER BY id DESC", (f"% {word} %",)
        )
        return [r[0] for r in rows]
    finally:
        conn.close()


async def test_a_rare_word_is_ranked_over_all_its_matches(big: SessionStore) -> None:
    result = await big.search("rareplanted", limit=50)
    assert "bm25 over every match" in result.plan[0]
    assert {h.message_id for h in result.hits} == set(matching_ids(big, "rareplanted"))


async def test_a_common_word_lists_its_newest_matches(big: SessionStore) -> None:
    result = await big.search("w0", limit=10)
    assert "only common terms, newest matches first" in result.plan[0]
    assert [h.message_id for h in result.hits] == matching_ids(big, "w0")[:10]


async def test_a_medium_word_ranks_its_newest_matches(big: SessionStore) -> None:
    counts = {w: len(matching_ids(big, w)) for w in WORDS[20:200]}
    medium = next(w for w, n in counts.items() if 40 <= n <= 200)
    result = await big.search(medium, limit=5)
    assert "bm25 over the newest matches" in result.plan[0]
    newest = matching_ids(big, medium)[:60]
    assert result.hits and all(h.message_id in newest for h in result.hits)


async def test_common_words_in_a_question_do_not_drown_the_rare_one(big: SessionStore) -> None:
    result = await big.search("what about w0 and w1 with rareplanted", limit=5)
    planted = set(matching_ids(big, "rareplanted"))
    assert result.hits and all(h.message_id in planted for h in result.hits)
    assert "too common to rank" in result.plan[0]


async def test_a_phrase_of_common_words_is_found_newest_first(big: SessionStore) -> None:
    result = await big.search('"w0 w1"', limit=5)
    assert any("phrase of frequent words" in step for step in result.plan)
    conn = sqlite3.connect(big.path)
    expected = [
        r[0]
        for r in conn.execute(
            "SELECT id FROM messages WHERE ' ' || content || ' ' LIKE '% w0 w1 %' ORDER BY id DESC LIMIT 5"
        )
    ]
    conn.close()
    assert [h.message_id for h in result.hits] == expected


async def test_a_search_over_its_time_budget_returns_the_newest_matches_found(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    store = await SessionStore.open(path, settings=settings(search_budget_ms=0.001))
    session = await store.create_session()
    for i in range(300):
        await store.append_message(session.id, "user", f"w0 w1 filler {i}")
    result = await store.search('"w1 w0"', limit=5)
    assert result.partial
    assert result.hits == ()
    await store.close()


async def test_a_search_out_of_time_before_finding_anything_tries_again(store: SessionStore) -> None:
    """A cold first search on a loaded machine must not answer "no messages matched" for a real match."""
    _, ids = await _session(store, [("user", "Dana started the pottery class in May"), ("user", "other")])
    store.searcher.budget_s = 0.0  # every statement of the first attempt is over its budget at once
    result = await store.search("When did Dana start the pottery class?")
    assert ids[0] in [h.message_id for h in result.hits]
    store.searcher.retry_budget_s = 0.0
    assert (await store.search("pottery")).hits == ()  # without the second chance: nothing, partial
