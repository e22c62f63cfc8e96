"""A past session's tool calls read back as they were live: the preview, the real outcome, the approval.

The calls are made for real (the scripted model server, the agent, the sandboxed terminal, the
person's keys on each question); the read-only view of the session then draws them from state.db.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from textual.message import Message

from engine.sessions.store import SessionStore
from tests.support.tui_support import (
    agent_started,
    make_scripted_app,
    open_stored_view,
    pause_until,
    say,
    screen_cells,
    turn_done,
)
from tui.read_history import history_items
from widgets.stored_turn import StoredTurn
from widgets.transcript_blocks import ApprovalBlock, ToolBlock

SCENARIO = """
name: stored-calls
model: scripted
context_length: 32000
defaults: {chunk_size: 40, chunk_delay: 0}
rules:
  - name: after a tool
    when: {after_tool: true}
    reply: {text: "Done."}
  - name: clean
    when: {user: "(?i)^clean (\\\\S+)", tools: [terminal]}
    reply:
      text: "Removing it."
      tool_calls: [{name: terminal, arguments: {command: "rm -rf {{match.1}}"}}]
  - name: read
    when: {user: "(?i)^read (\\\\S+)", tools: [read_file]}
    reply:
      tool_calls: [{name: read_file, arguments: {path: "{{match.1}}"}}]
  - name: anything
    reply: {text: "You said {{last_user}}."}
"""


def screen_text(app: Any) -> list[str]:
    return ["".join(char for char, _ in line) for line in screen_cells(app)]


def line_with(lines: list[str], text: str) -> str:
    found = [line for line in lines if text in line]
    assert found, (text, lines)
    return found[0]


async def answer(pilot: Any, app: Any, seen: list[Message], text: str, key: str | None, turns: int) -> None:
    """Send `text`; answer its approval question with the digit `key` (None: it must not ask)."""
    transcript = app.main_screen.transcript
    asked = len(transcript.query(ApprovalBlock))
    await say(pilot, app, text)
    if key is not None:
        assert await pause_until(pilot, lambda: len(transcript.query(ApprovalBlock)) > asked, rounds=400)
        await pilot.press("ctrl+o", key)
    await turn_done(pilot, app, seen, turns)


async def test_a_past_sessions_calls_show_their_preview_outcome_and_approval(scripted: Any) -> None:
    app = make_scripted_app(scripted, folders=["build", "tmp", "scratch"])
    (app.workdir / "notes.txt").write_text("one\ntwo\nthree\n", encoding="utf-8")
    seen: list[Message] = []
    async with app.run_test(size=(150, 50), message_hook=seen.append) as pilot:
        await agent_started(pilot, app)
        await answer(pilot, app, seen, "clean build", "3", 1)  # declined
        await answer(pilot, app, seen, "clean tmp", "1", 2)  # approved once
        await answer(pilot, app, seen, "clean scratch", "2", 3)  # approved for the session
        await answer(pilot, app, seen, "clean scratch/b", None, 4)  # covered by that approval
        await answer(pilot, app, seen, "read notes.txt", None, 5)  # nothing to ask
        assert (app.workdir / "build").is_dir() and not (app.workdir / "tmp").exists()

        transcript = await open_stored_view(pilot, app, app.session_id, settle=3)
        assert transcript.query(StoredTurn)
        lines = screen_text(app)
        declined = line_with(lines, "rm -rf build")
        assert "✗" in declined and "✓" not in declined, declined
        assert "[declined]" in declined and "declined by the user" in declined, declined
        assert '{"declined"' not in "\n".join(lines), "the summary, not the raw JSON result"
        once = line_with(lines, "rm -rf tmp")
        assert "✓" in once and "[approved once]" in once, once
        session = line_with(lines, "rm -rf scratch ")
        assert "✓" in session and "[approved for the session]" in session, session
        covered = line_with(lines, "rm -rf scratch/b")
        assert "✓" in covered and "[approved by a session rule]" in covered, covered
        read = line_with(lines, "read_file")
        assert "notes.txt" in read and "✓" in read and "[" not in read.split("✓")[1], read
        assert "path=" not in read, "the registry's preview, not the raw arguments"

        # Taken apart (enter on the turn), the declined call expands to say the answer in words.
        await pilot.press("home")
        first = transcript.query(StoredTurn).first()
        transcript.cursor = first
        blocks = await transcript.paging.thaw(first)
        assert blocks is not None
        await pilot.pause()
        tool = transcript.query(ToolBlock).first()
        tool.toggle()
        await pilot.pause()
        assert "approval: declined" in str(tool.render())
        assert "approval: declined" in tool.copy_text()


async def test_the_outcome_is_kept_with_its_message_and_an_older_database_gains_the_table(
    tmp_path: Path,
) -> None:
    db = tmp_path / "state.db"
    store = await SessionStore.open(db)
    session = await store.create_session(source="cli")
    call = {
        "id": "c1",
        "type": "function",
        "function": {"name": "terminal", "arguments": '{"command": "ls"}'},
    }
    await store.append_message(session.id, "assistant", "", tool_calls=[call])
    result_id = await store.append_message(
        session.id,
        "tool",
        '{"declined": true, "message": "The user declined."}',
        tool_call_id="c1",
        tool_name="terminal",
        outcome={"ok": False, "summary": "declined by the user", "duration_s": 0.5},
    )
    kept = await store.tool_results([result_id])
    await store.close()
    assert kept[result_id].ok is False and kept[result_id].summary == "declined by the user"
    assert kept[result_id].duration_s == 0.5

    # A database made before the table existed gets it when next opened for writing.
    conn = sqlite3.connect(db)
    conn.execute("DROP TABLE hws_tool_results")
    conn.execute("DROP TABLE hws_approvals")
    conn.commit()
    conn.close()
    reader = await SessionStore.open(db, read_only=True)
    assert await reader.tool_results([result_id]) == {} and await reader.approvals(session.id) == []
    await reader.close()
    store = await SessionStore.open(db)
    await store.record_approval(session.id, tool="terminal", command="ls", decision="once", tool_call_id="c1")
    assert [r["decision"] for r in await store.approvals(session.id)] == ["once"]
    await store.close()


async def test_a_result_kept_without_its_outcome_is_judged_from_its_text(tmp_path: Path) -> None:
    store = await SessionStore.open(tmp_path / "state.db")
    session = await store.create_session(source="cli")
    results = {
        "c1": '{"declined": true, "message": "The user declined to run this command."}',
        "c2": '{"success": false, "error": "no such file"}',
        "c3": '{"error": "Unknown tool"}',
        "c4": "line one\nline two\n",
    }
    calls = [
        {"id": cid, "type": "function", "function": {"name": "terminal", "arguments": "{}"}}
        for cid in results
    ]
    await store.append_message(session.id, "assistant", "", tool_calls=calls)
    for cid, text in results.items():
        await store.append_message(session.id, "tool", text, tool_call_id=cid, tool_name="terminal")
    records = await store.get_messages(session.id)
    await store.close()
    items = [item for item in history_items(records, 80, 80) if item.kind == "tool"]
    said = [(item.result.ok, item.result.preview) for item in items if item.result is not None]
    assert said == [
        (False, "declined by the user"),
        (False, "error: no such file"),
        (False, "error: Unknown tool"),
        (True, "2 lines"),
    ]
