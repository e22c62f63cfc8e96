"""The panes' numbers stay true through a day's moves, with the real agent on a scripted 32K model: the
folded tab strip at 80x24 shows them without a tab being focused, the budget keeps the session's calls
across `/model`, and a new session's preview measures against the window the endpoint reported."""

from __future__ import annotations

import os
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from textual.message import Message

from engine.config import load_config
from tests.support.tui_support import (
    agent_ready_since,
    make_home,
    pause_until,
    say,
    settle,
    turn_done,
)
from tui.agent_port import AgentBuilder, with_overrides
from tui.app import HwsApp
from tui.catalogs import skill_catalog

SCENARIO = """
name: small window
model: scripted
context_length: 32000
rules:
  - reply: {text: "Noted."}
"""

SKILL = """---
name: release-notes
description: Write the release notes from the merged pull requests.
---
# Release notes

Group the changes by area; one line each.
"""


def make_pane_app(model: Any) -> HwsApp:
    home = make_home("review:\n  enabled: false\n")
    folder = home.skills / "writing" / "release-notes"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(SKILL, encoding="utf-8")
    workdir = Path(os.environ["HOME"]) / "code" / "site"
    workdir.mkdir(parents=True, exist_ok=True)
    config = with_overrides(load_config(home.root), model.overrides)
    return HwsApp(
        home,
        config,
        agent_factory=AgentBuilder(workdir, model.overrides),
        skill_source=partial(skill_catalog, home, config),
        workdir=workdir,
    )


def tab_line(app: HwsApp) -> str:
    return str(app.main_screen.query_one("#pane-tabs").render())


@pytest.mark.parametrize("start", [(80, 24), (160, 48)], ids=["started-folded", "folded-by-a-resize"])
async def test_the_folded_tab_strip_shows_each_panes_number_before_any_tab_is_focused(
    scripted: Any, start: tuple[int, int]
) -> None:
    app = make_pane_app(scripted)
    async with app.run_test(size=start) as pilot:
        await settle(pilot, app)
        main = app.main_screen
        assert await pause_until(pilot, lambda: main.skills.brief == "0/1", rounds=600), main.skills.brief
        assert await pause_until(pilot, lambda: main.budget.brief not in ("", "0%"), rounds=600)
        await pilot.resize_terminal(80, 24)  # the person narrows the terminal (tmux split, a laptop)
        await pilot.pause()
        assert main.folded
        line = tab_line(app)
        assert f"Skills {main.skills.brief}" in line, line
        assert f"Budget {main.budget.brief}" in line, line
        assert main.shown == "transcript"  # no tab was focused to bring them up to date


async def test_the_budget_keeps_the_sessions_calls_across_a_model_switch(scripted: Any) -> None:
    app = make_pane_app(scripted)
    seen: list[Message] = []
    async with app.run_test(size=(160, 48), message_hook=seen.append) as pilot:
        await settle(pilot, app)
        assert await pause_until(pilot, lambda: app.agent is not None, rounds=600)
        await say(pilot, app, "we ship on fridays")
        await turn_done(pilot, app, seen, 1)
        budget = app.main_screen.budget
        assert budget.totals.calls == 1
        mark = len(seen)
        await say(pilot, app, "/model scripted-2")
        await agent_ready_since(pilot, seen, mark)
        await app.workers.wait_for_complete()
        await pilot.pause()
        table = budget.render_table().plain
        assert "no calls yet" not in table, table
        assert "session 1 call" in table, table


async def test_a_new_session_previews_against_the_window_the_endpoint_reported(scripted: Any) -> None:
    app = make_pane_app(scripted)
    seen: list[Message] = []
    async with app.run_test(size=(160, 48), message_hook=seen.append) as pilot:
        await settle(pilot, app)
        assert await pause_until(pilot, lambda: app.agent is not None, rounds=600)
        await say(pilot, app, "we ship on fridays")
        await turn_done(pilot, app, seen, 1)
        budget = app.main_screen.budget
        assert await pause_until(pilot, lambda: budget.context_window == 32_000, rounds=600)
        mark = len(seen)
        await pilot.press("ctrl+n")
        await agent_ready_since(pilot, seen, mark)
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert budget.view.preview, "a new session shows the first message's prompt"
        assert budget.context_window == 32_000, budget.context_window
        assert "of 32K" in budget.render_table().plain
