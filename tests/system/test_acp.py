"""`hws acp` as an editor runs it: a real subprocess, driven over stdio by the ACP SDK's client side,
answering from the scripted model server the home's config points at."""

from __future__ import annotations

import asyncio
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from acp.schema import (
    AgentMessageChunk,
    AgentPlanUpdate,
    AgentThoughtChunk,
    AvailableCommandsUpdate,
    FileEditToolCallContent,
    McpServerStdio,
    ToolCallProgress,
    ToolCallStart,
    UserMessageChunk,
)

from engine.model_server.server import ScriptedModelServer
from tests.support.acp_support import RecordingClient, hws_acp, prompt
from tests.support.agent_support import serve, write_config
from tests.support.fault_support import ROOT, hws, hws_env
from tests.support.mcp_support import program
from tests.support.skills_support import skill_text, write_skill

SCENARIO = r"""
defaults: {chunk_size: 5}
rules:
  - when: {kind: title}
    reply: {text: "An editor's chat"}
  - when: {user: 'invoked the "brew-tea" skill'}
    reply: {text: "Brewing as the skill says."}
  - when: {after_tool: true, last_tool: todo}
    reply: {text: "Planned."}
  - when: {after_tool: true}
    reply: {text: "Done: {{last_tool_result}}"}
  - when: {user: "(?i)^write (\\S+)", iteration: 1}
    reply:
      text: "Writing."
      tool_calls: [{name: write_file, arguments: {path: "{{match.1}}", content: "new line\n"}}]
  - when: {user: "(?i)^fix (\\S+)", iteration: 1}
    reply:
      tool_calls: [{name: patch, arguments: {path: "{{match.1}}", old_string: "old", new_string: "new"}}]
  - when: {user: "(?i)tokyo", iteration: 1}
    reply:
      tool_calls: [{name: mcp_clock_convert_time, arguments: {source_timezone: UTC, time: "12:00",
                    target_timezone: Asia/Tokyo}}]
  - when: {user: "(?i)^remember (.+)", iteration: 1}
    reply:
      tool_calls: [{name: memory, arguments: {action: add, target: user, content: "{{match.1}}"}}]
  - when: {user: "(?i)^run (.+)", iteration: 1}
    reply:
      tool_calls: [{name: terminal, arguments: {command: "{{match.1}}"}}]
  - when: {user: "(?i)^which db", iteration: 1}
    reply:
      tool_calls: [{name: clarify, arguments: {question: "Which database?", choices: [PostgreSQL, SQLite]}}]
  - when: {user: "(?i)^plan", iteration: 1}
    reply:
      tool_calls: [{name: todo, arguments: {action: add, items: ["read the code", "fix it"]}}]
  - when: {user: "(?i)take your time"}
    reply: {text: "one two three four five six seven eight nine ten", chunk_size: 2, chunk_delay: 0.5}
  - reply:
      reasoning: "A greeting; answer it."
      text: "Hello from the script, streamed in pieces."
"""


@pytest.fixture
def server(hermes_home: Path) -> Iterator[ScriptedModelServer]:
    srv = serve(SCENARIO)
    write_config(hermes_home, model={"base_url": srv.base_url, "default": "scripted"})
    yield srv
    srv.stop()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


def _sessions(home: Path) -> list[tuple[str, str, str]]:
    conn = sqlite3.connect(home / "state.db")
    try:
        return [tuple(row) for row in conn.execute("SELECT id, source, end_reason FROM sessions")]
    finally:
        conn.close()


async def test_a_prompt_streams_chunks_and_thoughts_and_ends_the_turn(
    server: ScriptedModelServer, hermes_home: Path, project: Path
) -> None:
    client = RecordingClient()
    async with hws_acp(hermes_home, project, client) as (conn, process):
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        done = await prompt(conn, session.session_id, "hello there")
    assert process.returncode == 0, "the client closed stdin: hws acp ends its sessions and exits"
    assert done.stop_reason == "end_turn"
    hello = client.initialized
    assert hello.agent_info.name == "hws" and hello.auth_methods == []
    assert (
        hello.agent_capabilities.load_session
        and hello.agent_capabilities.session_capabilities.list is not None
    )
    chunks = client.of(AgentMessageChunk)
    assert len(chunks) > 1, "the answer arrives in pieces, not at once"
    assert client.text() == "Hello from the script, streamed in pieces."
    assert client.text(AgentThoughtChunk) == "A greeting; answer it."
    assert {sid for sid, _ in client.updates} == {session.session_id}
    assert (session.session_id, "acp", "acp_close") in _sessions(hermes_home)


