"""A skill's slash command, typed as a person does (Tab completes the name), with the real agent and
the scripted model: the skill is loaded for that turn (its whole SKILL.md is in the message the model
gets) and the skills pane shows it as loaded. Text that only looks like one goes as typed."""

from __future__ import annotations

import json
import os
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from textual.message import Message

from engine.config import load_config
from tests.support.fault_support import assert_clean_exit, hws, stored_messages, write_config, write_scenario
from tests.support.tui_support import make_home, pause_until, settle, turn_done
from tui.agent_port import AgentBuilder, with_overrides
from tui.app import HwsApp
from tui.catalogs import skill_catalog
from tui.read_history import as_typed

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
        instruction = "The user has provided the following instruction alongside the skill invocation: "
        assert sent.endswith(instruction + "for the changelog page"), sent[-200:]
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
    assert "instruction alongside the skill invocation" not in message


def first_user_message(log: Path) -> str:
    requests = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines() if line.strip()]
    request = next(r for r in requests if r["path"].endswith("/chat/completions"))
    return str(next(m["content"] for m in request["body"]["messages"] if m["role"] == "user"))


def hws_run_with_skill(hermes_home: Path, tmp_path: Path, *args: str, stdin: str = "") -> tuple[str, str]:
    """`hws run ARGS` on a home holding the skill: (the first user message the model got, stderr)."""
    folder = hermes_home / "skills" / "web" / "static-site-navbar"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(SKILL, encoding="utf-8")
    write_config(hermes_home, review={"enabled": False})
    scenario = write_scenario(tmp_path, SCENARIO)
    log = tmp_path / "requests.jsonl"
    done = hws(
        "run",
        "--scenario",
        str(scenario),
        "--request-log",
        str(log),
        *args,
        home=hermes_home,
        cwd=tmp_path,
        stdin=stdin,
    )
    assert_clean_exit(done, (0,))
    return first_user_message(log), done.stderr


def test_hws_run_loads_a_skill_named_by_its_prompt(hermes_home: Path, tmp_path: Path) -> None:
    sent, stderr = hws_run_with_skill(hermes_home, tmp_path, "/static-site-navbar for the changelog page")
    assert sent.startswith('[IMPORTANT: The user has invoked the "static-site-navbar" skill'), sent[:200]
    assert "Keep the links in site order: home, docs, changelog." in sent
    assert sent.endswith("alongside the skill invocation: for the changelog page"), sent[-200:]
    assert "skill     loaded static-site-navbar" in stderr, stderr
    # state.db keeps the message the model got (as Hermes does); the transcript reads it as typed
    stored = [content for _sid, role, content in stored_messages(hermes_home / "state.db") if role == "user"]
    assert stored == [sent]
    assert as_typed(sent) == "/static-site-navbar for the changelog page"


def test_hws_run_sends_a_piped_text_as_it_is(hermes_home: Path, tmp_path: Path) -> None:
    sent, stderr = hws_run_with_skill(
        hermes_home, tmp_path, stdin="/static-site-navbar for the changelog page\n"
    )
    assert sent == "/static-site-navbar for the changelog page\n"
    assert "loaded" not in stderr
