"""`/rollback` in the workstation, as a person uses it: the agent edits the project (a real agent on the
scripted model), the checkpoint event reaches the screen, and `/rollback` lists the checkpoint by turn,
shows its diff on enter and restores it on a second enter."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.message import Message
from textual.widgets import OptionList, Static

from tests.support.tui_support import (
    agent_started,
    make_scripted_app,
    pause_until,
    say,
    scripted_model,
    turn_done,
)
from tui import messages
from tui.screens.rollback import RollbackScreen
from widgets.transcript_blocks import NoticeBlock

SCENARIO = """
name: rollback
model: scripted
context_length: 32000
defaults: {chunk_size: 40, chunk_delay: 0}
rules:
  - name: after a tool
    when: {after_tool: true}
    reply: {text: "Done."}
  - name: rewrite
    when: {user: "(?i)^rewrite notes", tools: [write_file, terminal]}
    reply:
      tool_calls:
        - {name: write_file, arguments: {path: notes.txt, content: "the agent's notes\\n"}}
        - {name: terminal, arguments: {command: "echo stray > stray.txt"}}
  - name: anything
    reply: {text: "You said {{last_user}}."}
"""


@pytest.fixture
def scripted(tmp_path: Path) -> Any:
    with scripted_model(tmp_path, SCENARIO) as model:
        yield model


def shown(screen: RollbackScreen) -> str:
    return str(screen.query_one("#rollback-diff", Static).content)


async def test_rollback_lists_the_turns_checkpoint_shows_its_diff_and_restores_it(scripted: Any) -> None:
    app = make_scripted_app(scripted, config_yaml="agent:\n  yolo: true\n")
    notes = app.workdir / "notes.txt"
    notes.write_text("my own notes\n", encoding="utf-8")
    seen: list[Message] = []
    async with app.run_test(size=(140, 44), message_hook=seen.append) as pilot:
        await agent_started(pilot, app)
        await say(pilot, app, "rewrite notes")
        await turn_done(pilot, app, seen, 1)
        assert notes.read_text() == "the agent's notes\n" and (app.workdir / "stray.txt").exists()
        taken = [m.event for m in seen if type(getattr(m, "event", None)).__name__ == "CheckpointTaken"]
        assert len(taken) == 1 and taken[0].turn == 1, [type(m).__name__ for m in seen]
        notices = [block.text for block in app.main_screen.transcript.query(NoticeBlock)]
        assert any(
            n.startswith(f"checkpoint {taken[0].checkpoint_id} of ")
            and n.endswith("before write_file notes.txt (/rollback)")
            for n in notices
        ), notices

        await say(pilot, app, "/rollback")
        assert await pause_until(pilot, lambda: isinstance(app.screen, RollbackScreen), rounds=400)
        screen = app.screen
        options = screen.query_one("#rollback-list", OptionList)
        assert await pause_until(pilot, lambda: options.option_count == 1, rounds=600)
        line = str(options.get_option_at_index(0).prompt)
        assert "turn 1: write_file notes.txt" in line and taken[0].checkpoint_id in line, line
        assert "since: 2 files" in line, line

        await pilot.press("enter")  # the diff first
        assert await pause_until(pilot, lambda: "Press enter again" in shown(screen), rounds=600)
        text = shown(screen)
        assert "-the agent's notes\n+my own notes" in text, text  # as the restore would change it
        assert "removed (made after the checkpoint): stray.txt" in text, text
        assert notes.read_text() == "the agent's notes\n"  # nothing restored on the first enter

        await pilot.press("enter")  # then the restore
        assert await pause_until(pilot, lambda: not isinstance(app.screen, RollbackScreen), rounds=600)
        assert notes.read_text() == "my own notes\n"
        assert not (app.workdir / "stray.txt").exists()
        said = [m.text for m in seen if isinstance(m, messages.Notice)]
        assert any("Restored" in t and taken[0].checkpoint_id in t for t in said), said


def offers(app: Any) -> list[str]:
    return [
        b.text for b in app.main_screen.transcript.query(NoticeBlock) if "The rewound turns changed" in b.text
    ]


async def test_undo_offers_to_roll_back_the_files_the_rewound_turns_changed_and_never_does_unasked(
    scripted: Any,
) -> None:
    app = make_scripted_app(scripted, config_yaml="agent:\n  yolo: true\n")
    notes = app.workdir / "notes.txt"
    notes.write_text("my own notes\n", encoding="utf-8")
    seen: list[Message] = []
    async with app.run_test(size=(140, 44), message_hook=seen.append) as pilot:
        await agent_started(pilot, app)
        main = app.main_screen

        # A turn that changed no file: taken back with nothing to offer.
        await say(pilot, app, "hello")
        await turn_done(pilot, app, seen, 1)
        await say(pilot, app, "/undo")
        assert await pause_until(
            pilot, lambda: any(isinstance(m, messages.ConversationRewound) for m in seen)
        )
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert offers(app) == []
        main.prompt.set_text("")

        await say(pilot, app, "rewrite notes")
        await turn_done(pilot, app, seen, 2)
        taken = [m.event for m in seen if type(getattr(m, "event", None)).__name__ == "CheckpointTaken"]
        assert len(taken) == 1
        checkpoint = taken[0].checkpoint_id
        mark = len(seen)
        await say(pilot, app, "/undo 1")
        assert await pause_until(pilot, lambda: len(offers(app)) == 1, rounds=600), [
            type(m).__name__ for m in seen[mark:]
        ]
        [offer] = offers(app)
        assert f"2 files in {app.workdir} differ from checkpoint {checkpoint}" in offer, offer
        assert f"`/rollback {checkpoint}`" in offer
        assert main.prompt.text == "rewrite notes"  # the message is back in the input, as ever
        assert notes.read_text() == "the agent's notes\n"  # offered, not done
        assert (app.workdir / "stray.txt").exists()

        main.prompt.set_text("")
        await say(pilot, app, f"/rollback {checkpoint}")
        assert await pause_until(pilot, lambda: isinstance(app.screen, RollbackScreen), rounds=400)
        screen = app.screen
        assert await pause_until(pilot, lambda: "Press enter again" in shown(screen), rounds=600)
        assert "-the agent's notes\n+my own notes" in shown(screen)
        await pilot.press("enter")
        assert await pause_until(pilot, lambda: not isinstance(app.screen, RollbackScreen), rounds=600)
        assert notes.read_text() == "my own notes\n"
        assert not (app.workdir / "stray.txt").exists()
