"""The agent's side of compression: when it asks, and what it does with the outcome.

The compressor itself is issue 6's. Until it is installed, these tests drive the hook with a
stand-in that follows its contract (split the session in the store, return the child's id and
its messages), so the agent's part is tested against the contract rather than assumed.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from engine.agent.errors import AgentError
from engine.events import SessionChanged, SessionTitled, Status, TurnFinished
from tests.support.agent_support import client_for, make_rig, of_type, serve, stored_messages, stored_session


@dataclass
class Outcome:
    new_session_id: str
    messages: list[dict[str, Any]]
    summary: str
    flushed: tuple[str, ...] = ()
    tokens_before: int = 0
    tokens_after: int = 0
    compressed: bool = True


@dataclass
class ContractCompressor:
    """Issue 6's interface, with the simplest body that keeps its promises."""

    store: Any
    threshold: int
    calls: list[dict[str, Any]] = field(default_factory=list)
    overfull: str = ""  # the conversation does not fit and cannot be shortened (never, here)

    def should_compress(self, estimated_tokens: int, context_length: int) -> bool:
        return estimated_tokens >= self.threshold

    async def compress(self, *, session_id: str, messages: list[dict[str, Any]], **kwargs: Any) -> Outcome:
        self.calls.append({"session_id": session_id, "messages": list(messages), **kwargs})
        child = await self.store.create_session(source="cli", parent_session_id=session_id)
        await self.store.end_session(session_id, "compression")
        last_user = max(i for i, m in enumerate(messages) if m["role"] == "user")
        kept = [{"role": "user", "content": "[Summary of earlier turns] The user said hello."}]
        kept.append({"role": "assistant", "content": "Understood."})
        kept.extend(messages[last_user:])  # the tail, with the turn in progress, is protected
        for message in kept:
            await self.store.append_message(child.id, message["role"], message["content"])
        return Outcome(child.id, kept, "The user said hello.")


async def test_threshold_compression_moves_to_the_child_session_with_a_fresh_prompt(
    hermes_home: Path, tmp_path: Path
) -> None:
    server = serve(
        """
        rules:
          - when: {turn: 1, iteration: 1}
            reply:
              tool_calls: [{name: memory, arguments: {action: add, target: memory, content: "Repo uses uv."}}]
          - when: {turn: 1}
            reply: {text: "Saved.", usage: {prompt_tokens: 60000, completion_tokens: 10}}
          - reply: {text: "Carry on."}
        """
    )
    rig = make_rig(server, hermes_home, tmp_path)
    await rig.agent.start()
    first_id = rig.agent.session_id
    compressor = ContractCompressor(rig.agent.store, threshold=50_000)
    rig.agent.compressor = compressor
    try:
        await rig.turn("remember the repo uses uv")
        events = await rig.turn("next")
        await rig.turn("and again")
        new_id = rig.agent.session_id
    finally:
        await rig.agent.close()
        server.stop()
    assert len(compressor.calls) == 1 and compressor.calls[0]["reason"] == "threshold"
    assert compressor.calls[0]["session_id"] == first_id and new_id != first_id
    changed = of_type(events, SessionChanged)
    assert (
        len(changed) == 1
        and changed[0].previous_session_id == first_id
        and changed[0].reason == "compression"
    )
    assert events[0].session_id == first_id and isinstance(events[-1], TurnFinished)
    assert events[-1].session_id == new_id, "events after the split carry the new session"

    before, after = server.chat_requests[1].system_prompt, server.chat_requests[2].system_prompt
    assert "Repo uses uv." not in (before or "") and "Repo uses uv." in (after or "")
    assert server.chat_requests[3].system_prompt == after, "the new prefix is stable again"
    sent = server.chat_requests[2].messages
    assert sent[1]["content"].startswith("[Summary of earlier turns]") and sent[-1]["content"] == "next"

    child = await stored_session(rig.home, new_id)
    assert child.parent_session_id == first_id
    assert [m.text for m in await stored_messages(rig.home, new_id)][-1] == "Carry on."

    server = serve('rules:\n  - reply: {text: "Resumed."}\n')
    resumed = make_rig(server, hermes_home, tmp_path, resume=first_id)
    try:
        await resumed.turn("where were we?")
    finally:
        await resumed.agent.close()
        server.stop()
    assert resumed.agent.session_id == new_id, "resuming the parent continues at the newest child"
    sent = server.chat_requests[0]
    assert sent.system_prompt == after and sent.messages[1]["content"].startswith(
        "[Summary of earlier turns]"
    )


