"""`delegate_task` end to end through `hws run`: children in state.db, their summaries, their limits.

Two model servers where it matters which model answers: `hws run --scenario` plays the parent, and
a second scripted server (in this process, `delegation.base_url`) answers the children, so nothing
a child is asked can be answered by the parent's script by mistake. The background test uses one
scenario whose rules tell the two apart with the built-in `subagent` kind.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path
from typing import Any

from engine.model_server.server import ScriptedModelServer
from tests.support.fault_support import assert_clean_exit, hws, write_config, write_scenario

PARENT = """
name: parent
rules:
  - name: delegate
    when: {iteration: 1, user: "(?i)count"}
    reply:
      tool_calls:
        - name: delegate_task
          arguments:
            tasks:
              - {goal: "Count the lines of a.txt", context: "It is in the working folder."}
              - {goal: "Count the lines of b.txt"}
  - name: answer
    when: {last_tool: delegate_task}
    reply: {text: "Both counted."}
"""

CHILDREN = r"""
name: children
rules:
  - name: a-reads
    when: {kind: subagent, user: "a\\.txt", iteration: 1}
    reply:
      delay: 0.4
      tool_calls:
        - {name: read_file, arguments: {path: a.txt}}
        - {name: memory, arguments: {action: add, target: memory, content: "a.txt lists three fruits"}}
  - name: a-sums
    when: {kind: subagent, user: "a\\.txt", after_tool: true}
    reply: {text: "SUMMARY-A: a.txt has 3 lines."}
  - name: b-reads
    when: {kind: subagent, user: "b\\.txt", iteration: 1}
    reply:
      delay: 0.4
      tool_calls: [{name: read_file, arguments: {path: b.txt}}]
  - name: b-sums
    when: {kind: subagent, user: "b\\.txt", after_tool: true}
    reply: {text: "SUMMARY-B: b.txt has 2 lines."}
"""

BACKGROUND = r"""
name: background
rules:
  - name: child
    when: {kind: subagent}
    reply: {delay: 1.5, text: "SUMMARY-C: c.txt has 1 line."}
  - name: delegate
    when: {iteration: 1, user: "(?i)background"}
    reply:
      tool_calls:
        - {name: delegate_task, arguments: {goal: "Count the lines of c.txt", background: true}}
  - name: answer
    when: {last_tool: delegate_task}
    reply: {text: "Started it; the count comes later."}
