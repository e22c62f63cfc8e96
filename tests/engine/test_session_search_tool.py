"""The session_search tool: its four shapes, lineage grouping, filters, recaps and bad arguments."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from engine.sessions.session_search import RECAP_INSTRUCTIONS, SESSION_SEARCH_SCHEMA, session_search
from engine.sessions.store import SessionStore


@pytest.fixture
async def world(tmp_path: Path) -> AsyncIterator[dict[str, Any]]:
    """A compressed pottery conversation, a kiln chat, a subagent session and the current session."""
    store = await SessionStore.open(tmp_path / "state.db")
    day = 1_767_000_000.0
    root = await store.create_session(title="Pottery", started_at=day)
    r = [
        await store.append_message(root.id, role, text, timestamp=day + i)
        for i, (role, text) in enumerate(
            [
                ("user", "Dana starts the pottery class on Tuesday."),
                ("assistant", "Noted, Tuesday for Dana."),
                ("user", "She wants a celadon glaze."),
                ("assistant", "Celadon is a pale green glaze."),
            ]
        )
    ]
    await store.end_session(root.id, "compression")
    tip = await store.create_session(parent_session_id=root.id, started_at=day + 100)
    t = [
        await store.append_message(tip.id, role, text, timestamp=day + 100 + i)
        for i, (role, text) in enumerate(
            [
                ("user", "[summary of earlier turns]"),
                ("user", "Which kiln temperature for celadon?"),
                ("assistant", "Cone 10, about 1285 degrees Celsius, for celadon."),
            ]
        )
    ]
    other = await store.create_session(title="Kiln shopping", source="telegram", started_at=day + 200)
    o = [
        await store.append_message(other.id, "user", "Looking at electric kiln prices", timestamp=day + 200),
        await store.append_message(
            other.id, "assistant", "Skutt and L&L make good kilns.", timestamp=day + 201
        ),
    ]
    helper = await store.create_session(source="subagent", started_at=day + 300)
    await store.append_message(
        helper.id, "assistant", "kiln research notes from a subagent", timestamp=day + 300
    )
    current = await store.create_session(title="Today", started_at=day + 400)
    await store.append_message(current.id, "user", "what kiln did we discuss?", timestamp=day + 400)
    yield {
        "store": store,
        "root": root.id,
        "tip": tip.id,
        "other": other.id,
        "current": current.id,
        "r": r,
        "t": t,
        "o": o,
    }
    await store.close()


def test_the_schema_is_a_plain_function_definition() -> None:
    assert SESSION_SEARCH_SCHEMA["name"] == "session_search"
    parameters = SESSION_SEARCH_SCHEMA["parameters"]
    assert parameters["type"] == "object" and not {"anyOf", "oneOf", "allOf"} & set(parameters)
    assert {"query", "limit", "session_id", "around_message_id", "window", "role_filter", "summarize"} <= set(
        parameters["properties"]
    )
    json.dumps(SESSION_SEARCH_SCHEMA)


async def test_discovery_groups_a_compressed_chain_as_one_conversation(world: dict[str, Any]) -> None:
    out = await session_search(
        world["store"], {"query": "celadon glaze"}, current_session_id=world["current"]
    )
    assert out["success"] and out["mode"] == "discovery"
    conversations = {r["conversation"] for r in out["results"]}
    assert conversations == {world["root"]}  # hits in the parent and in the tip: one conversation
    result = out["results"][0]
    assert result["match_message_id"] in world["r"] + world["t"]
    assert ">>>" in result["snippet"]
    assert any(m.get("anchor") for m in result["messages"])
    assert result["bookend_start"] and result["bookend_end"]
    assert set(result) >= {"session_id", "title", "when", "source", "messages_before", "messages_after"}
    json.dumps(out)


async def test_discovery_searches_compression_ended_parents(world: dict[str, Any]) -> None:
    out = await session_search(world["store"], {"query": "When does Dana start the pottery class?"})
    top = out["results"][0]
    assert top["session_id"] == world["root"] and top["match_message_id"] == world["r"][0]


async def test_discovery_skips_the_current_conversation_and_hidden_sources(world: dict[str, Any]) -> None:
    out = await session_search(
        world["store"], {"query": "kiln", "limit": 10}, current_session_id=world["current"]
    )
    sessions = {r["session_id"] for r in out["results"]}
    assert world["current"] not in sessions
    assert all(r["source"] != "subagent" for r in out["results"])
    assert sessions == {world["other"], world["tip"]}


async def test_the_current_lineage_is_excluded_even_when_it_was_compressed(world: dict[str, Any]) -> None:
    out = await session_search(world["store"], {"query": "celadon"}, current_session_id=world["tip"])
    assert out["results"] == [] and "No past session matched" in out["message"]


async def test_limit_sort_role_and_date_filters(world: dict[str, Any]) -> None:
    store = world["store"]
    one = await session_search(store, {"query": "kiln", "limit": 1})
    assert one["count"] == 1 and one["conversations_found"] >= 2
    oldest = await session_search(store, {"query": "kiln celadon", "sort": "oldest", "limit": 5})
    newest = await session_search(store, {"query": "kiln celadon", "sort": "newest", "limit": 5})
    assert [r["conversation"] for r in oldest["results"]] == [r["conversation"] for r in newest["results"]][
        ::-1
    ]
    assistant = await session_search(store, {"query": "kiln", "role_filter": "assistant", "limit": 5})
    assert all(r["match_role"] == "assistant" for r in assistant["results"])
    dated = await session_search(store, {"query": "kiln", "since": "2099-01-01"})
    assert dated["results"] == []
    source = await session_search(store, {"query": "kiln", "source": "telegram"})
    assert [r["session_id"] for r in source["results"]] == [world["other"]]


async def test_a_query_within_one_session_searches_its_whole_chain(world: dict[str, Any]) -> None:
    out = await session_search(world["store"], {"query": "celadon", "session_id": world["tip"], "limit": 5})
    assert {r["conversation"] for r in out["results"]} == {world["root"]}


async def test_scroll_shows_the_messages_around_one(world: dict[str, Any]) -> None:
    out = await session_search(
        world["store"], {"session_id": world["root"], "around_message_id": world["r"][2], "window": 1}
    )
    assert out["mode"] == "scroll"
    assert [m["id"] for m in out["messages"]] == world["r"][1:4]
    assert [m.get("anchor", False) for m in out["messages"]] == [False, True, False]
    assert (out["messages_before"], out["messages_after"]) == (1, 0)
    wrong = await session_search(
        world["store"], {"session_id": world["other"], "around_message_id": world["r"][0]}
    )
    assert not wrong["success"] and "is not in session" in wrong["error"]


async def test_read_returns_a_session_or_its_ends_when_long(world: dict[str, Any], tmp_path: Path) -> None:
    store = world["store"]
    out = await session_search(store, {"session_id": world["root"]})
    assert out["mode"] == "read" and [m["id"] for m in out["messages"]] == world["r"]
    assert out["conversation"] == [world["root"], world["tip"]]
    long = await store.create_session()
    ids = [await store.append_message(long.id, "user", f"line {i}") for i in range(45)]
    out = await session_search(store, {"session_id": long.id})
    assert [m["id"] for m in out["messages"]] == ids[:20] + ids[-10:]
    assert out["omitted"] == 15 and str(ids[20]) in out["note"]


async def test_browse_lists_recent_conversations(world: dict[str, Any]) -> None:
    out = await session_search(world["store"], {})
    assert out["mode"] == "browse"
    ids = [s["session_id"] for s in out["sessions"]]
    assert ids[0] == world["current"] and world["tip"] in ids and world["root"] not in ids
    chain = next(s for s in out["sessions"] if s["session_id"] == world["tip"])
    assert chain["sessions"] == [world["root"], world["tip"]] and chain["title"] == "Pottery"
    assert chain["preview"].startswith("[summary")


async def test_long_messages_are_cut_in_the_middle(tmp_path: Path) -> None:
    store = await SessionStore.open(tmp_path / "state.db")
    session = await store.create_session()
    await store.append_message(session.id, "tool", "start " + "x" * 10_000 + " needle end", tool_name="t")
    out = await session_search(store, {"query": "needle", "role_filter": "tool"})
    content = out["results"][0]["messages"][0]["content"]
    assert len(content) < 2200 and content.startswith("start") and content.endswith("needle end")
    await store.close()


async def test_summarize_recaps_each_conversation_with_the_injected_model(world: dict[str, Any]) -> None:
    seen: list[str] = []

    async def summarizer(transcript: str) -> str:
        seen.append(transcript)
        return "  The user planned a celadon glaze.  "

    out = await session_search(world["store"], {"query": "celadon", "summarize": True}, summarizer=summarizer)
    assert out["results"][0]["summary"] == "The user planned a celadon glaze."
    assert seen and seen[0].startswith("Search query: celadon")
    assert "[USER]:" in seen[0] and "[ASSISTANT]:" in seen[0]
    assert "past tense" in RECAP_INSTRUCTIONS


async def test_a_failing_recap_falls_back_to_a_raw_preview(world: dict[str, Any]) -> None:
    async def broken(transcript: str) -> str:
        raise TimeoutError("aux model timed out")

    out = await session_search(world["store"], {"query": "celadon", "summarize": True}, summarizer=broken)
    summary = out["results"][0]["summary"]
    assert summary.startswith("[Raw preview — summarization unavailable: TimeoutError]")


async def test_summarize_without_a_model_returns_the_raw_hits(world: dict[str, Any]) -> None:
    out = await session_search(world["store"], {"query": "celadon", "summarize": True})
    assert out["success"] and out["results"][0]["summary"] is None
    assert "raw hits" in out["results"][0]["note"]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"limit": "many", "query": "x"}, "limit must be a whole number"),
        ({"around_message_id": 3}, "needs session_id"),
        ({"sort": "random", "query": "x"}, "sort must be"),
        ({"since": "last tuesday", "query": "x"}, "since must be a date"),
        ({"query": ["a", "b"]}, "query must be a string"),
        ({"colour": "blue"}, "Unknown argument"),
        ({"session_id": "19990101_000000_000000"}, "There is no session"),
    ],
)
async def test_bad_arguments_are_answered_with_a_sentence(
    world: dict[str, Any], arguments: dict[str, Any], message: str
) -> None:
    out = await session_search(world["store"], arguments)
    assert out["success"] is False and message in out["error"]


async def test_hostile_queries_never_fail_the_tool(world: dict[str, Any]) -> None:
    for query in ['"', "AND", "C++ (x)", "数", "*", "NOT NOT", "a" * 5000]:
        out = await session_search(world["store"], {"query": query})
        assert out["success"], out