async def test_a_context_length_error_compresses_and_retries_the_call(
    hermes_home: Path, tmp_path: Path
) -> None:
    server = serve(
        """
        rules:
          - {times: 1, fault: {kind: context_length, limit: 32000}}
          - reply: {text: "Fits now."}
        """
    )
    rig = make_rig(server, hermes_home, tmp_path)
    await rig.agent.start()
    compressor = ContractCompressor(rig.agent.store, threshold=10**9)
    rig.agent.compressor = compressor
    try:
        events = await rig.turn("a very long question")
    finally:
        await rig.agent.close()
        server.stop()
    assert [c["reason"] for c in compressor.calls] == ["overflow"]
    assert compressor.calls[0]["context_length"] == 32000, "the window the error taught is used"
    assert any("32,000" in s.text for s in of_type(events, Status))
    assert events[-1].text == "Fits now." and len(server.chat_requests) == 2


async def test_manual_compression_reports_through_the_background_channel(
    hermes_home: Path, tmp_path: Path
) -> None:
    server = serve('rules:\n  - reply: {text: "hi"}\n')
    rig = make_rig(server, hermes_home, tmp_path)
    await rig.agent.start()
    compressor = ContractCompressor(rig.agent.store, threshold=10**9)
    rig.agent.compressor = compressor
    try:
        await rig.turn("hello")
        outcome = await rig.agent.compress("the greeting")
    finally:
        await rig.agent.close()
        server.stop()
    assert compressor.calls[0]["reason"] == "manual" and compressor.calls[0]["focus"] == "the greeting"
    background = [e for e in rig.background if not isinstance(e, SessionTitled)]  # titling runs too
    assert [type(e) for e in background] == [SessionChanged]
    assert rig.agent.session_id == outcome.new_session_id


@pytest.mark.skipif(
    importlib.util.find_spec("engine.compression") is not None, reason="the compressor is installed"
)
async def test_without_the_compressor_installed_nothing_is_compressed(
    hermes_home: Path, tmp_path: Path
) -> None:
    server = serve('rules:\n  - reply: {text: "hi"}\n')
    rig = make_rig(server, hermes_home, tmp_path, client=client_for(server))
    try:
        await rig.turn("hello")
        assert rig.agent.compressor is None
        with pytest.raises(AgentError, match="not available"):
            await rig.agent.compress()
    finally:
        await rig.agent.close()
        server.stop()


@dataclass
class SplitFailsCompressor:
    """A compressor whose split failed: a shorter history under the same session id."""

    overfull: str = ""

    def should_compress(self, estimated_tokens: int, context_length: int) -> bool:
        return False

    async def compress(self, *, session_id: str, messages: list[dict[str, Any]], **kwargs: Any) -> Outcome:
        kept = [{"role": "user", "content": "[Summary of earlier turns] Two greetings."}, messages[-1]]
        return Outcome(session_id, kept, "Two greetings.")


async def test_a_compression_whose_split_failed_still_shortens_the_history(
    hermes_home: Path, tmp_path: Path
) -> None:
    server = serve('rules:\n  - reply: {text: "Hi."}\n')
    rig = make_rig(server, hermes_home, tmp_path)
    await rig.agent.start()
    rig.agent.compressor = SplitFailsCompressor()
    try:
        await rig.turn("hello")
        await rig.turn("hello again")
        session_id = rig.agent.session_id
        await rig.agent.compress()
        assert rig.agent.session_id == session_id
        assert rig.agent.history[0]["content"].startswith("[Summary of earlier turns]")
        assert len(rig.agent.history) == 2
    finally:
        await rig.agent.close()
        server.stop()
