"""A skill's slash command, typed as a person does (Tab completes the name), with the real agent and
the scripted model: the skill is loaded for that turn (its whole SKILL.md is in the message the model
gets) and the skills pane shows it as loaded. Text that only looks like one goes as typed."""

from __future__ import annotations

import os
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from textual.message import Message

from engine.config import load_config
from tests.tui_support import make_home, pause_until, scripted_model, settle, turn_done
from tui.agent_port import AgentBuilder, with_overrides
from tui.app import HwsApp
from tui.catalogs import skill_catalog

SKILL = """---
name: static-site-navbar
description: Build the navbar of a static site page.
---
# Navbar

1. Read the page's layout first.
2. Keep the links in site order: home, docs, changelog.
"""

SCENARIO = """
name: skills
model: scripted
rules:
  - reply: {text: "On it."}
"""


@pytest.fixture
def scripted(tmp_path: Path) -> Any:
    with scripted_model(tmp_path, SCENARIO) as model:
        yield model


def make_skill_app(model: Any) -> HwsApp:
    home = make_home("review:\n  enabled: false\n")
    folder = home.skills / "web" / "static-site-navbar"
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


def last_user_message(model: Any) -> str:
    messages = model.server.chat_requests[-1].messages
    return str(next(m["content"] for m in reversed(messages) if m["role"] == "user"))


async def test_a_skill_command_completed_with_tab_loads_the_skill_for_that_turn(scripted: Any) -> None:
    app = make_skill_app(scripted)
    seen: list[Message] = []
    async with app.run_test(size=(160, 48), message_hook=seen.append) as pilot:
        await settle(pilot, app)
        assert await pause_until(pilot, lambda: app.agent is not None and bool(app.skill_entries), rounds=600)
        app.main_screen.prompt.input.focus()
        await pilot.press("slash", *"static-site")
        await pilot.pause()
        await pilot.press("tab", *"for the changelog page", "enter")
        await turn_done(pilot, app, seen, 1)

        sent = last_user_message(scripted)
        assert sent.startswith('[IMPORTANT: The user has invoked the "static-site-navbar" skill'), sent[:200]
        assert "Keep the links in site order: home, docs, changelog." in sent
        assert "The user's instruction: for the changelog page" in sent
        assert "[Skill directory: " in sent and "static-site-navbar]" in sent

        skills_pane = app.main_screen.skills
        assert await pause_until(pilot, lambda: "1 loaded" in str(skills_pane.summary), rounds=400)
        row = next(r for r in skills_pane.view.rows if r.name == "static-site-navbar")
        assert row.tier == 2 and row.loaded_tokens > 0, row


@pytest.mark.parametrize("text", ["/etc/hosts looks wrong", "/no-such-skill please", "static-site-navbar"])
def test_text_that_only_looks_like_a_skill_command_goes_as_typed(hermes_home: Path, text: str) -> None:
    from engine.home import Home
    from engine.skills.invoke import turn_message
    from engine.skills.tools import SkillTools

    home = Home.resolve(hermes_home).ensure()
    folder = home.skills / "web" / "static-site-navbar"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(SKILL, encoding="utf-8")
    skills = SkillTools(home, load_config(home.root))
    assert turn_message(skills, text) == (text, "")
    assert skills.tiers.get("static-site-navbar") is None, "nothing was loaded"
    message, warning = turn_message(skills, "/static-site-navbar")
    assert message.startswith("[IMPORTANT") and not warning
    assert "The user's instruction" not in message
