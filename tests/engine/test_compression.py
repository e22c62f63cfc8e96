"""The compressor end to end: the real scripted server over HTTP, real `AsyncOpenAI`, a real state.db."""

from __future__ import annotations

import json
import textwrap
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from engine.compression.compressor import Compressor
from engine.compression.messages import is_summary, wire
from engine.config import load_config
from engine.events import CompressionFinished, CompressionPhase, CompressionStarted, Event, Status
from engine.home import Home
from engine.llm.client import LLMClient
from engine.llm.settings import ModelSettings
from engine.model_server.server import ScriptedModelServer
from engine.sessions.store import SessionStore
from engine.tools.context import TodoItem, ToolContext
from engine.tools.registry import ToolRegistry
from tests.support.compression_support import (
    assistant,
    call,
    conversation,
    pairing_problems,
    result,
    turn,
    user,
)

SYSTEM_TOKENS = 300
TOOL_TOKENS = 200
SUMMARIES = """
  - name: first summary
    when: {kind: summary, user: "Create a structured checkpoint"}
    reply: {text: "## Goal\\nFIRST-SUMMARY: audit the /srv folders one by one.\\n## Remaining Work\\nMore."}
  - name: updated summary
    when: {kind: summary, user: "You are updating a context compaction summary"}
    reply: {text: "## Goal\\nUPDATED-SUMMARY {{call}}: audit the /srv folders.\\n## Remaining Work\\nRest."}
"""


def scenario(rules: str = SUMMARIES, context_length: int = 6000) -> ScriptedModelServer:
    text = f"model: [scripted, aux]\ncontext_length: {context_length}\nrules:\n{textwrap.dedent(rules)}"
    return ScriptedModelServer.from_yaml(text)


OPEN_CLIENTS: list[LLMClient] = []


def client(server: ScriptedModelServer, model: str = "scripted", **settings: Any) -> LLMClient:
    options: dict[str, Any] = {
        "model": model,
        "max_retries": 0,
        "retry_base_delay": 0.01,
        "stale_timeout": 5.0,
    }
    options.update(settings)
    made = LLMClient(ModelSettings(base_url=server.base_url, **options))
    OPEN_CLIENTS.append(made)
    return made


@pytest.fixture(autouse=True)
async def close_clients() -> AsyncIterator[None]:
    """Each test's clients are closed inside its own event loop."""
    yield
    while OPEN_CLIENTS:
        await OPEN_CLIENTS.pop().aclose()


def summary_requests(server: ScriptedModelServer) -> list[Any]:
    return [r for r in server.chat_requests if not r.tool_names and "context checkpoint" in str(r.messages)]