async def test_a_file_edit_shows_as_a_tool_call_with_its_diff(
    server: ScriptedModelServer, hermes_home: Path, project: Path
) -> None:
    client = RecordingClient()
    async with hws_acp(hermes_home, project, client) as (conn, _process):
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        done = await prompt(conn, session.session_id, "write notes.txt")
    assert done.stop_reason == "end_turn"
    assert (project / "notes.txt").read_text() == "new line\n"
    started = client.of(ToolCallStart)
    assert [(s.kind, s.status) for s in started] == [("edit", "in_progress")]
    assert "notes.txt" in started[0].title
    finished = [u for u in client.of(ToolCallProgress) if u.tool_call_id == started[0].tool_call_id]
    assert finished[-1].status == "completed"
    diffs = [c for c in finished[-1].content or [] if isinstance(c, FileEditToolCallContent)]
    assert [(Path(d.path), d.old_text, d.new_text) for d in diffs] == [
        (project / "notes.txt", None, "new line\n")
    ]
    assert client.text().startswith("Writing.Done:")


async def test_a_patch_shows_the_file_before_and_after(
    server: ScriptedModelServer, hermes_home: Path, project: Path
) -> None:
    (project / "notes.txt").write_text("an old line\n")
    client = RecordingClient()
    async with hws_acp(hermes_home, project, client) as (conn, _process):
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        await prompt(conn, session.session_id, "fix notes.txt")
    assert (project / "notes.txt").read_text() == "an new line\n"
    final = client.of(ToolCallProgress)[-1]
    diffs = [c for c in final.content or [] if isinstance(c, FileEditToolCallContent)]
    assert [(d.old_text, d.new_text) for d in diffs] == [("an old line\n", "an new line\n")]


async def test_an_mcp_server_the_client_passes_serves_the_session(
    server: ScriptedModelServer, hermes_home: Path, project: Path
) -> None:
    clock = McpServerStdio(name="clock", command=program("mcp-server-time"), args=[], env=[])
    client = RecordingClient()
    async with hws_acp(hermes_home, project, client) as (conn, _process):
        session = await conn.new_session(cwd=str(project), mcp_servers=[clock])
        done = await prompt(conn, session.session_id, "noon UTC in Tokyo?")
    assert done.stop_reason == "end_turn"
    [start] = client.of(ToolCallStart)
    final = [u for u in client.of(ToolCallProgress) if u.tool_call_id == start.tool_call_id][-1]
    assert final.status == "completed", final
    assert "Asia/Tokyo" in client.text() and "+09:00" in client.text()


@pytest.mark.parametrize(("answer", "removed"), [("once", True), ("deny", False), ("cancel", False)])
async def test_the_clients_answer_to_a_permission_request_is_the_persons(
    server: ScriptedModelServer, hermes_home: Path, project: Path, answer: str, removed: bool
) -> None:
    (project / "build").mkdir()
    (project / "build" / "out.o").write_text("x")
    client = RecordingClient(answer=answer)
    async with hws_acp(hermes_home, project, client) as (conn, _process):
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        done = await prompt(conn, session.session_id, "run rm -rf build")
    assert done.stop_reason == "end_turn"
    assert len(client.permissions) == 1
    tool_call, options = client.permissions[0]
    assert "rm -rf build" in tool_call.title
    assert {o.option_id: o.kind for o in options} == {
        "once": "allow_once",
        "session": "allow_always",
        "deny": "reject_once",
    }
    start = client.of(ToolCallStart)[0]
    assert tool_call.tool_call_id == start.tool_call_id and start.kind == "execute"
    assert (not (project / "build").exists()) is removed
    final = [u for u in client.of(ToolCallProgress) if u.tool_call_id == start.tool_call_id][-1]
    assert final.status == ("completed" if removed else "failed")


async def test_a_clarify_question_over_acp_leaves_the_choice_to_the_model(
    server: ScriptedModelServer, hermes_home: Path, project: Path
) -> None:
    """ACP has no way to ask the person a question: the turn goes on, the model told to decide."""
    client = RecordingClient()
    async with hws_acp(hermes_home, project, client) as (conn, _process):
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        done = await prompt(conn, session.session_id, "which db should I use")
    assert done.stop_reason == "end_turn" and client.permissions == []
    text = "".join(u.content.text for u in client.of(AgentMessageChunk) if hasattr(u.content, "text"))
    assert "No person to ask; decide and say what you assumed." in text


async def test_the_todo_list_arrives_as_a_plan(
    server: ScriptedModelServer, hermes_home: Path, project: Path
) -> None:
    client = RecordingClient()
    async with hws_acp(hermes_home, project, client) as (conn, _process):
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        await prompt(conn, session.session_id, "plan the fix")
    plans = client.of(AgentPlanUpdate)
    assert [(e.content, e.status) for e in plans[-1].entries] == [
        ("read the code", "pending"),
        ("fix it", "pending"),
    ]


