"""`hws run` as a real subprocess against the scripted server, and `hws prompt`."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from engine.home import Home
from engine.model_server.server import ScriptedModelServer
from tests.support.agent_support import serve, write_config

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = """
rules:
  - when: {user: "(?i)list", iteration: 1}
    reply:
      text: "Looking."
      tool_calls: [{name: terminal, arguments: {command: "ls"}}]
  - when: {after_tool: true}
    reply: {text: "Found: {{last_tool_result}}"}
  - when: {turn: 2}
    reply: {text: "Second turn; you said {{last_user}} after {{turn}} messages."}
  - reply: {text: "Hello from the script."}
"""


def hws(*args: str, home: Path, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HERMES_HOME": str(home), "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "tui.main", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        input=stdin if stdin is not None else "",
        timeout=60,
    )


@pytest.fixture
def server(hermes_home: Path) -> ScriptedModelServer:
    srv = serve(SCENARIO)
    write_config(hermes_home, model={"base_url": srv.base_url, "default": "scripted"})
    yield srv
    srv.stop()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "alpha.txt").write_text("a\n")
    return folder


def test_run_streams_the_answer_to_stdout_and_tool_lines_to_stderr(
    server: ScriptedModelServer, hermes_home: Path, project: Path
) -> None:
    done = hws("run", "list the files", home=hermes_home, cwd=project)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Looking.\nFound: [exit 0;")
    assert "alpha.txt" in done.stdout
    lines = done.stderr.splitlines()
    assert any(line.startswith("┊ terminal  ls  → exit 0, 1 line") for line in lines), lines
    assert lines[-1].startswith("session ")


def test_run_json_prints_every_event_with_its_session(
    server: ScriptedModelServer, hermes_home: Path, project: Path
) -> None:
    done = hws("run", "--json", "hello", home=hermes_home, cwd=project)
    assert done.returncode == 0, done.stderr
    printed = [json.loads(line) for line in done.stdout.splitlines()]
    # The session is titled beside the turn (a background event), after its first exchange.
    titled = [e for e in printed if e["type"] == "session_titled"]
    assert [(e["title"], e["by"]) for e in titled] == [("hello", "words")]
    events = [e for e in printed if e["type"] != "session_titled"]
    kinds = [e["type"] for e in events]
    assert kinds[0] == "turn_started" and kinds[-1] == "turn_finished" and "text_delta" in kinds
    assert len({e["session_id"] for e in printed}) == 1 and events[0]["session_id"]
    assert events[-1]["text"] == "Hello from the script."


def test_run_session_continues_the_conversation(
    server: ScriptedModelServer, hermes_home: Path, project: Path
) -> None:
    first = hws("run", "--json", "hello", home=hermes_home, cwd=project)
    session_id = json.loads(first.stdout.splitlines()[0])["session_id"]
    second = hws("run", "--session", session_id[:15], "again", home=hermes_home, cwd=project)
    assert second.returncode == 0, second.stderr
    assert second.stdout == "Second turn; you said again after 2 messages.\n"
    assert second.stderr.splitlines()[-1] == f"session {session_id}"
    resumed = f"┊ session   Resumed “hello” ({session_id}): 2 messages."  # titled by its first words
    assert resumed in second.stderr.splitlines(), second.stderr
    last = server.chat_requests[-1]
    assert [m["role"] for m in last.messages] == ["system", "user", "assistant", "user"]
    assert last.system_prompt == server.chat_requests[0].system_prompt


def test_run_reads_the_prompt_from_stdin(
    server: ScriptedModelServer, hermes_home: Path, project: Path
) -> None:
    done = hws("run", "-", home=hermes_home, cwd=project, stdin="hello via a pipe\n")
    assert done.returncode == 0 and done.stdout == "Hello from the script.\n"
    assert server.chat_requests[0].messages[-1]["content"] == "hello via a pipe\n"


def test_run_declines_destructive_commands_when_nobody_can_be_asked(hermes_home: Path, project: Path) -> None:
    srv = serve(
        """
        rules:
          - when: {iteration: 1}
            reply: {tool_calls: [{name: terminal, arguments: {command: "rm -rf alpha.txt"}}]}
          - reply: {text: "ok"}
        """
    )
    write_config(hermes_home, model={"base_url": srv.base_url, "default": "scripted"})
    try:
        denied = hws("run", "delete alpha", home=hermes_home, cwd=project)
        assert (project / "alpha.txt").exists()
        assert "declined: rm -rf alpha.txt" in denied.stderr and "--yolo" in denied.stderr
        allowed = hws("run", "--yolo", "delete alpha", home=hermes_home, cwd=project)
    finally:
        srv.stop()
    assert allowed.returncode == 0 and not (project / "alpha.txt").exists()


def test_run_without_a_model_says_how_to_configure_one(hermes_home: Path, project: Path) -> None:
    done = hws("run", "hello", home=hermes_home, cwd=project)
    assert done.returncode == 2 and done.stdout == ""
    message = done.stderr.strip()
    assert message.count("\n") == 0 and "model.base_url" in message and "--scripted" in message


def test_run_scripted_needs_no_configuration(hermes_home: Path, project: Path) -> None:
    done = hws("run", "--scripted", "hello", home=hermes_home, cwd=project)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Hello! I'm the scripted model")


def test_run_reports_a_provider_failure_with_exit_1(hermes_home: Path, project: Path) -> None:
    srv = serve('rules:\n  - fault: {kind: http, status: 401, message: "invalid key"}\n')
    write_config(hermes_home, model={"base_url": srv.base_url, "default": "scripted"})
    try:
        done = hws("run", "hello", home=hermes_home, cwd=project)
    finally:
        srv.stop()
    assert done.returncode == 1
    assert "error: The call to scripted" in done.stderr and "invalid key" in done.stderr


def test_prompt_lists_layers_and_stays_under_the_token_budget(hermes_home: Path, project: Path) -> None:
    done = hws("prompt", "--json", home=hermes_home, cwd=project)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    names = [layer["name"] for layer in data["layers"]]
    assert names[:2] == ["identity", "guidance"] and names[-1] == "session"
    assert data["tools"]["names"][:5] == [
        "memory",
        "skills_list",
        "skill_view",
        "skill_manage",
        "session_search",
    ]
    assert data["total_tokens"] == data["tokens"] + data["tools"]["tokens"]
    assert data["total_tokens"] < 5000, "system prompt plus tool schemas, empty memory, no skills"
    table = hws("prompt", home=hermes_home, cwd=project)
    assert "identity" in table.stdout and "tool schemas" in table.stdout and "total" in table.stdout


def test_ctrl_c_keeps_the_partial_answer_and_exits_130(hermes_home: Path, project: Path) -> None:
    import asyncio

    from tests.support.agent_support import stored_messages

    # 40 s of reply: however slow the machine, the interrupt comes while the model is still talking
    srv = serve('rules:\n  - reply: {text: "' + "word " * 200 + '", chunk_size: 5, chunk_delay: 0.2}\n')
    write_config(hermes_home, model={"base_url": srv.base_url, "default": "scripted"})
    env = {**os.environ, "HERMES_HOME": str(hermes_home), "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(
        [sys.executable, "-m", "tui.main", "run", "--json", "talk for a long time"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=project,
    )
    try:
        assert process.stdout is not None
        seen = [json.loads(process.stdout.readline()) for _ in range(6)]
        process.send_signal(signal.SIGINT)
        rest, _err = process.communicate(timeout=30)
    finally:
        srv.stop()
    assert process.returncode == 130
    events = seen + [json.loads(line) for line in rest.splitlines()]
    said = "".join(e["text"] for e in events if e["type"] == "text_delta")
    session_id = events[0]["session_id"]
    messages = asyncio.run(stored_messages(Home.resolve(hermes_home), session_id))
    assert [m.role for m in messages] == ["user", "assistant"]
    assert messages[1].finish_reason == "interrupted" and messages[1].text.startswith(said)
    assert len(messages[1].text) < len("word " * 200)
