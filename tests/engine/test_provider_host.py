"""The provider host with the real Honcho SDK against the local test server: mirroring, prefetch, faults."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.events import Event, Status
from engine.providers.host import LAYER_CACHED, ProviderHost
from tests.support.honcho_server import HonchoTestServer
from tests.support.provider_support import make_host

WAIT = 10.0  # upper bound for background work in tests; never a timing assertion


@pytest.fixture
def server() -> Iterator[HonchoTestServer]:
    with HonchoTestServer() as srv:
        yield srv


@pytest.fixture
def events() -> list[Event]:
    return []


@pytest.fixture
def host(server: HonchoTestServer, hermes_home: Path, events: list[Event]) -> Iterator[ProviderHost]:
    made = make_host(hermes_home, server.url, events)
    yield made
    made.close()


def statuses(events: list[Event]) -> list[Status]:
    return [e for e in events if isinstance(e, Status)]


def test_messages_are_mirrored_to_the_right_peers_in_order(
    server: HonchoTestServer, host: ProviderHost
) -> None:
    host.start("20260101_120000_abc123")
    assert host.mirror("user", "I prefer dark themes. I hate light themes.")
    assert host.mirror("assistant", "I will use a dark palette for the navbar.")
    assert not host.mirror("tool", '{"ok": true}'), "tool results belong to neither peer"
    assert not host.mirror("assistant", "   "), "an empty assistant message (tool calls only) is skipped"
    assert host.mirror("user", "Thanks, that works.")
    assert host.drain(WAIT)

    stored = server.messages("hermes", "20260101_120000_abc123")
    assert [(m.peer_id, m.content) for m in stored] == [
        ("user", "I prefer dark themes. I hate light themes."),
        ("hermes", "I will use a dark palette for the navbar."),
        ("user", "Thanks, that works."),
    ]
    assert [m.metadata["role"] for m in stored] == ["user", "assistant", "user"]
    workspace = server.workspaces["hermes"]
    assert workspace.peers["user"].configuration == {"observe_me": True}
    assert workspace.peers["hermes"].configuration == {"observe_me": True}
    session = workspace.sessions["20260101_120000_abc123"]
    assert session.peers["user"]["observe_me"] and session.peers["hermes"]["observe_me"]
    assert session.metadata["local_session_id"] == "20260101_120000_abc123"
    assert host.status().mirrored == 3 and host.status().state == "ok"


def test_first_turn_pays_the_round_trip_and_the_layer_is_taken_once(
    server: HonchoTestServer, host: ProviderHost
) -> None:
    host.start("s1")
    host.mirror("user", "I prefer dark themes.")
    assert host.drain(WAIT)

    layer = host.turn_layer_sync("Make the navbar dark, please.")
    assert layer is not None
    assert "External memory" in layer and "user prefers dark themes" in layer
    assert (
        server.recorded("POST /v3/workspaces/hermes/peers/user/chat")[-1]
        .body["query"]
        .count("Make the navbar dark")
    )
    # Destructive read: the same context is never handed to a second turn.
    assert host.take_layer() is None
    assert host.turn_layer_sync("And the footer?") is None, "later turns never wait for a fetch"


def test_after_turn_prefetch_feeds_exactly_the_next_turn(
    server: HonchoTestServer, host: ProviderHost
) -> None:
    host.start("s1")
    assert host.turn_layer_sync("hello") is None  # nothing known yet: no layer, but the turn goes on
    host.mirror("user", "hello")
    host.mirror("user", "I use vim and tmux.")
    host.mirror("assistant", "Noted: vim and tmux.")
    host.after_turn("I use vim and tmux.")
    assert host.drain(WAIT)
    assert host.status().layer_ready

    first = host.take_layer()
    assert first is not None and "user uses vim and tmux" in first
    assert host.take_layer() is None
    chats = server.recorded("/peers/user/chat")
    assert "I use vim and tmux." in chats[-1].body["query"]


def test_turn_calls_return_while_the_server_holds_every_request(
    server: HonchoTestServer, host: ProviderHost
) -> None:
    host.start("s1")
    host.mirror("user", "I prefer dark themes.")
    host.after_turn("I prefer dark themes.")
    assert host.drain(WAIT)
    assert host.take_layer() is not None

    hold = server.hold()
    host.mirror("user", "Now the footer.")
    host.mirror("assistant", "Done.")
    host.after_turn("Now the footer.")
    assert hold.wait_held(1, WAIT)
    # The server is holding the mirror call right now, and every turn-side call still returns:
    assert host.take_layer() is None
    assert host.turn_layer_sync("next question") is None
    assert asyncio.run(host.turn_layer("next question")) is None
    assert host.mirror("user", "next question")
    assert host.status().pending >= 1
    hold.release()
    assert host.drain(WAIT)
    assert [m.content for m in server.messages("hermes", "s1")][-3:] == [
        "Now the footer.",
        "Done.",
        "next question",
    ]
    assert host.take_layer() is not None, "the late prefetch lands for the turn after"


def test_a_first_turn_waits_at_most_first_turn_wait(server: HonchoTestServer, hermes_home: Path) -> None:
    host = make_host(hermes_home, server.url, external_memory={"first_turn_wait": 0.2})
    try:
        hold = server.hold()
        host.start("s1")
        assert asyncio.run(host.turn_layer("hi")) is None, "the provider is held, the turn goes on without it"
        assert hold.wait_held(1, WAIT), "the provider call is still waiting in the server"
        hold.release()
        assert host.drain(WAIT)
    finally:
        host.close()


def test_a_timing_out_provider_leaves_turns_alone_reports_and_catches_up(
    server: HonchoTestServer, host: ProviderHost, events: list[Event]
) -> None:
    host.start("s1")
    host.mirror("user", "I prefer dark themes.")
    assert host.drain(WAIT)
    stall = server.stall(60.0, match="/messages")  # the server stop cuts it short
    host.mirror("user", "first")
    host.mirror("assistant", "second")
    assert host.drain(WAIT)
    status = host.status()
    assert status.state == "down"
    host.after_turn("first")  # reads still answer: the layer comes, and the state says what is missing
    assert host.drain(WAIT)
    assert host.take_layer() is not None

    status = host.status()
    assert status.state == "degraded"
    assert "did not answer within 0.5 s" in status.last_error
    assert status.unsent == 2, "undelivered messages are kept, not lost"
    warnings = [s for s in statuses(events) if s.level == "warning"]
    assert warnings and "Turns go on without honcho" in warnings[0].text
    assert warnings[0].session_id == "s1"

    server.clear_faults()
    stall.release()
    host.mirror("user", "third")
    assert host.drain(WAIT)
    contents = [m.content for m in server.messages("hermes", "s1")]
    assert contents == ["I prefer dark themes.", "first", "second", "third"], "delivered once, in order"
    assert host.status().state == "ok"
    assert any(s.level == "info" and "answers again" in s.text for s in statuses(events))


def test_a_500_is_reported_once_and_the_turn_still_gets_its_answer(
    server: HonchoTestServer, host: ProviderHost, events: list[Event]
) -> None:
    server.fail(500)
    host.start("s1")
    host.mirror("user", "hello")
    host.after_turn("hello")
    assert host.turn_layer_sync("hello") is None
    assert host.drain(WAIT)

    status = host.status()
    assert status.state == "down" and "HTTP 500" in status.last_error
    texts = [s.text for s in statuses(events)]
    assert len(texts) == len(set(texts)), "one event per distinct problem, not one per failed call"
    assert all("Turns go on without honcho" in t for t in texts)
    # max_retries is 0 in these tests: each call reached the server exactly once.
    assert len(server.recorded("POST /v3/workspaces")) >= 1
    assert all(r.status == 500 for r in server.requests)


def test_a_dropped_connection_is_a_sentence_not_a_traceback(
    server: HonchoTestServer, host: ProviderHost
) -> None:
    server.drop()
    host.start("s1")
    assert host.drain(WAIT)
    assert "cannot reach Honcho" in host.status().last_error


def test_compression_split_opens_a_linked_session_and_keeps_the_context(
    server: HonchoTestServer, host: ProviderHost
) -> None:
    host.start("s1")
    host.mirror("user", "I prefer dark themes.")
    host.after_turn("I prefer dark themes.")
    assert host.drain(WAIT)

    host.split("s1", "s2")
    host.mirror("assistant", "Continuing after compression.")
    assert host.drain(WAIT)
    sessions = server.workspaces["hermes"].sessions
    assert sessions["s2"].metadata["parent_session_id"] == "s1"
    assert sessions["s1"].metadata["continued_in"] == "s2"
    assert [m.content for m in sessions["s2"].messages] == ["Continuing after compression."]
    assert host.take_layer() is not None, "a split is not a new first turn; the prefetched context stays"


def test_a_new_session_drops_the_old_sessions_layer(server: HonchoTestServer, host: ProviderHost) -> None:
    host.start("s1")
    host.mirror("user", "I prefer dark themes.")
    host.after_turn("x")
    assert host.drain(WAIT)
    host.start("s2")
    assert host.take_layer() is None


def test_long_messages_are_sent_in_parts(server: HonchoTestServer, hermes_home: Path) -> None:
    host = make_host(hermes_home, server.url, honcho={"message_max_chars": 1000})
    try:
        host.start("s1")
        text = "\n".join(f"line {i} " + "x" * 60 for i in range(50))
        host.mirror("assistant", text)
        assert host.drain(WAIT)
        parts = server.messages("hermes", "s1")
        assert len(parts) > 1 and all(len(p.content) <= 1000 for p in parts)
        assert [p.metadata["part"] for p in parts] == [f"{i}/{len(parts)}" for i in range(1, len(parts) + 1)]
        assert "".join(p.content.replace("\n", "") for p in parts) == text.replace("\n", "")
    finally:
        host.close()


def test_local_session_ids_honcho_refuses_are_mapped(server: HonchoTestServer, host: ProviderHost) -> None:
    host.start("cli:2026-01-01 12:00")
    host.mirror("user", "hi")
    assert host.drain(WAIT)
    (remote,) = server.workspaces["hermes"].sessions
    assert remote.startswith("cli-2026-01-01-12-00-")
    assert server.workspaces["hermes"].sessions[remote].metadata["local_session_id"] == "cli:2026-01-01 12:00"


def test_the_layer_is_ephemeral_and_capped(server: HonchoTestServer, hermes_home: Path) -> None:
    host = make_host(hermes_home, server.url, external_memory={"layer_max_tokens": 60})
    try:
        host.start("s1")
        for i in range(30):
            host.mirror("user", f"I maintain project number {i} written in Go.")
        host.after_turn("projects")
        assert host.drain(WAIT)
        layer = host.take_layer()
        from engine.text import tokens

        assert layer is not None and tokens.count(layer) <= 60
        assert LAYER_CACHED is False
    finally:
        host.close()


def test_the_api_key_comes_from_dotenv(hermes_home: Path) -> None:
    with HonchoTestServer(api_key="sekrit-key") as srv:
        hermes_home.mkdir(parents=True, exist_ok=True)
        (hermes_home / ".env").write_text("HONCHO_API_KEY=sekrit-key\n", encoding="utf-8")
        host = make_host(hermes_home, srv.url)
        try:
            host.start("s1")
            host.mirror("user", "hi")
            assert host.drain(WAIT)
            assert host.status().state == "ok"
            assert srv.requests[0].headers["authorization"] == "Bearer ***"
        finally:
            host.close()
        (hermes_home / ".env").write_text("HONCHO_API_KEY=wrong\n", encoding="utf-8")
        events: list[Event] = []
        host = make_host(hermes_home, srv.url, events)
        try:
            host.start("s1")
            assert host.drain(WAIT)
            assert "refused the API key (HTTP 401)" in host.status().last_error
        finally:
            host.close()


def test_dialectic_questions_run_in_the_background(server: HonchoTestServer, host: ProviderHost) -> None:
    host.start("s1")
    host.mirror("user", "I prefer dark themes for every editor.")
    answer = host.dialectic("Which themes does the user like?").result(WAIT)
    assert "user prefers dark themes" in answer


def test_close_releases_the_provider_and_stops_reporting(
    server: HonchoTestServer, host: ProviderHost
) -> None:
    host.start("s1")
    host.mirror("user", "bye")
    final = host.close()
    assert final.state == "closed" and final.mirrored == 1
    assert not host.mirror("user", "after close")
    assert host.turn_layer_sync("after close") is None


def test_invisible_characters_from_the_provider_never_reach_the_prompt(
    server: HonchoTestServer, host: ProviderHost
) -> None:
    host.start("s1")
    host.mirror("user", "I prefer dark\u200b themes\u202e.")
    host.after_turn("x")
    assert host.drain(WAIT)
    layer = host.take_layer()
    assert layer is not None and "user prefers dark themes" in layer
    assert "\u200b" not in layer and "\u202e" not in layer
