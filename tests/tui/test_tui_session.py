"""A whole session in the workstation against the scripted model server (real agent, real home, real HTTP).

The person types, the reply streams, tools run (one needs approval), a memory write shows in the
memory pane's diff, a created skill shows in the skills pane, /compress shows in the timeline, ctrl+c
interrupts a slow reply, and the sessions screen finds the conversation and resumes it. The test
asserts on the Messages the app saw and on the panes' state.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.message import Message

from tests.support.tui_support import (
    agent_ready_since,
    agent_started,
    make_scripted_app,
    pause_until,
    say,
    turn_done,
)
from tui import messages
from tui.app import HwsApp

SKILL_TEXT = (
    "---\\nname: deploy-site\\ndescription: Deploy the docs site with rsync.\\n---\\n"
    "1. Build the site.\\n2. rsync it to the server.\\n"
)

NOTES = "Deploy notes: build with npm, rsync the dist folder, check the navbar links. " * 80

SCENARIO = f"""
name: workstation-day
model: scripted
context_length: 32000
defaults: {{chunk_size: 8, chunk_delay: 0}}
rules:
  - name: after a tool
    when: {{after_tool: true}}
    reply: {{text: "Done: {{{{last_tool_name}}}} answered."}}
  - name: summary
    when: {{kind: summary}}
    reply: {{text: "Summary: we talked about the docs navbar and deploying."}}
  - name: flush
    when: {{kind: flush}}
    reply: {{text: "Nothing to save."}}
  - name: remember
    when: {{user: "(?i)^remember (.+)", tools: [memory]}}
    reply:
      text: "Noted."
      tool_calls: [{{name: memory, arguments: {{action: add, target: memory, content: "{{{{match.1}}}}"}}}}]
  - name: make a skill
    when: {{user: "(?i)^save the deploy skill", tools: [skill_manage]}}
    reply:
      text: "Saving a skill."
      tool_calls:
        - name: skill_manage
          arguments: {{action: create, name: deploy-site, content: "{SKILL_TEXT}"}}
  - name: dangerous
    when: {{user: "(?i)^clean (\\\\S+)", tools: [terminal]}}
    reply:
      text: "Removing it."
      tool_calls: [{{name: terminal, arguments: {{command: "rm -rf {{{{match.1}}}}"}}}}]
  - name: long notes
    when: {{user: "(?i)^write the deploy notes"}}
    reply: {{text: "{NOTES}", chunk_size: 400}}
  - name: slow
    when: {{user: "(?i)^tell me a long story"}}
    reply: {{text: "{"Once upon a time there was a navbar. " * 60}", chunk_size: 4, chunk_delay: 0.05}}
  - name: greeting
    when: {{user: "(?i)hello"}}
    reply: {{reasoning: "A greeting.", text: "Hello! **Ready** to work on the docs navbar."}}
  - name: anything
    reply: {{text: "You said {{{{last_user}}}}."}}
