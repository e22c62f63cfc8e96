"""`Agent.steer()` (/steer TEXT) and `Agent.run_user_shell()` (!CMD) against the scripted model: steering
text reaches the model at the next tool boundary, stored in order; a command the person runs in the
session's shell reaches neither the model nor state.db."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engine.events import ShellRan, ToolCalled, TurnFinished, TurnSteered, UserMessageStored
from tests.support.agent_support import make_rig, serve, stored_messages

TOOL_THEN_ANSWER = """
rules:
  - name: title
    when: {kind: title}
    reply: {text: "Steering"}
  - name: after a tool
    when: {after_tool: true}
    reply: {text: "Done after the tool"}
  - name: steered
    when: {user: "(?i)be brief"}
    reply: {text: "Brief answer"}
  - name: plain
    when: {user: "(?i)^plain"}
    reply: {text: "Plain answer"}
  - name: run
    reply:
      text: "Running."
      tool_calls:
        - name: terminal
          arguments: {command: "sleep 0.3; echo ran"}
"""


def asked(request: Any) -> list[tuple[str, str]]:
    return [(m["role"], m["content"] or "") for m in request.messages if m["role"] != "system"]


async def test_a_steer_reaches_the_model_at_the_next_tool_boundary(hermes_home: Path, tmp_path: Path) -> None:
    server = serve(TOOL_THEN_ANSWER)
    rig = make_rig(server, hermes_home, tmp_path, yolo=True)
    seen: list[Any] = []
    try:
        assert rig.agent.steer("too early") is False  # no turn runs: the caller sends it instead
        async for event in rig.agent.run_turn("do the thing"):
            seen.append(event)
            first_call = isinstance(event, ToolCalled) and sum(isinstance(e, ToolCalled) for e in seen) == 1
            if first_call:  # the tool runs now: the boundary comes after it
                assert rig.agent.steer("also check the logs") is True
                assert rig.agent.steer("and be brief") is True
        assert rig.agent.take_steers() == []
        chats = [r for r in server.chat_requests if r.rule != "title"]
        assert len(chats) == 2
        second = asked(chats[1])
        assert second[0] == ("user", "do the thing")
        assert second[1][0] == "assistant" and second[2][0] == "tool" and "ran" in second[2][1]
        assert second[3:] == [("user", "also check the logs"), ("user", "and be brief")]
        steered = [e for e in seen if isinstance(e, TurnSteered)]
        assert [e.text for e in steered] == ["also check the logs", "and be brief"]
        assert isinstance(seen[-1], TurnFinished)
        await rig.settle()
        stored = await stored_messages(rig.home, rig.agent.session_id)
        users = [(m.id, m.content) for m in stored if m.role == "user"]
        assert [c for _i, c in users] == ["do the thing", "also check the logs", "and be brief"]
        assert [i for i, _c in users[1:]] == [e.message_id for e in steered]
    finally:
        await rig.agent.close()
        server.stop()


async def test_a_steer_the_turn_never_reached_is_handed_back(hermes_home: Path, tmp_path: Path) -> None:
    server = serve(TOOL_THEN_ANSWER)
    rig = make_rig(server, hermes_home, tmp_path)
    try:
        async for event in rig.agent.run_turn("plain question"):
            if isinstance(event, UserMessageStored):
                assert rig.agent.steer("a thought") is True
        assert rig.agent.take_steers() == ["a thought"]
        assert rig.agent.take_steers() == []
        request = [r for r in server.chat_requests if r.rule == "plain"][-1]
        assert "a thought" not in str(request.messages)
    finally:
        await rig.agent.close()
        server.stop()


async def test_a_user_shell_command_shows_its_output_and_records_nothing(
    hermes_home: Path, tmp_path: Path
) -> None:
    server = serve(TOOL_THEN_ANSWER)
    rig = make_rig(server, hermes_home, tmp_path)
    (rig.cwd / "notes.txt").write_text("x", encoding="utf-8")
    try:
        events = [e async for e in rig.agent.run_user_shell("ls")]
        ran = events[-1]
        assert isinstance(ran, ShellRan) and ran.ok and "notes.txt" in ran.output, events
        assert ran.command == "ls" and ran.session_id == rig.agent.session_id
        assert server.chat_requests == [] and rig.agent.history == []
        assert await stored_messages(rig.home, rig.agent.session_id) == []
        await rig.turn("plain again")
        request = [r for r in server.chat_requests if r.rule == "plain"][-1]
        assert "notes.txt" not in str(request.messages)
    finally:
        await rig.agent.close()
        server.stop()
