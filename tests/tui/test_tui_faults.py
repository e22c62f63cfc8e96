"""Provider faults as a person meets them in the workstation (real agent, real scripted server, real home).

A stream cut mid-reply is retried: the words of the failed attempt leave the transcript, so the
reply is shown once. A call that fails for good says so, and the status bar does not claim it is
still retrying. A retry that worked leaves no warning behind. An empty reply is said to be empty.
The next turn works after each of them.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from typing import Any

from textual.message import Message

from tests.support.tui_support import (
    agent_started,
    make_scripted_app,
    say,
    turn_done,
)
from tui import messages
from tui.app import HwsApp
from widgets.transcript_blocks import NoticeBlock

CUT_TEXT = "The kiln reached cone six and the glaze came out a deep even blue."

SCENARIO = f"""
name: faults
model: scripted
defaults: {{chunk_size: 6, chunk_delay: 0}}
rules:
  - name: cut twice, then whole
    when: {{user: "^glaze"}}
    times: 2
    fault: {{kind: cut, after_chunks: 7}}  # 4 of thinking, 3 of the answer
    reply: {{text: "{CUT_TEXT}", reasoning: "Thinking about the kiln."}}
  - name: whole
    when: {{user: "^glaze"}}
    reply: {{text: "{CUT_TEXT}", reasoning: "Thinking about the kiln."}}
  - name: rate limited once
    when: {{user: "^busy"}}
    times: 1
    fault: {{kind: rate_limit, retry_after: 0.01}}
  - name: down
    when: {{user: "^down"}}
    fault: {{kind: server_error, message: "upstream exploded"}}
  - name: empty
    when: {{user: "^nothing"}}
    fault: {{kind: empty}}
  - reply: {{text: "You said {{{{last_user}}}}."}}
"""


FAST_RETRIES = (
    "agent:\n  retry_base_delay: 0.01\n  retry_max_delay: 0.05\n  api_max_retries: 2\n"
    "review:\n  enabled: false\nsessions:\n  busy_timeout_ms: 200\n"
)


def shown_text(app: HwsApp) -> str:
    """The transcript's words as the person reads them (live and frozen replies, notices, blocks)."""
    transcript = app.main_screen.transcript
    parts = []
    for block in transcript.children:
        source = getattr(block, "source", None)
        parts.append(source if isinstance(source, str) else str(block.render()))
    return "\n".join(parts)


def notices(app: HwsApp) -> list[str]:
    return [str(block.render()) for block in app.main_screen.transcript.query(NoticeBlock)]


def stored(app: HwsApp) -> list[tuple[str, str]]:
    with sqlite3.connect(app.home.state_db) as db:
        return [(r, c or "") for r, c in db.execute("SELECT role, content FROM messages ORDER BY id")]


async def test_a_cut_stream_that_is_retried_shows_its_reply_once(scripted: Any) -> None:
    app = make_scripted_app(scripted, FAST_RETRIES)
    seen: list[Message] = []
    async with app.run_test(size=(160, 48), message_hook=seen.append) as pilot:
        await agent_started(pilot, app)
        await say(pilot, app, "glaze report")
        await turn_done(pilot, app, seen, 1)
        text = shown_text(app)
        assert text.count(CUT_TEXT) == 1, text
        assert text.count("The kiln reach") == 1, "the cut attempts' words are gone"
        assert text.count("▸ thought") == 1, "and so is their thinking"
        restarts = [n for n in notices(app) if "starts over" in n]
        assert len(restarts) == 2, notices(app)
        assert app.main_screen.transcript.last_reply == CUT_TEXT
        assert stored(app)[-1] == ("assistant", CUT_TEXT)
        # The retry worked: the status bar keeps no warning about it.
        assert app.main_screen.status.state.note == ""

        await say(pilot, app, "and now?")
        await turn_done(pilot, app, seen, 2)
        assert app.main_screen.transcript.last_reply == "You said and now?."


async def test_a_rate_limit_retried_leaves_no_warning_and_a_dead_endpoint_is_not_retrying(
    scripted: Any,
) -> None:
    app = make_scripted_app(scripted, FAST_RETRIES)
    seen: list[Message] = []
    async with app.run_test(size=(160, 48), message_hook=seen.append) as pilot:
        await agent_started(pilot, app)
        status = app.main_screen.status

        await say(pilot, app, "busy day")
        await turn_done(pilot, app, seen, 1)
        assert any(isinstance(m, messages.Status) and "retrying" in m.event.text for m in seen)
        assert app.main_screen.transcript.last_reply == "You said busy day."
        assert status.state.note == "", "the retry worked; no warning is left in the status bar"

        await say(pilot, app, "down again")
        await turn_done(pilot, app, seen, 2)
        assert any("failed on all 3 tries" in n and "upstream exploded" in n for n in notices(app))
        assert status.state.note_level == "error"
        assert "retrying" not in status.state.note, status.state.note
        assert not status.state.working

        await say(pilot, app, "still there?")
        await turn_done(pilot, app, seen, 3)
        assert app.main_screen.transcript.last_reply == "You said still there?."
        assert status.state.note == ""


async def test_an_empty_reply_is_said_to_be_empty(scripted: Any) -> None:
    app = make_scripted_app(scripted, FAST_RETRIES)
    seen: list[Message] = []
    async with app.run_test(size=(160, 48), message_hook=seen.append) as pilot:
        await agent_started(pilot, app)
        await say(pilot, app, "nothing please")
        await turn_done(pilot, app, seen, 1)
        assert any("reply was empty" in n for n in notices(app)), notices(app)

        await say(pilot, app, "hello?")
        await turn_done(pilot, app, seen, 2)
        assert app.main_screen.transcript.last_reply == "You said hello?."
        assert sum("reply was empty" in n for n in notices(app)) == 1


LOCKER = """
import sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("BEGIN EXCLUSIVE")
print("locked", flush=True)
sys.stdin.readline()
db.execute("COMMIT")
db.close()
"""


async def test_state_db_locked_by_another_program_keeps_the_answer_and_writes_it_later(scripted: Any) -> None:
    app = make_scripted_app(scripted, FAST_RETRIES)
    seen: list[Message] = []
    async with app.run_test(size=(160, 48), message_hook=seen.append) as pilot:
        await agent_started(pilot, app)
        await say(pilot, app, "first")
        await turn_done(pilot, app, seen, 1)

        locker = subprocess.Popen(
            [sys.executable, "-c", LOCKER, str(app.home.state_db)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert locker.stdout is not None and locker.stdout.readline().strip() == "locked"
            await say(pilot, app, "while it is locked")
            await turn_done(pilot, app, seen, 2)
            # The answer is shown and kept; the transcript says where it waits.
            assert app.main_screen.transcript.last_reply == "You said while it is locked."
            said = [n for n in notices(app) if "locked by another program" in n]
            assert len(said) == 1 and "unsaved-messages.jsonl" in said[0], notices(app)
        finally:
            locker.communicate("\n", timeout=30)

        await say(pilot, app, "after the lock")
        await turn_done(pilot, app, seen, 3)
        assert app.main_screen.transcript.last_reply == "You said after the lock."
        assert any("kept messages are written" in n for n in notices(app))
        assert stored(app)[-4:] == [
            ("user", "while it is locked"),
            ("assistant", "You said while it is locked."),
            ("user", "after the lock"),
            ("assistant", "You said after the lock."),
        ]
