"""MCP servers that fail: a crash mid-call, a call never answered, a server that never starts; approvals."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

from tests.support.mcp_support import finished, run, support_server, write_home

CRASH_SCENARIO = """
rules:
  - when: {iteration: 1}
    reply: {text: "Trying.", tool_calls: [{name: mcp_faulty_crash, arguments: {}}]}
  - when: {iteration: 2}
    reply: {tool_calls: [{name: mcp_faulty_echo, arguments: {text: again}}]}
  - when: {after_tool: true}
    reply: {text: "The server is gone; I carry on without it."}
"""


def test_a_server_that_crashes_mid_call_is_a_tool_error_and_the_turn_goes_on(
    hermes_home: Path, tmp_path: Path
) -> None:
    write_home(hermes_home, {"faulty": support_server("faulty", trust="allow")})
    _, events, _ = run(hermes_home, tmp_path, CRASH_SCENARIO)
    [crash] = finished(events, "mcp_faulty_crash")
    assert not crash["ok"]
    assert "The MCP server `faulty` stopped during the call" in crash["result"]
    [echo] = finished(events, "mcp_faulty_echo")  # the next call says the server is down, at once
    assert not echo["ok"] and "is not running" in echo["result"]
    assert "I carry on without it." in "".join(e.get("text", "") for e in events)


HANG_SCENARIO = """
rules:
  - when: {iteration: 1}
    reply: {tool_calls: [{name: mcp_faulty_hang, arguments: {}}]}
  - when: {iteration: 2}
    reply: {tool_calls: [{name: mcp_faulty_echo, arguments: {text: still there}}]}
  - when: {after_tool: true}
    reply: {text: "Moving on."}
"""


def test_a_call_never_answered_times_out_with_a_sentence_and_the_server_stays(
    hermes_home: Path, tmp_path: Path
) -> None:
    write_home(hermes_home, {"faulty": support_server("faulty", trust="allow", timeout=2)})
    _, events, _ = run(hermes_home, tmp_path, HANG_SCENARIO)
    [hang] = finished(events, "mcp_faulty_hang")
    assert not hang["ok"]
    assert "did not answer within 2 s; the call was cancelled" in hang["result"]
    [echo] = finished(events, "mcp_faulty_echo")
    assert echo["ok"] and echo["result"] == "echo: still there"


ANSWER = """
rules:
  - reply: {text: "Answered without the server."}
"""


def test_a_server_that_never_starts_is_one_line_and_never_delays_the_answer(
    hermes_home: Path, tmp_path: Path
) -> None:
    # it never answers; its connect timeout outlasts the run, so no line about it is due before the answer
    never = {"command": sys.executable, "args": ["-c", "import time; time.sleep(120)"], "connect_timeout": 45}
    missing = {"command": str(tmp_path / "no-such-server")}
    write_home(hermes_home, {"never": never, "missing": missing, "broken": {"url": 5, "command": "x"}})
    _, events, requests = run(hermes_home, tmp_path, ANSWER)
    text = "".join(e.get("text", "") for e in events if e["type"] == "text_delta")
    assert text == "Answered without the server."
    lines = [e["text"] for e in events if e["type"] == "status"]
    assert any(line.startswith("MCP server `missing` did not start: it could not start") for line in lines)
    assert any("MCP server `broken` is left out" in line for line in lines), lines
    assert not any("`never`" in line for line in lines)  # still starting when the answer was done
    assert len(requests) == 1


PROGRESS_SCENARIO = """
rules:
  - when: {iteration: 1}
    reply: {tool_calls: [{name: mcp_faulty_slow, arguments: {}}]}
  - when: {after_tool: true}
    reply: {text: "{{last_tool_result}}"}
