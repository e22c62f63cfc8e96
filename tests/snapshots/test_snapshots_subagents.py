"""Pixels: subagents as nested blocks under their `delegate_task` call, one finished and one running,
one folded to its head, and the budget pane's subagents row counted apart from the session's calls.

Accept changes with `pytest tests/snapshots/test_snapshots_subagents.py --snapshot-update` after looking.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engine import events
from tests.snapshots.test_snapshots import freeze
from tests.support.tui_support import MODEL_CONFIG, SESSION, make_app
from tui import messages

STABLE_WORKDIR = Path("/srv/hws-snapshots/site")
CHILD_A, CHILD_B, CHILD_C = "20260101_120001_aaaaaa", "20260101_120002_bbbbbb", "20260101_120003_cccccc"
TASKS = {"tasks": [{"goal": "Audit the navbar's links"}, {"goal": "Check the build's warnings"}]}


def _progress(child: str, step: str, call: str, name: str, preview: str, calls: int, tokens: int) -> Any:
    return events.SubagentProgress(
        SESSION, child, "d1", step, call, name, preview, True, 0.3, calls, tokens, 40
    )


DELEGATION_EVENTS: list[events.Event] = [
    events.ToolCalled(SESSION, "d1", "delegate_task", TASKS, "2x: Audit the navbar's links"),
    events.SubagentStarted(SESSION, CHILD_A, "d1", 1, "Audit the navbar's links"),
    events.SubagentStarted(SESSION, CHILD_B, "d1", 2, "Check the build's warnings"),
    _progress(CHILD_A, "tool_called", "a1", "read_file", "src/nav.tsx", 1, 3_100),
    _progress(CHILD_B, "tool_called", "b1", "terminal", "npm run build", 1, 3_050),
    _progress(CHILD_A, "tool_finished", "a1", "read_file", "88 lines", 1, 3_100),
    _progress(CHILD_A, "tool_called", "a2", "search_files", "href=", 2, 6_400),
    _progress(CHILD_A, "tool_finished", "a2", "search_files", "7 matches", 2, 6_400),
    events.SubagentFinished(
        SESSION,
        CHILD_A,
        "d1",
        1,
        "completed",
        "All 7 links resolve; /blog lacks a trailing slash.",
        2,
        3,
        9_800,
        160,
        2.4,
    ),
    events.SubagentStarted(SESSION, CHILD_C, "d2", 1, "Run the link checker on the whole site", True),
    events.SubagentFinished(
        SESSION, CHILD_C, "d2", 1, "completed", "No broken links.", 1, 2, 4_000, 30, 5.0, True
    ),
]


async def play_delegation(pilot: Any) -> None:
    app = pilot.app
    await pilot.pause()
    main = app.main_screen
    main.post_message(messages.TurnSubmitted("Audit the navbar and the build, in parallel."))
    for event in DELEGATION_EVENTS:
        main.post_message(messages.to_message(event))
    await pilot.pause()
    await app.workers.wait_for_complete()
    await pilot.pause()
    main.transcript.subagents[CHILD_C].toggle()  # folded to its head
    await freeze(pilot)


def test_subagent_blocks_120x36(snap_compare) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(
        make_app(MODEL_CONFIG, workdir=STABLE_WORKDIR), terminal_size=(120, 36), run_before=play_delegation
    )
