"""A lock another program takes on state.db mid-turn: the answer the person saw is kept."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from tests.support.fault_support import hws, hws_popen, write_config, write_scenario

SCENARIO = """\
name: slow tool
model: scripted
rules:
  - when: {after_tool: true}
    reply:
      text: "The build finished; everything compiled."
  - reply:
      tool_calls:
        - {name: terminal, arguments: {command: "sleep 2; echo built"}}
"""


def test_an_answer_shown_while_another_program_locks_state_db_is_kept_and_written_later(
    tmp_path: Path, hermes_home: Path
) -> None:
    write_config(hermes_home, sessions={"busy_timeout_ms": 100, "append_retries": 1})
    scenario = write_scenario(tmp_path, SCENARIO)
    project = tmp_path / "project"
    project.mkdir()
    run = hws_popen("run", "--json", "--scenario", str(scenario), "build it", home=hermes_home, cwd=project)
    assert run.stdout is not None
    lines = []
    holder: sqlite3.Connection | None = None
    for line in run.stdout:  # the tool call has started: another program takes the write lock
        lines.append(line)
        if json.loads(line)["type"] == "tool_called":
            holder = sqlite3.connect(hermes_home / "state.db", isolation_level=None, timeout=5)
            holder.execute("BEGIN EXCLUSIVE")
            break
    assert holder is not None
    lines += list(run.stdout)
    assert run.wait(timeout=60) == 0, run.stderr.read() if run.stderr else ""
    events = [json.loads(line) for line in lines]
    finished = [e for e in events if e["type"] == "turn_finished"]
    assert finished and finished[0]["text"] == "The build finished; everything compiled."
    journal = hermes_home / "hws" / "unsaved-messages.jsonl"
    unsaved = [e for e in events if e["type"] == "unsaved_messages"]
    assert len(unsaved) == 1 and unsaved[0]["waiting"] == 1 and unsaved[0]["journal"] == str(journal)
    kept = [json.loads(line) for line in journal.read_text().splitlines()]
    assert [k["role"] for k in kept][-1] == "assistant"
    assert kept[-1]["content"] == "The build finished; everything compiled."
    holder.execute("ROLLBACK")
    holder.close()

    # The next session's first write empties the journal into the database, in order.
    assert hws("run", "--scripted", "hello", home=hermes_home, cwd=project).returncode == 0
    assert not journal.exists()
    db = sqlite3.connect(hermes_home / "state.db")
    session = kept[-1]["session_id"]
    rows = db.execute(
        "SELECT role, content FROM messages WHERE session_id = ? ORDER BY id", (session,)
    ).fetchall()
    db.close()
    assert [r[0] for r in rows] == ["user", "assistant", "tool", "assistant"]
    assert rows[-1][1] == "The build finished; everything compiled." and "built" in rows[2][1]