"""


def make_app_on(model: Any) -> HwsApp:
    # a short tail, so /compress has a middle; a folder for the destructive command to remove
    return make_scripted_app(model, "compression:\n  target_ratio: 0.1\n", folders=["scratch"])


def kinds(seen: list[Message], since: int = 0) -> list[str]:
    return [type(m).__name__ for m in seen[since:]]


async def test_a_whole_session_through_the_scripted_model(scripted: Any) -> None:
    app = make_app_on(scripted)
    seen: list[Message] = []
    async with app.run_test(size=(160, 48), message_hook=seen.append) as pilot:
        await agent_started(pilot, app)
        main = app.main_screen

        # Type; the reply streams (many deltas), reasoning first.
        await say(pilot, app, "hello there")
        await turn_done(pilot, app, seen, 1)
        flow = kinds(seen)
        assert flow.index("TurnSubmitted") < flow.index("TurnStarted") < flow.index("TextDelta")
        assert flow.count("TextDelta") > 3
        assert "ReasoningDelta" in flow
        assert main.transcript.last_reply.startswith("Hello! **Ready**")
        assert app.session_id

        # A memory write: the tool runs, the memory pane shows it on disk but not in the frozen snapshot.
        mark = len(seen)
        await say(pilot, app, "remember the docs deploy to /srv/www")
        await turn_done(pilot, app, seen, 2)
        flow = kinds(seen, mark)
        assert flow.index("ToolCalled") < flow.index("MemoryWritten") < flow.index("ToolFinished")
        assert await pause_until(
            pilot,
            lambda: any(
                f.target == "memory" and "the docs deploy to /srv/www" in f.disk and not f.in_sync
                for f in main.memory.view.files
            ),
        )

        from widgets.transcript_blocks import ToolBlock

        line = str(main.transcript.query(ToolBlock).last().render()).split("\n")[0]
        assert line.startswith("▸ memory  +memory") and line.count("memory  ") == 1, line  # the name once

        # A long reply: the bulk that /compress will summarise later.
        await say(pilot, app, "write the deploy notes")
        await turn_done(pilot, app, seen, 3)

        # A skill created: the skills pane lists it and marks it as the agent's.
        await say(pilot, app, "save the deploy skill")
        await turn_done(pilot, app, seen, 4)
        assert "SkillChanged" in kinds(seen, mark)
        assert await pause_until(pilot, lambda: main.skills.row("deploy-site") is not None)
        assert "deploy-site" in main.skills.changed

        # A destructive command asks first; approving once runs it.
        mark = len(seen)
        await say(pilot, app, "clean scratch")
        assert await pause_until(pilot, lambda: "ApprovalNeeded" in kinds(seen, mark), rounds=400)
        from widgets.transcript_blocks import ApprovalBlock

        assert await pause_until(pilot, lambda: bool(main.transcript.query(ApprovalBlock)))
        await pilot.press("ctrl+o", "1")
        await turn_done(pilot, app, seen, 5)
        assert not (app.workdir / "scratch").exists()
        assert "ToolFinished" in kinds(seen, mark)

        # /compress: the timeline gets an entry with tokens before and after.
        mark = len(seen)
        await say(pilot, app, "/compress the deploy")
        assert await pause_until(
            pilot, lambda: "CompressionFinished" in kinds(seen, mark) or "Notice" in kinds(seen, mark), 600
        )
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "CompressionFinished" in kinds(seen, mark), [
            getattr(m, "text", "") for m in seen[mark:] if isinstance(m, messages.Notice)
        ]
        assert main.compression.count >= 1
        record = main.compression.records[-1]
        assert record.finished is not None and record.finished.tokens_after < record.tokens_before

        # A slow reply, interrupted with ctrl+c: the turn ends early and the app is idle again.
        mark = len(seen)
        await say(pilot, app, "tell me a long story")
        assert await pause_until(pilot, lambda: kinds(seen, mark).count("TextDelta") >= 3, rounds=600)
        await pilot.press("ctrl+c")
        assert await pause_until(pilot, lambda: not app.turn_running, rounds=600)
        await app.workers.wait_for_complete()
        flow = kinds(seen, mark)
        assert "InterruptRequested" in flow or "TurnAborted" in flow
        assert flow.count("TextDelta") < len("Once upon a time there was a navbar. " * 60) // 4
        ours = {app.session_id, *main.compression.lineage}

        # /new ends this session; the sessions screen finds it again and resumes it.
        mark = len(seen)
        await say(pilot, app, "/new")
        await agent_ready_since(pilot, seen, mark)
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.session_id not in ours
        await pilot.press("ctrl+r")
        await app.workers.wait_for_complete()
        await pilot.pause()
        screen = app.screen
        assert type(screen).__name__ == "SessionsScreen"
        await pilot.press(*"navbar", "enter")
        assert await pause_until(pilot, lambda: screen.mode == "search" and not screen.reading, 400)
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert screen.rows, "the search found nothing"
        mark = len(seen)
        assert await pause_until(pilot, lambda: app.focused is screen.options, 50), "enter moves to the list"
        await pilot.press("r")
        assert await pause_until(
            pilot, lambda: any(isinstance(m, messages.SessionOpened) and m.resumed for m in seen[mark:]), 600
        )
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.screen is main
        opened = [m for m in seen[mark:] if isinstance(m, messages.SessionOpened) and m.resumed][-1]
        assert opened.session_id in ours, (opened.session_id, ours)
        assert app.session_id == opened.session_id


async def test_compress_with_nothing_to_compress_is_not_counted_as_a_compression(scripted: Any) -> None:
    """Early in a conversation every message is in the protected head or tail: /compress says so,
    and the timeline, the status bar and the transcript do not claim a compression (they showed
    `3.5K → 3.5K (−0%)`, `compressed 1×` and `session A → A` beside `Not compressed`)."""
    from widgets.transcript_blocks import NoticeBlock

    app = make_app_on(scripted)
    seen: list[Message] = []
    async with app.run_test(size=(160, 48), message_hook=seen.append) as pilot:
        await agent_started(pilot, app)
        main = app.main_screen
        await say(pilot, app, "hello there")
        await turn_done(pilot, app, seen, 1)
        await say(pilot, app, "/compress")
        finished = lambda: any(isinstance(m, messages.CompressionFinished) for m in seen)  # noqa: E731
        assert await pause_until(pilot, finished, rounds=600)
        await app.workers.wait_for_complete()
        await pilot.pause()
        event = next(m for m in seen if isinstance(m, messages.CompressionFinished)).event
        assert not event.compressed and "Nothing to compress" in event.note
        notices = [b.text for b in main.transcript.query(NoticeBlock)]
        assert any(n.startswith("Not compressed: Nothing to compress") for n in notices), notices
        assert not any(n.startswith("compressed ") for n in notices), notices
        assert main.compression.count == 0 and main.status.state.compressions == 0
        assert main.compression.summary == "0 this session"
        label = str(main.compression.timeline.root.children[0].label)
        assert "not compressed" in label and "−0%" not in label


async def test_model_switch_says_which_model_and_that_the_session_goes_on(scripted: Any) -> None:
    """/model NAME: its notice was cleared with the transcript a moment later, and the one left read
    "Switching the model 20260101_…" with no model in it."""
    from widgets.transcript_blocks import NoticeBlock

    app = make_app_on(scripted)
    seen: list[Message] = []
    async with app.run_test(size=(160, 48), message_hook=seen.append) as pilot:
        await agent_started(pilot, app)
        await say(pilot, app, "hello there")
        await turn_done(pilot, app, seen, 1)
        session = app.session_id
        mark = len(seen)
        await say(pilot, app, "/model other-model")
        await agent_ready_since(pilot, seen, mark)
        await app.workers.wait_for_complete()
        await pilot.pause()
        notices = [b.text for b in app.main_screen.transcript.query(NoticeBlock)]
        expected = (
            f"Switching the model to other-model; session {session} goes on; the prompt cache starts over "
            "(the next call sends the whole prompt uncached)…"
        )
        assert expected in notices, notices
        assert app.main_screen.status.state.model == "other-model"


async def test_another_program_reading_state_db_leaves_the_history_readable(scripted: Any) -> None:
    """`hws sessions list`, sqlite3 or Hermes reading state.db while the workstation ran: its
    connection, closing, took itself for the last one (our header check's open()/close() had dropped
    this process's locks), checkpointed and deleted the -wal and -shm under our connections; resuming
    then said 'Could not read state.db: could not convert string to float: 'user'' (or 'malformed')."""
    import subprocess
    import sys

    from widgets.transcript_blocks import NoticeBlock

    app = make_scripted_app(scripted)
    seen: list[Message] = []
    async with app.run_test(size=(120, 40), message_hook=seen.append) as pilot:
        await agent_started(pilot, app)
        await say(pilot, app, "hello there")
        await turn_done(pilot, app, seen, 1)
        first = app.session_id
        mark = len(seen)
        await say(pilot, app, "/new")
        await agent_ready_since(pilot, seen, mark)
        await say(pilot, app, "something else")
        await turn_done(pilot, app, seen, 2)
        reader = "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('SELECT id FROM sessions')"
        subprocess.run([sys.executable, "-c", reader, str(app.home.state_db)], check=True, timeout=30)
        assert Path(f"{app.home.state_db}-wal").exists(), "the other program did not take itself for the last"
        await say(pilot, app, "and more")
        await turn_done(pilot, app, seen, 3)
        await pilot.press("ctrl+r")
        assert await pause_until(pilot, lambda: len(getattr(app.screen, "rows", ())) == 2, 400)
        await pilot.press("down", "down")  # into the list, then the older conversation
        assert app.screen.highlighted_row().session_id == first
        mark = len(seen)
        await pilot.press("r")
        assert await pause_until(
            pilot, lambda: any(isinstance(m, messages.SessionOpened) and m.resumed for m in seen[mark:]), 600
        )
        await app.workers.wait_for_complete()
        for _ in range(5):
            await pilot.pause()
        notices = [b.text for b in app.main_screen.transcript.query(NoticeBlock)]
        assert not any("Could not read" in n for n in notices), notices
        assert "hello there" in [b.text for b in app.main_screen.transcript.query("UserBlock, StoredTurn")]


async def test_a_resume_says_when_it_is_done_which_session_and_how_many_messages(scripted: Any) -> None:
    """`↪ Resuming …` stayed the last word: the transcript never said the session was open again."""
    from widgets.transcript_blocks import NoticeBlock

    app = make_scripted_app(scripted)
    seen: list[Message] = []
    async with app.run_test(size=(120, 40), message_hook=seen.append) as pilot:
        await agent_started(pilot, app)
        await say(pilot, app, "hello there")
        await turn_done(pilot, app, seen, 1)
        first = app.session_id
        mark = len(seen)
        await say(pilot, app, "/new")
        await agent_ready_since(pilot, seen, mark)
        await say(pilot, app, "something else")
        await turn_done(pilot, app, seen, 2)
        await pilot.press("ctrl+r")
        assert await pause_until(pilot, lambda: len(getattr(app.screen, "rows", ())) == 2, 400)
        await pilot.press("down", "down")  # into the list, then the older conversation
        assert app.screen.highlighted_row().session_id == first
        await pilot.press("r")
        said = f"Resumed “hello there” ({first}): 2 messages."  # titled by its first words
        shown = lambda: [b.text for b in app.main_screen.transcript.query(NoticeBlock)]  # noqa: E731
        assert await pause_until(pilot, lambda: said in shown(), 600), shown()
        notices = shown()
        assert notices.index(said) > notices.index(f"Resuming {first}…"), notices