async def test_a_memory_write_lands_in_the_home_and_its_journal(
    server: ScriptedModelServer, hermes_home: Path, project: Path
) -> None:
    client = RecordingClient()
    async with hws_acp(hermes_home, project, client) as (conn, _process):
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        await prompt(conn, session.session_id, "remember the person drinks green tea")
    assert "the person drinks green tea" in (hermes_home / "memories" / "USER.md").read_text()
    history = hws("memory", "history", "--json", home=hermes_home)
    assert history.returncode == 0, history.stderr
    assert "the person drinks green tea" in history.stdout


async def test_the_skills_are_slash_commands_and_one_loads_its_skill(
    server: ScriptedModelServer, hermes_home: Path, project: Path
) -> None:
    write_skill(
        hermes_home / "skills" / "drinks",
        "brew-tea",
        skill_text("brew-tea", "Brews tea. Use when tea is due."),
    )
    client = RecordingClient()
    async with hws_acp(hermes_home, project, client) as (conn, _process):
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        offered = await client.wait_for(AvailableCommandsUpdate)
        done = await prompt(conn, session.session_id, "/brew-tea for two")
    commands = {c.name: c.description for c in offered.available_commands}
    assert commands["brew-tea"] == "Brews tea. Use when tea is due."
    assert done.stop_reason == "end_turn"
    assert client.text() == "Brewing as the skill says."


async def test_cancel_interrupts_the_turn_mid_reply(
    server: ScriptedModelServer, hermes_home: Path, project: Path
) -> None:
    client = RecordingClient()
    async with hws_acp(hermes_home, project, client) as (conn, _process):
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        turn = asyncio.create_task(prompt(conn, session.session_id, "take your time"))
        await client.wait_for(AgentMessageChunk)
        await conn.cancel(session_id=session.session_id)
        done = await turn
        assert done.stop_reason == "cancelled"
        partial = client.text()
        assert partial and partial != "one two three four five six seven eight nine ten"
        again = await prompt(conn, session.session_id, "hello")  # the session goes on after a cancel
        assert again.stop_reason == "end_turn"


async def test_session_load_replays_an_earlier_session_and_goes_on(
    server: ScriptedModelServer, hermes_home: Path, project: Path
) -> None:
    first = RecordingClient()
    async with hws_acp(hermes_home, project, first) as (conn, _process):
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        await prompt(conn, session.session_id, "hello there")
        await prompt(conn, session.session_id, "write notes.txt")
    later = RecordingClient()
    async with hws_acp(hermes_home, project, later) as (conn, _process):
        await conn.load_session(cwd=str(project), session_id=session.session_id, mcp_servers=[])
        replayed = list(later.updates)
        assert later.text(UserMessageChunk) == "hello therewrite notes.txt"
        assert later.text().startswith("Hello from the script, streamed in pieces.Writing.Done:")
        assert [s.kind for s in later.of(ToolCallStart)] == ["edit"]
        assert {sid for sid, _ in replayed} == {session.session_id}
        listed = await conn.list_sessions(cwd=str(project))
        assert [s.session_id for s in listed.sessions] == [session.session_id]
        assert listed.sessions[0].title, "a conversation is listed by its title"
        assert (await conn.list_sessions(cwd=str(project.parent))).sessions == []
        done = await prompt(conn, session.session_id, "hello again")
    assert done.stop_reason == "end_turn"
    assert later.text().endswith("Hello from the script, streamed in pieces.")


async def test_loading_a_session_that_does_not_exist_is_an_error_with_a_sentence(
    server: ScriptedModelServer, hermes_home: Path, project: Path
) -> None:
    from acp import RequestError

    client = RecordingClient()
    async with hws_acp(hermes_home, project, client) as (conn, _process):
        with pytest.raises(RequestError) as raised:
            await conn.load_session(cwd=str(project), session_id="no-such-session", mcp_servers=[])
    assert "no-such-session" in str(raised.value.data)


def test_stdout_carries_the_protocol_alone(tmp_path: Path) -> None:
    """A stray print, or a child process that inherits descriptor 1, lands on stderr, not in the stream."""
    script = (
        "import os, subprocess, sys\n"
        "from engine.acp.streams import keep_stdout_for_protocol\n"
        "fd = keep_stdout_for_protocol()\n"
        "print('a stray print')\n"
        "subprocess.run(['echo', 'a child writing to fd 1'])\n"
        'os.write(fd, b\'{"jsonrpc": "2.0"}\\n\')\n'
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        env=hws_env(tmp_path),
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == '{"jsonrpc": "2.0"}\n'
    assert "a stray print" in done.stderr and "a child writing to fd 1" in done.stderr
