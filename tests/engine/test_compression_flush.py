"""Phase 1, the memory flush, through the real tool loop, the real memory tool and files on disk; and
the agent's next system prompt carrying what the flush saved."""

from __future__ import annotations

import json
import textwrap
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from engine.compression.flush import SENTINEL
from engine.compression.messages import wire
from engine.events import CompressionPhase, MemoryWritten, Status
from engine.home import Home
from engine.memory.store import Memory
from engine.model_server.server import ScriptedModelServer
from engine.sessions.store import SessionStore
from engine.skills.tools import SkillTools
from engine.tools.knowledge import agent_registry
from tests.engine.test_compression import SUMMARIES, Rig, client, close_clients  # noqa: F401 (an autouse fixture)
from tests.support.agent_support import make_rig, of_type, stored_messages, write_config
from tests.support.agent_support import serve as serve_started
from tests.support.compression_support import assistant, call, conversation, result, user

FACT = "The user audits the /srv folders every Monday morning."
# The flush kind still holds on the second call (the sentinel is the last user message), so the model
# repeats its add there: the store adds nothing the second time, and only the real write is reported.
FLUSH = f"""
  - name: flush
    when: {{kind: flush}}
    reply:
      text: "Saving."
      tool_calls: [{{name: memory, arguments: {{action: add, target: user, content: "{FACT}"}}}}]
  - name: flush done
    when: {{after_tool: true, last_tool: memory}}
    reply: {{text: "Saved what matters."}}
"""


def scenario(rules: str, context_length: int = 6000) -> ScriptedModelServer:
    text = f"model: [scripted, aux]\ncontext_length: {context_length}\nrules:\n{textwrap.dedent(rules)}"
    return ScriptedModelServer.from_yaml(text)


@pytest.fixture
async def store(hermes_home: Path) -> AsyncIterator[SessionStore]:
    home = Home.resolve().ensure()
    opened = await SessionStore.open(home.state_db)
    yield opened
    await opened.close()


def knowledge_rig(home: Home, store: SessionStore, server: ScriptedModelServer, **kwargs: Any) -> Rig:
    """A rig with the agent's real registry and the stores its knowledge tools write to."""
    rig = Rig(home, store, server, registry=agent_registry(), **kwargs)
    memory = Memory(home, rig.config)
    skills = SkillTools(home, rig.config, emit=rig.events.append)
    rig.ctx.resources.update({"memory": memory, "skills": skills, "sessions": store})
    rig.ctx.emit = rig.events.append
    return rig


def flush_requests(server: ScriptedModelServer) -> list[Any]:
    return [r for r in server.chat_requests if r.tool_names]


async def test_the_flush_offers_only_the_memory_tool_and_its_write_reaches_disk(
    hermes_home: Path, store
) -> None:
    home = Home.resolve()
    with scenario(FLUSH + SUMMARIES) as server:
        rig = knowledge_rig(home, store, server)
        session_id = await rig.new_session()
        history = await rig.persist(session_id, conversation(6))
        outcome = await rig.compress(session_id, history)
        requests = flush_requests(server)
    assert requests and all(r.tool_names == ["memory"] for r in requests)
    first = requests[0]
    assert first.messages[-1]["content"] == SENTINEL
    assert "session is being compressed" in first.messages[-1]["content"]
    assert first.body.get("temperature") == 0.3
    # The conversation it saw is the one about to be compressed (shrunk by the pre-pass).
    assert any("Question 2" in str(m.get("content")) for m in first.messages)
    # The write went through the memory tool: on disk, journaled, announced.
    assert FACT in (home.memories / "USER.md").read_text(encoding="utf-8")
    memory = Memory(home)
    entry = memory.history("user")[-1]
    assert entry.action == "add" and entry.who == "agent"
    assert FACT in (memory.journal.text(entry.after_hash) or "")
    written = of_type(rig.events, MemoryWritten)
    assert len(written) == 1 and written[0].target == "user" and written[0].action == "add"
    assert outcome.flushed == (f'user add: "{FACT}"',)
    flush_phase = next(p for p in of_type(rig.events, CompressionPhase) if p.phase == "flush")
    assert flush_phase.detail["writes"] == list(outcome.flushed) and flush_phase.detail["offered"] == [
        "memory"
    ]
    # Neither the sentinel nor the flush exchange is part of the history, in memory or in the child.
    for text in [str(m.get("content")) for m in outcome.messages] + [
        m.text for m in await store.get_messages(outcome.new_session_id)
    ]:
        assert "session is being compressed" not in text and "Saved what matters" not in text
    assert not any(m.get("tool_calls") and "memory" in json.dumps(m["tool_calls"]) for m in outcome.messages)
    # The flush happened before the summary, which still ran.
    kinds = ["flush" if r.tool_names else "summary" for r in server.chat_requests]
    assert kinds[0] == "flush" and kinds[-1] == "summary"


async def test_a_task_of_many_tool_calls_in_the_middle_also_offers_skill_manage(
    hermes_home: Path, store
) -> None:
    home = Home.resolve()
    task = [user("Set up the deploy pipeline.")]
    for n in range(6):
        task += [assistant("", call(f"s{n}", "terminal", command=f"step {n}")), result(f"s{n}", "ok")]
    task += [assistant("Pipeline ready.")]
    messages = conversation(2) + task + conversation(3, start=2)
    rules = """
  - name: flush with skills
    when: {kind: flush, tools_exactly: [memory, skill_manage]}
    reply: {text: "nothing to save"}
"""
    with scenario(rules + SUMMARIES) as server:
        rig = knowledge_rig(home, store, server)
        session_id = await rig.new_session()
        outcome = await rig.compress(session_id, await rig.persist(session_id, messages))
        requests = flush_requests(server)
    assert [r.tool_names for r in requests] == [["memory", "skill_manage"]]
    assert "save it as a skill with skill_manage" in requests[0].messages[-1]["content"]
    assert outcome.compressed and outcome.flushed == ()