"""


def _events(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    (project / "a.txt").write_text("apple\npear\nplum\n")
    (project / "b.txt").write_text("one\ntwo\n")
    return project


def _sessions(home: Path) -> list[sqlite3.Row]:
    conn = sqlite3.connect(home / "state.db")
    conn.row_factory = sqlite3.Row
    try:
        return conn.execute("SELECT * FROM sessions ORDER BY started_at").fetchall()
    finally:
        conn.close()


def _messages(home: Path, session_id: str) -> list[tuple[str, str]]:
    conn = sqlite3.connect(home / "state.db")
    try:
        rows = conn.execute(
            "SELECT role, COALESCE(content, '') FROM messages WHERE session_id = ? ORDER BY id", (session_id,)
        )
        return [(r[0], r[1]) for r in rows]
    finally:
        conn.close()


def test_two_children_at_once_their_sessions_and_summaries(tmp_path: Path, hermes_home: Path) -> None:
    home = hermes_home
    project = _project(tmp_path)
    parent = write_scenario(tmp_path, PARENT, "parent.yaml")
    log = tmp_path / "parent.jsonl"
    with ScriptedModelServer.from_yaml(CHILDREN) as children:
        write_config(home, delegation={"base_url": children.base_url, "model": "child-model"})
        done = hws(
            "run", "--json", "--scenario", str(parent), "--request-log", str(log), "--cwd", str(project),
            "count the lines of both files", home=home,
        )  # fmt: skip
        child_requests = list(children.chat_requests)
    assert_clean_exit(done, (0,))
    events = _events(done.stdout)
    kinds = [e["type"] for e in events]
    started = [e for e in events if e["type"] == "subagent_started"]
    finished = [e for e in events if e["type"] == "subagent_finished"]
    assert len(started) == 2 and len(finished) == 2, kinds
    # At once: both children started before either ended, and each asked the child server first.
    assert max(kinds.index("subagent_started"), len(kinds) - 1 - kinds[::-1].index("subagent_started")) < (
        kinds.index("subagent_finished")
    )
    firsts = [r for r in child_requests if r.rule in ("a-reads", "b-reads")]
    lasts = [r for r in child_requests if r.rule in ("a-sums", "b-sums")]
    assert len(firsts) == 2 and len(lasts) == 2
    assert max(r.received_at for r in firsts) < min(r.received_at for r in lasts)
    assert all(r.body.get("model") == "child-model" for r in child_requests)
    assert all("delegate_task" not in r.tool_names and "clarify" not in r.tool_names for r in child_requests)

    # Both sessions in state.db, linked to the parent, hidden as subagents.
    rows = _sessions(home)
    parent_row = next(r for r in rows if r["source"] == "cli")
    kids = [r for r in rows if r["source"] == "subagent"]
    assert {r["id"] for r in kids} == {e["child_session_id"] for e in started}
    assert all(r["parent_session_id"] == parent_row["id"] for r in kids)
    assert all(json.loads(r["model_config"])["_delegate_from"] == parent_row["id"] for r in kids)
    assert all(r["end_reason"] == "subagent_completed" for r in kids)

    # The parent's next call carries both summaries and both child session ids.
    requests = [json.loads(line) for line in log.read_text().splitlines()]
    after = requests[-1]["body"]["messages"][-1]
    assert after["role"] == "tool"
    result = json.loads(after["content"])
    assert [r["summary"] for r in result["results"]] == [
        "SUMMARY-A: a.txt has 3 lines.",
        "SUMMARY-B: b.txt has 2 lines.",
    ]
    assert {r["session_id"] for r in result["results"]} == {r["id"] for r in kids}

    # The child's memory write was refused: MEMORY.md untouched, the refusal in its session.
    memory_file = home / "memories" / "MEMORY.md"
    assert not memory_file.exists() or "three fruits" not in memory_file.read_text()
    child_a = next(e["child_session_id"] for e in started if "a.txt" in e["goal"])
    tool_results = [content for role, content in _messages(home, child_a) if role == "tool"]
    assert any("delegation.allow_memory is off" in c for c in tool_results), tool_results
    assert any("apple" in c for c in tool_results)

    # session_search leaves the children out unless asked for them by source.
    found = asyncio.run(_search(home, {"query": "SUMMARY"}))
    assert found.get("success", True) and not found["results"], found
    found = asyncio.run(_search(home, {"query": "SUMMARY", "source": "subagent"}))
    assert {r["session_id"] for r in found["results"]} <= {r["id"] for r in kids} and found["results"]


async def _search(home: Path, arguments: dict[str, Any]) -> dict[str, Any]:
    from engine.sessions.session_search import session_search
    from engine.sessions.store import SessionStore

    store = await SessionStore.open(home / "state.db")
    try:
        return await session_search(store, arguments)
    finally:
        await store.close()


def test_background_child_result_arrives_after_the_parent_answered(tmp_path: Path, hermes_home: Path) -> None:
    home = hermes_home
    home.mkdir(parents=True)
    project = _project(tmp_path)
    scenario = write_scenario(tmp_path, BACKGROUND)
    done = hws(
        "run", "--json", "--scenario", str(scenario), "--cwd", str(project), "count in the background",
        home=home,
    )  # fmt: skip
    assert_clean_exit(done, (0,))
    events = _events(done.stdout)
    kinds = [e["type"] for e in events]
    turn_end = kinds.index("turn_finished")
    child_end = kinds.index("subagent_finished")
    assert turn_end < child_end, kinds
    assert events[turn_end]["text"] == "Started it; the count comes later."
    ended = events[child_end]
    assert ended["background"] is True and ended["summary"] == "SUMMARY-C: c.txt has 1 line."
    # The result joined the parent's conversation as a message, after its answer.
    parent_id = events[turn_end]["session_id"]
    messages = _messages(home, parent_id)
    assert messages[-2] == ("assistant", "Started it; the count comes later.")
    assert messages[-1][0] == "user" and "SUMMARY-C" in messages[-1][1]
    assert ended["child_session_id"] in messages[-1][1]


def test_a_child_searches_the_fact_store_but_writes_nothing_to_it() -> None:
    from engine.agent.subagent import child_registry
    from engine.tools.fact_tools import TOOLS
    from engine.tools.registry import ToolRegistry, ToolResult

    reached: list[str] = []

    async def store(args: dict[str, Any], ctx: Any) -> ToolResult:
        reached.append(str(args["action"]))
        return ToolResult({"success": True}, ok=True, summary="ok")

    parent = ToolRegistry(TOOLS)
    fact_store = parent.get("fact_store")
    assert fact_store is not None
    parent.register(
        type(fact_store)(
            "fact_store", fact_store.toolset, fact_store.description, fact_store.parameters, store
        ),
        replace=True,
    )
    child = child_registry(parent, (), allow_memory=False)
    tool, feedback = child.get("fact_store"), child.get("fact_feedback")
    assert tool is not None and feedback is not None
    assert tool.parameters == fact_store.parameters  # the child sees the same tool, searches included

    async def calls() -> list[ToolResult]:
        asked = [{"action": a} for a in ("search", "probe", "add", "update", "remove")]
        return [await tool.handler(args, None) for args in asked] + [  # type: ignore[arg-type]
            await feedback.handler({"action": "helpful", "fact_id": 1}, None)  # type: ignore[arg-type]
        ]

    results = asyncio.run(calls())
    assert reached == ["search", "probe"]
    assert [r.ok for r in results] == [True, True, False, False, False, False]
    assert all("delegation.allow_memory" in json.dumps(r.content) for r in results[2:])
    allowed = child_registry(parent, (), allow_memory=True).get("fact_store")
    assert allowed is not None and allowed.handler is store


def test_tasks_given_as_plain_strings_are_refused_with_a_sentence_not_dropped() -> None:
    import pytest

    from engine.tools.delegate import task_specs
    from engine.tools.errors import ToolError

    for bad in (["count the files", "read the log"], "count the files", [{"goal": "a"}, "b"]):
        with pytest.raises(ToolError, match="list of objects"):
            task_specs({"tasks": bad}, 3)
    assert [s.goal for s in task_specs({"tasks": [{"goal": "a"}, {"goal": "b"}]}, 3)] == ["a", "b"]


def test_a_background_result_that_cannot_be_stored_waits_for_the_next_boundary() -> None:
    from types import SimpleNamespace

    from engine.agent.turns import Agent

    failures = [OSError("database is locked")]
    stored: list[str] = []

    async def append(role: str, text: str) -> int:
        if failures:
            raise failures.pop()
        stored.append(text)
        return len(stored)

    agent = SimpleNamespace(opened=SimpleNamespace(history=[]), delivered=["RESULT-1"], _append=append)
    try:
        asyncio.run(Agent._take_delivered(agent))  # type: ignore[arg-type]
    except OSError:
        pass
    assert agent.delivered == ["RESULT-1"]  # kept, not lost
    asyncio.run(Agent._take_delivered(agent))  # type: ignore[arg-type]
    assert stored == ["RESULT-1"] and agent.delivered == []
    assert agent.opened.history == [{"role": "user", "content": "RESULT-1"}]