class Rig:
    """A compressor wired as the agent wires it, plus what it emitted."""

    def __init__(self, home: Home, store: SessionStore, server: ScriptedModelServer, **kwargs: Any) -> None:
        self.home = home
        self.config = load_config(home.root)
        self.store = store
        self.server = server
        self.events: list[Event] = []
        self.main = kwargs.pop("main", None) or client(server)
        self.aux = kwargs.pop("aux", None) or self.main
        self.registry = kwargs.pop("registry", None) or ToolRegistry()
        self.compressor = Compressor(
            home,
            self.config,
            main_client=self.main,
            aux_client=self.aux,
            store=store,
            registry=self.registry,
            emit=self.events.append,
        )
        self.ctx = ToolContext(
            home=home, config=self.config, cwd=home.root, resources=kwargs.pop("resources", {})
        )

    async def new_session(self) -> str:
        return (await self.store.create_session(source="cli", model="scripted")).id

    async def persist(self, session_id: str, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Append each message as the agent does when it completes, recording its row id."""
        out = []
        for message in messages:
            row = await self.store.append_message(
                session_id,
                message["role"],
                message.get("content"),
                tool_calls=message.get("tool_calls"),
                tool_call_id=message.get("tool_call_id"),
            )
            out.append({**message, "_id": row})
        return out

    def estimate(self, messages: list[dict[str, Any]]) -> int:
        return self.compressor.estimate_request_tokens(SYSTEM_TOKENS, messages, TOOL_TOKENS)

    async def compress(
        self, session_id: str, messages: list[dict[str, Any]], reason: str = "threshold", **kw: Any
    ):
        return await self.compressor.compress(
            session_id=session_id,
            messages=messages,
            system_prompt_tokens=SYSTEM_TOKENS,
            tool_schema_tokens=TOOL_TOKENS,
            context_length=kw.pop("context_length", 6000),
            reason=reason,
            ctx=self.ctx,
            **kw,
        )

    def of(self, kind: type) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]


@pytest.fixture
async def store(hermes_home: Path) -> AsyncIterator[SessionStore]:
    home = Home.resolve().ensure()
    opened = await SessionStore.open(home.state_db)
    yield opened
    await opened.close()


@pytest.fixture
def home(store: SessionStore) -> Home:
    return Home.resolve()


def without_ids(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [wire(m) for m in messages]


async def drive(
    rig: Rig, turns: int, compressions_wanted: int
) -> tuple[str, list[dict[str, Any]], list[Any]]:
    """Play turns as the agent would, compressing whenever the next request passes the threshold."""
    session_id = await rig.new_session()
    history: list[dict[str, Any]] = []
    outcomes = []
    for index in range(turns):
        history += await rig.persist(session_id, turn(index))
        if rig.compressor.should_compress(rig.estimate(history), 6000):
            before = list(history)
            outcome = await rig.compress(session_id, history)
            outcomes.append((before, outcome))
            session_id, history = outcome.new_session_id, list(outcome.messages)
            if len(outcomes) == compressions_wanted:
                break
    return session_id, history, outcomes


# --- two compressions ------------------------------------------------------------------------------


async def test_two_compressions_protect_head_and_tail_and_the_second_updates_the_first(
    home: Home, store: SessionStore
) -> None:
    with scenario() as server:
        rig = Rig(home, store, server)
        _tip, history, outcomes = await drive(rig, turns=20, compressions_wanted=2)
        assert len(outcomes) == 2
        for before, outcome in outcomes:
            assert outcome.compressed and outcome.tokens_after < outcome.tokens_before
            after = outcome.messages
            assert not pairing_problems(without_ids(after))
            # The head: the first three messages, word for word (the first tool output included).
            assert without_ids(after[:3]) == without_ids(before[:3])
            assert after[2]["content"].startswith("[exit 0;")
            # The tail: at least the last four messages, word for word, the latest user message among them.
            assert without_ids(after[-4:]) == without_ids(before[-4:])
            assert any(m["role"] == "user" and "Question" in m["content"] for m in after[-4:])
            marked = [m for m in after if is_summary(m)]
            assert len(marked) == 1 and marked[0]["content"].startswith(
                "[CONTEXT COMPACTION — REFERENCE ONLY]"
            )
            assert rig.estimate(after) < rig.compressor.threshold_tokens(6000)

        first, second = summary_requests(server)
        assert "Create a structured checkpoint summary" in first.messages[-1]["content"]
        update = second.messages[-1]["content"]
        assert "You are updating a context compaction summary" in update
        assert "PREVIOUS SUMMARY:\n## Goal\nFIRST-SUMMARY: audit the /srv folders one by one." in update
        assert "FIRST-SUMMARY" not in update.split("NEW TURNS:")[1]  # merged, not summarised as a turn
        assert "UPDATED-SUMMARY" in outcomes[1][1].summary
        assert len([m for m in history if is_summary(m)]) == 1
        assert all(r.body.get("temperature") == 0.3 for r in (first, second))


async def test_the_session_chain_keeps_every_original_message_searchable(
    home: Home, store: SessionStore
) -> None:
    with scenario() as server:
        rig = Rig(home, store, server)
        tip, history, outcomes = await drive(rig, turns=20, compressions_wanted=2)
    chain = await store.tree.lineage(tip)
    assert len(chain) == 3 and chain[-1] == tip
    root, middle_session = (await store.get_session(chain[0])), (await store.get_session(chain[1]))
    assert root.end_reason == "compression" and middle_session.end_reason == "compression"
    assert middle_session.parent_session_id == root.id
    assert (await store.get_session(tip)).parent_session_id == middle_session.id
    assert (await store.get_session(tip)).ended_at is None
    # Every message the conversation ever had is stored, word for word, in a session of the chain.
    stored = {m.text for sid in chain for m in await store.get_messages(sid)}
    played = [m for before, _ in outcomes for m in before if m.get("content")]
    assert played and all(m["content"] in stored for m in played)
    root_texts = [m.text for m in await store.get_messages(root.id)]
    assert root_texts == [m["content"] or "" for m in outcomes[0][0]]  # the parent keeps all of its own
    # The compressed child holds exactly what the agent continues with.
    child_rows = await store.get_messages(tip)
    assert [r.id for r in child_rows] == outcomes[-1][1].message_ids
    assert [r.text for r in child_rows] == [m["content"] or "" for m in outcomes[-1][1].messages]
    assert all(not key.startswith("_") for m in history for key in m)  # ready for the wire as they are
    # A detail that only lived in the summarised middle is still found by search, in the root session.
    found = await store.search("srv listing line 17", limit=50)
    assert any(hit.session_id == root.id for hit in found.hits)
    folder_one = await store.search('"Question 1"', limit=50)
    assert {hit.session_id for hit in folder_one.hits} & {root.id}


async def test_events_carry_tokens_summary_and_both_session_ids(home: Home, store: SessionStore) -> None:
    with scenario() as server:
        rig = Rig(home, store, server)
        session_id = await rig.new_session()
        history = await rig.persist(session_id, conversation(6))
        outcome = await rig.compress(session_id, history, reason="manual", focus="folder 3")
    started = rig.of(CompressionStarted)[0]
    phases = rig.of(CompressionPhase)
    finished = rig.of(CompressionFinished)[0]
    assert started.reason == "manual" and started.tokens_before == outcome.tokens_before
    assert [p.phase for p in phases] == ["flush", "summarize", "split"]
    summarize = phases[1]
    assert summarize.tokens_before == outcome.tokens_before and summarize.tokens_after == outcome.tokens_after
    assert summarize.detail["summary"] == outcome.summary and summarize.detail["source"] == "auxiliary"
    assert phases[2].detail["old_session_id"] == session_id
    assert phases[2].detail["new_session_id"] == outcome.new_session_id != session_id
    assert finished.old_session_id == session_id and finished.new_session_id == outcome.new_session_id
    assert finished.summary == outcome.summary and finished.tokens_after == outcome.tokens_after
    assert "FOCUS TOPIC: folder 3" in summary_requests(server)[0].messages[-1]["content"]


async def test_old_tool_outputs_reach_the_summariser_as_one_line_descriptions(
    home: Home, store: SessionStore
) -> None:
    with scenario() as server:
        rig = Rig(home, store, server)
        session_id = await rig.new_session()
        await rig.compress(session_id, await rig.persist(session_id, conversation(6)))
        text = summary_requests(server)[0].messages[-1]["content"]
    assert "[terminal] ran `ls -la /srv/t/2` -> exit 0, 61 lines output" in text
    assert "t2 line 30 of the listing" not in text
    assert "[TOOL RESULT t2]" in text and "[USER]: Question 2" in text


async def test_secrets_never_reach_the_summariser(home: Home, store: SessionStore) -> None:
    secret = "sk-proj-" + "Q" * 30
    messages = [*conversation(2), user(f"Use the key {secret} for the deploy."), assistant("Noted.")]
    messages += conversation(3, start=2)
    with scenario() as server:
        rig = Rig(home, store, server)
        session_id = await rig.new_session()
        outcome = await rig.compress(session_id, await rig.persist(session_id, messages))
        request = summary_requests(server)[0].messages[-1]["content"]
    assert secret not in request and "Use the key [REDACTED] for the deploy." in request
    assert outcome.compressed


async def test_messages_the_agent_never_stored_are_written_to_the_parent_first(
    home: Home, store: SessionStore
) -> None:
    with scenario() as server:
        rig = Rig(home, store, server)
        session_id = await rig.new_session()
        stored = await rig.persist(session_id, conversation(4))
        unstored = conversation(2, tag="late", start=4)
        # As the agent keeps it: no row ids, so what is stored is recognised by its content.
        outcome = await rig.compress(session_id, without_ids(stored) + unstored)
    parent = [m.text for m in await store.get_messages(session_id)]
    assert all(m["content"] in parent for m in unstored if m["content"])
    assert len(parent) == len(stored) + len(unstored)
    assert rig.of(CompressionPhase)[-1].detail["saved_to_parent"] == len(unstored)
    assert outcome.new_session_id != session_id


# --- failures ---------------------------------------------------------------------------------------


FAILING_AUX = (
    """
  - name: auxiliary down
    when: {model: "^aux$"}
    fault: {kind: server_error, message: "aux is down"}
"""
    + SUMMARIES
)


async def test_a_failing_auxiliary_model_is_retried_once_with_the_main_model(
    home: Home, store: SessionStore
) -> None:
    with scenario(FAILING_AUX) as server:
        rig = Rig(home, store, server, aux=client(server, "aux"))
        session_id = await rig.new_session()
        outcome = await rig.compress(session_id, await rig.persist(session_id, conversation(6)))
        models = [r.body["model"] for r in server.chat_requests]
    assert models == ["aux", "scripted"]
    assert outcome.compressed and outcome.summary_source == "main" and "FIRST-SUMMARY" in outcome.summary
    warnings = [e.text for e in rig.of(Status) if e.level == "warning"]
    assert any("aux is down" in w and "trying the main model" in w for w in warnings)


ALL_DOWN = """
  - name: everything is down
    fault: {kind: server_error, message: "provider outage"}
"""


async def test_when_no_model_answers_the_deterministic_summary_is_used_and_the_turn_goes_on(
    home: Home, store: SessionStore
) -> None:
    with scenario(ALL_DOWN) as server:
        rig = Rig(home, store, server, aux=client(server, "aux"))
        session_id = await rig.new_session()
        history = await rig.persist(session_id, conversation(6))
        outcome = await rig.compress(session_id, history)
        assert [r.body["model"] for r in server.chat_requests] == ["aux", "scripted"]
        assert outcome.compressed and outcome.summary_source == "fallback"
        assert outcome.summary.startswith("(Built without a model")
        assert "terminal(command=ls -la /srv/t/2)" in outcome.summary
        assert outcome.new_session_id != session_id and not pairing_problems(without_ids(outcome.messages))
        # Within the cooldown the next compression does not wait on the dead provider again.
        more = outcome.messages + await rig.persist(outcome.new_session_id, conversation(5, tag="u"))
        again = await rig.compress(outcome.new_session_id, more)
        assert len(server.chat_requests) == 2 and again.summary_source == "fallback"
        summarize = [p for p in rig.of(CompressionPhase) if p.phase == "summarize"][-1]
        assert "cooling down" in " ".join(summarize.detail["errors"])


async def test_abort_on_summary_failure_keeps_the_conversation_whole(home: Home, store: SessionStore) -> None:
    home.config_file.write_text("compression:\n  abort_on_summary_failure: true\n")
    with scenario(ALL_DOWN) as server:
        rig = Rig(home, store, server)
        session_id = await rig.new_session()
        history = await rig.persist(session_id, conversation(6))
        outcome = await rig.compress(session_id, history)
    assert not outcome.compressed and outcome.messages == history and outcome.new_session_id == session_id
    assert (await store.get_session(session_id)).ended_at is None
    assert await store.tree.children(session_id) == []
    assert any(e.level == "error" and "/compress" in e.text for e in rig.of(Status))
    assert not rig.compressor.should_compress(10**6, 6000)


async def test_a_store_that_cannot_be_written_leaves_the_compressed_history_in_memory(
    home: Home, store: SessionStore, tmp_path: Path
) -> None:
    session_id = await store.create_session(source="cli")
    session_id = session_id.id
    read_only = await SessionStore.open(home.state_db, read_only=True)
    try:
        with scenario() as server:
            rig = Rig(home, read_only, server)
            outcome = await rig.compress(session_id, conversation(6))
    finally:
        await read_only.close()
    assert outcome.compressed and outcome.new_session_id == session_id
    assert len(outcome.messages) < 24 and outcome.note.startswith("The session could not be split")
    assert any(e.level == "warning" for e in rig.of(Status))


async def test_a_broken_event_sink_or_bad_input_never_fails_the_turn(home: Home, store: SessionStore) -> None:
    def explode(event: Event) -> None:
        raise RuntimeError("sink broke")

    with scenario() as server:
        rig = Rig(home, store, server)
        rig.compressor.emit = explode
        session_id = await rig.new_session()
        outcome = await rig.compress(session_id, await rig.persist(session_id, conversation(6)))
        assert outcome.compressed
        weird = [
            {"role": "tool", "tool_call_id": "nobody", "content": None},
            {"role": "user", "content": None},
        ]
        odd = await rig.compress(outcome.new_session_id, weird * 6, reason="nonsense")
    assert odd.reason == "manual" and odd.new_session_id


# --- anti-thrash ------------------------------------------------------------------------------------


async def test_two_compressions_that_save_too_little_stop_automatic_compression(
    home: Home, store: SessionStore
) -> None:
    huge_tail = [user("Read the log."), assistant("", call("big", "read_file", path="/var/log/app.log"))]
    huge_tail += [result("big", "log line\n" * 2400), assistant("It is long.")]
    with scenario() as server:
        rig = Rig(home, store, server)
        session_id = await rig.new_session()
        history = await rig.persist(
            session_id, [user("hi"), assistant("hello"), user("more"), assistant("ok")]
        )
        history += await rig.persist(session_id, [user("x " * 150), assistant("y " * 150), *huge_tail])
        assert rig.compressor.should_compress(rig.estimate(history), 16_000)
        for _ in range(2):
            outcome = await rig.compress(session_id, history, context_length=16_000)
            session_id, history = outcome.new_session_id, list(outcome.messages)
            assert outcome.saved_share < 0.10
        assert rig.compressor.auto_stopped
        assert not rig.compressor.should_compress(10**6, 16_000)
        stopped = [e for e in rig.of(Status) if "Automatic compression is off" in e.text]
        assert len(stopped) == 1 and "/compress" in stopped[0].text
        # A manual compression that does save enough turns automatic compression back on.
        history += await rig.persist(session_id, conversation(12, tag="v"))
        outcome = await rig.compress(session_id, history, reason="manual", context_length=16_000)
        assert outcome.saved_share >= 0.10
        assert rig.compressor.should_compress(10**6, 16_000)


async def test_nothing_to_compress_is_reported_and_counts_against_thrash(
    home: Home, store: SessionStore
) -> None:
    with scenario() as server:
        rig = Rig(home, store, server)
        session_id = await rig.new_session()
        history = await rig.persist(session_id, conversation(1))
        outcome = await rig.compress(session_id, history)
        assert not outcome.compressed and outcome.new_session_id == session_id and outcome.messages == history
        assert "Nothing to compress" in outcome.note and server.chat_requests == []
        await rig.compress(session_id, history)
        assert rig.compressor.auto_stopped


# --- overflow and big middles -----------------------------------------------------------------------


async def test_an_overflow_with_a_huge_tail_cuts_old_tail_outputs_to_fit(
    home: Home, store: SessionStore
) -> None:
    tail = [user("Compare the two dumps."), assistant("", call("d1", "read_file", path="a.sql"))]
    tail += [result("d1", "INSERT a;\n" * 4000), assistant("", call("d2", "read_file", path="b.sql"))]
    tail += [result("d2", "INSERT b;\n" * 4000), assistant("They differ.")]
    with scenario() as server:
        rig = Rig(home, store, server)
        session_id = await rig.new_session()
        history = await rig.persist(session_id, conversation(4) + tail)
        outcome = await rig.compress(session_id, history, reason="overflow", context_length=16_000)
    assert outcome.tokens_after <= rig.compressor.threshold_tokens(16_000)
    assert any("output cut from" in str(m.get("content")) for m in outcome.messages)
    assert outcome.messages[-1]["content"] == "They differ."
    parent = [m.text for m in await store.get_messages(session_id)]
    assert "INSERT a;\n" * 4000 in parent  # the parent still has the whole output


async def test_a_middle_larger_than_the_summariser_reads_is_summarised_in_updating_chunks(
    home: Home, store: SessionStore
) -> None:
    with scenario(context_length=3000) as server:
        rig = Rig(home, store, server, aux=client(server, "aux", context_length=3000))
        session_id = await rig.new_session()
        history = await rig.persist(session_id, conversation(14, words=700))
        outcome = await rig.compress(session_id, history, context_length=100_000)
        requests = summary_requests(server)
    assert len(requests) == rig.config.compression.summary_max_calls
    texts = [r.messages[-1]["content"] for r in requests]
    assert "PREVIOUS SUMMARY:\n(Built without a model" in texts[0]  # the oldest part, digested
    for later in texts[1:]:
        assert "PREVIOUS SUMMARY:\n## Goal\n" in later
    assert outcome.summary_source == "auxiliary" and "UPDATED-SUMMARY" in outcome.summary
    summarize = next(p for p in rig.of(CompressionPhase) if p.phase == "summarize")
    assert summarize.detail["digested_without_model"] > 0 and summarize.detail["calls"] == len(requests)
    assert json.dumps(summarize.detail)  # the timeline can store it as it is


async def test_open_tasks_ride_along_in_the_summary_and_are_replaced_next_time(
    home: Home, store: SessionStore
) -> None:
    with scenario() as server:
        rig = Rig(home, store, server)
        rig.ctx.state.todos = [
            TodoItem(1, "audit /srv/a", "done"),
            TodoItem(2, "audit /srv/b", "in_progress"),
        ]
        session_id = await rig.new_session()
        first = await rig.compress(session_id, await rig.persist(session_id, conversation(6)))
        assert (
            "Task List (current, from the todo tool)\n1. [x] audit /srv/a\n2. [>] audit /srv/b"
            in first.summary
        )
        rig.ctx.state.todos[1].status = "done"
        rig.ctx.state.todos.append(TodoItem(3, "write the report"))
        more = first.messages + await rig.persist(first.new_session_id, conversation(5, tag="u"))
        second = await rig.compress(first.new_session_id, more)
        update = summary_requests(server)[1].messages[-1]["content"]
    assert "Task List" not in update  # the old list is not handed to the summariser as history
    assert second.summary.count("Task List (current") == 1 and "3. [ ] write the report" in second.summary