"""


def test_progress_notifications_arrive_as_events_of_the_call(hermes_home: Path, tmp_path: Path) -> None:
    write_home(hermes_home, {"faulty": support_server("faulty", trust="allow")})
    _, events, _ = run(hermes_home, tmp_path, PROGRESS_SCENARIO)
    progress = [e for e in events if e["type"] == "tool_progress"]
    assert [(p["progress"], p["total"], p["message"]) for p in progress] == [
        (1.0, 3.0, "step 1"),
        (2.0, 3.0, "step 2"),
        (3.0, 3.0, "step 3"),
    ]
    [slow] = finished(events, "mcp_faulty_slow")
    assert {p["call_id"] for p in progress} == {slow["call_id"]}


ECHO_TWICE = """
rules:
  - when: {iteration: 1}
    reply: {tool_calls: [{name: mcp_faulty_echo, arguments: {text: one}}]}
  - when: {iteration: 2}
    reply: {tool_calls: [{name: mcp_faulty_echo, arguments: {text: two}}]}
  - when: {after_tool: true}
    reply: {text: "ok"}
"""


def test_trust_decides_who_asks_and_with_nobody_to_ask_a_call_is_declined(
    hermes_home: Path, tmp_path: Path
) -> None:
    for trust in ("ask", "once"):
        write_home(hermes_home, {"faulty": support_server("faulty", trust=trust)})
        done, events, _ = run(hermes_home, tmp_path, ECHO_TWICE)
        asked = [e for e in events if e["type"] == "approval_needed"]
        assert [a["rule"] for a in asked] == [f"mcp_trust_{trust}"] * 2, trust
        assert asked[0]["allow_session"] is (trust == "once")
        assert all(not e["ok"] and "declined" in e["result"] for e in finished(events, "mcp_faulty_echo"))
        assert "declined: mcp_faulty_echo" in done.stderr
    write_home(hermes_home, {"faulty": support_server("faulty")})  # mcp.default_trust: once; --yolo answers
    _, events, _ = run(hermes_home, tmp_path, ECHO_TWICE, "--yolo")
    assert [e["result"] for e in finished(events, "mcp_faulty_echo")] == ["echo: one", "echo: two"]
    assert not [e for e in events if e["type"] == "approval_needed"]


def test_the_mcp_results_are_stored_like_any_tool_result(hermes_home: Path, tmp_path: Path) -> None:
    write_home(hermes_home, {"faulty": support_server("faulty", trust="allow")})
    run(hermes_home, tmp_path, ECHO_TWICE)
    conn = sqlite3.connect(hermes_home / "state.db")
    rows = conn.execute("SELECT tool_name, content FROM messages WHERE role = 'tool' ORDER BY id").fetchall()
    conn.close()
    assert rows == [("mcp_faulty_echo", "echo: one"), ("mcp_faulty_echo", "echo: two")]


async def test_ctrl_c_cancels_a_call_in_flight_and_the_server_answers_the_next(
    hermes_home: Path, tmp_path: Path
) -> None:
    from engine.events import ToolCalled, ToolFinished, TurnFinished
    from tests.support.agent_support import make_rig, serve

    server = serve(HANG_SCENARIO)
    try:
        write_home(hermes_home, {"faulty": support_server("faulty", trust="allow")})
        rig = make_rig(server, hermes_home, tmp_path)
        await rig.agent.start()
        assert rig.agent.mcp is not None
        await rig.agent.mcp.wait_started(30)  # the call goes to a running server, not one starting
        events = []
        async for event in rig.agent.run_turn("go"):
            events.append(event)
            if isinstance(event, ToolCalled):
                await rig.agent.interrupt()  # what ctrl+c does
        [done] = [e for e in events if isinstance(e, TurnFinished)]
        assert done.interrupted
        [hang] = [e for e in events if isinstance(e, ToolFinished)]
        assert hang.interrupted and not hang.ok
        hub = rig.agent.mcp
        assert hub is not None and hub.connections["faulty"].state == "ready"
        outcome = await hub.registry.dispatch("mcp_faulty_echo", '{"text": "after"}', rig.agent.ctx)  # type: ignore[arg-type]
        assert outcome.ok and outcome.content == "echo: after"
        await rig.agent.close()
    finally:
        server.stop()