async def test_the_flush_is_shown_what_memory_already_holds_and_no_secrets(hermes_home: Path, store) -> None:
    home = Home.resolve()
    Memory(home).tool_call({"action": "add", "target": "memory", "content": "The build host is ci-3."})
    secret = "ghp_" + "k" * 36
    messages = [
        *conversation(3),
        user(f"Push with {secret} please."),
        assistant("Pushed."),
        *conversation(3, start=3),
    ]
    with scenario('  - {when: {kind: flush}, reply: {text: "nothing to save"}}\n' + SUMMARIES) as server:
        rig = knowledge_rig(home, store, server)
        session_id = await rig.new_session()
        await rig.compress(session_id, await rig.persist(session_id, messages))
        request = flush_requests(server)[0]
    system = request.system_prompt or ""
    assert "The build host is ci-3." in system and "USER.md (user profile)" in system
    assert secret not in request.raw.decode() and "Push with [REDACTED] please." in json.dumps(
        request.messages
    )


async def test_a_failing_flush_does_not_stop_the_compression(hermes_home: Path, store) -> None:
    home = Home.resolve()
    rules = '  - {when: {kind: flush}, fault: {kind: server_error, message: "flush broke"}}\n' + SUMMARIES
    with scenario(rules) as server:
        rig = knowledge_rig(home, store, server)
        session_id = await rig.new_session()
        outcome = await rig.compress(session_id, await rig.persist(session_id, conversation(6)))
    assert outcome.compressed and outcome.summary_source == "auxiliary" and outcome.flushed == ()
    assert any("Memory flush" in e.text and "flush broke" in e.text for e in of_type(rig.events, Status))
    assert not (home.memories / "USER.md").exists() or FACT not in (home.memories / "USER.md").read_text()


async def test_an_overflow_still_flushes_with_the_conversation_fitted_to_the_window(
    hermes_home: Path, store
) -> None:
    home = Home.resolve()
    with scenario(FLUSH + SUMMARIES, context_length=4000) as server:
        rig = knowledge_rig(home, store, server, aux=client(server, "aux", context_length=4000))
        session_id = await rig.new_session()
        history = await rig.persist(session_id, conversation(20, words=150))
        outcome = await rig.compress(session_id, history, reason="overflow", context_length=4000)
        first = flush_requests(server)[0]
    assert FACT in (home.memories / "USER.md").read_text(encoding="utf-8")
    flush_phase = next(p for p in of_type(rig.events, CompressionPhase) if p.phase == "flush")
    assert flush_phase.detail["dropped_messages"] > 0
    assert len(first.raw) // 4 < 4000  # the request fits the auxiliary window
    assert [wire(m) for m in first.messages[1:4]] == [wire(m) for m in history[:3]]  # the head is kept
    assert outcome.compressed


async def test_flush_can_be_turned_off(hermes_home: Path, store) -> None:
    home = Home.resolve()
    write_config(home.root, compression={"flush_enabled": False})
    with scenario(FLUSH + SUMMARIES) as server:
        rig = knowledge_rig(home, store, server)
        session_id = await rig.new_session()
        await rig.compress(session_id, await rig.persist(session_id, conversation(6)))
        assert flush_requests(server) == []
    flush_phase = next(p for p in of_type(rig.events, CompressionPhase) if p.phase == "flush")
    assert "flush_enabled" in flush_phase.detail["skipped"]


# --- with the agent ---------------------------------------------------------------------------------


async def test_after_a_compression_the_agents_next_prompt_holds_the_flushed_memory(
    hermes_home: Path, tmp_path: Path
) -> None:
    write_config(hermes_home, model={"context_length": 16000})
    answer = "Here is a long, careful answer about the folders. " * 60
    rules = FLUSH + SUMMARIES + f'  - reply: {{text: "{answer}"}}\n'
    server = serve_started(f"model: scripted\ncontext_length: 16000\nrules:\n{textwrap.dedent(rules)}")
    rig = make_rig(server, hermes_home, tmp_path)
    try:
        for n in range(12):
            await rig.turn(f"Tell me about folder {n}.")
            if any(r.tool_names == ["memory"] for r in server.chat_requests):
                break
        await rig.turn("And what about the next one?")
        first_session = (await rig.agent.store.tree.lineage(rig.agent.session_id))[0]
        tip = rig.agent.session_id
    finally:
        await rig.agent.close()
        server.stop()
    chats = [r for r in server.chat_requests if r.tool_names and len(r.tool_names) > 1]
    flush_at = next(i for i, r in enumerate(server.chat_requests) if r.tool_names == ["memory"])
    before = [r for r in chats if r.call < server.chat_requests[flush_at].call]
    after = [r for r in chats if r.call > server.chat_requests[flush_at].call]
    assert before and after
    assert FACT not in (before[-1].system_prompt or "")
    assert FACT in (after[0].system_prompt or ""), "the rebuilt prompt carries what the flush saved"
    assert "[CONTEXT COMPACTION — REFERENCE ONLY]" in json.dumps(after[0].messages, ensure_ascii=False)
    assert tip != first_session
    sent_keys = {key for r in server.chat_requests for m in r.messages for key in m}
    assert not [key for key in sent_keys if key.startswith("_")], "metadata never reaches the provider"
    # The parent holds each of its messages once: what the agent stored is not written again.
    texts = [m.text for m in await stored_messages(rig.home, first_session)]
    assert texts.count("Tell me about folder 0.") == 1 and texts.count("Tell me about folder 1.") == 1
