"""`hws demo` in the workstation: the script typed into the real app, through to its checks."""

from __future__ import annotations

import re
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from engine.demo.script import load_demo
from engine.demo.workspace import DemoWorkspace
from tui import messages
from tui.demo import DemoApp, Pace

DOUBLED_STOP = re.compile(r"(?<!\.)\.\.(?!\.)")  # two full stops, not an ellipsis
FAST = Pace(chars_per_second=1000.0, caption_seconds=0.0, turn_pause_seconds=0.0, speed=50.0)


def watchers() -> int:
    return sum(1 for thread in threading.enumerate() if thread.name == "hws-watch-flush")


def workspace_in(tmp_path: Path) -> DemoWorkspace:
    workspace = DemoWorkspace.create(load_demo("day-of-work"), keep=tmp_path / "demo-home")
    workspace.start_server(chunk_delay=0.0)
    return workspace


async def test_the_demo_plays_to_its_end_through_the_workstation(tmp_path: Path) -> None:
    workspace = workspace_in(tmp_path)
    watching_before = watchers()
    app = DemoApp(workspace, FAST)
    seen: list[Any] = []
    try:
        async with app.run_test(size=(140, 45), message_hook=seen.append) as pilot:
            # Every count the status bar is given (the count is per session, and the demo's last step
            # starts a new one; sampling it now and then could miss the moment it showed 1).
            status = app.main_screen.status
            counts: list[int] = []
            shown = status.update_state

            def recording(**changes: Any) -> None:
                shown(**changes)
                counts.append(status.state.compressions)

            status.update_state = recording  # type: ignore[method-assign]
            deadline = time.monotonic() + 240
            while not app.finished and time.monotonic() < deadline:
                await pilot.pause(0.2)
            compressions_seen = max(counts, default=0)
            assert app.finished, f"the demo stopped after {app.steps_played} steps"
            assert app.report is not None
            failed = [r.check.describe() for r in app.report.checks if not r.ok]
            assert failed == []
            assert app.steps_played == len(workspace.script.steps)
            prompt = app.main_screen.prompt
            said = [step.text for step in workspace.script.steps if step.kind == "say"]
            assert prompt.history[-len(said) :] == said, "every user message went through the input"
            assert compressions_seen >= 1, "the compression reached the status bar"
            assert app.main_screen.status.state.model == workspace.script.model.model
            notices = [m.text for m in seen if isinstance(m, messages.Notice)]
            assert any("The new session's prompt already holds" in text for text in notices)
            assert [t for t in notices if DOUBLED_STOP.search(t)] == [], "a sentence joined to a sentence"
            # After the end, space and n are plain keys again: the person types in the demo home.
            prompt.input.focus()
            await pilot.press("n", "space", "o")
            assert prompt.text == "n o"
    finally:
        workspace.remove()
    assert watchers() == watching_before, "the app started one file watcher and stopped it"
    user = (workspace.home.memories / "USER.md").read_text()
    assert "hate" in user.lower() and "light themes" in user


async def test_space_pauses_and_n_plays_one_step(tmp_path: Path) -> None:
    workspace = workspace_in(tmp_path)
    slow = Pace(chars_per_second=1000.0, caption_seconds=30.0, turn_pause_seconds=30.0, speed=1.0)
    app = DemoApp(workspace, slow)
    try:
        async with app.run_test(size=(140, 45)) as pilot:
            await pilot.pause(0.3)
            assert app.steps_played == 0  # the first caption waits its 30 s
            await pilot.press("space")
            assert app.paused
            await pilot.press("n")  # cuts the caption's wait short; the next step waits for another n
            await pilot.pause(0.5)
            assert app.steps_played == 1
            await pilot.pause(0.5)
            assert app.steps_played == 1, "paused after one step"
            await pilot.press("space")
            assert not app.paused
    finally:
        workspace.remove()


class _Terminal:
    def isatty(self) -> bool:
        return True


def test_hws_demo_opens_the_workstation_only_in_a_terminal_and_not_headless(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tui.main import _demo_arguments

    assert _demo_arguments(["demo", "--headless"]) is None
    assert _demo_arguments(["demo"]) is None, (
        "no terminal (pytest): the CLI explains and points at --headless"
    )
    monkeypatch.setattr(sys, "stdin", _Terminal())
    monkeypatch.setattr(sys, "stdout", _Terminal())
    assert _demo_arguments(["demo", "--speed", "2"]) == ["--speed", "2"]
    assert _demo_arguments(["--home", "/x", "demo", "--keep", "/y"]) == ["--keep", "/y"]
    assert _demo_arguments(["demo", "--list"]) is None and _demo_arguments(["memory", "show"]) is None
