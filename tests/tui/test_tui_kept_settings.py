"""`/theme` and `/model NAME` are kept in config.yaml, as Posting and Harlequin keep their theme: the
file keeps the person's comments and layout, the next start opens in the theme and on the model, and a
run whose model is not the file's (`--scripted`) leaves the file alone."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from textual.message import Message

from engine.config import load_config
from engine.home import Home
from engine.kept_settings import SettingNotKept, keep_setting
from tests.support.tui_support import (
    agent_ready_since,
    make_app,
    make_home,
    make_scripted_app,
    pause_until,
    say,
    settle,
    turn_done,
)
from tui.agent_port import AgentBuilder
from tui.app import HwsApp

SCENARIO = """
name: kept
model: scripted
rules:
  - reply: {text: "Noted."}
"""

CONFIG = """# My hws settings, written by hand.
model:
  # the scripted server stands in for the real endpoint
  default: scripted   # the model I use most
  base_url: {base_url}
  provider: custom

display:
  # dark, always
  theme: hws-dark
  show_reasoning: true

review:
  enabled: false   # no background review in tests
"""


def config_text(model: Any) -> str:
    return CONFIG.replace("{base_url}", model.server.base_url)


def app_on_the_file(home: Home) -> HwsApp:
    """The workstation as `hws` starts it: the model is the one config.yaml names (no overrides)."""
    workdir = Path(os.environ["HOME"]) / "code" / "site"
    workdir.mkdir(parents=True, exist_ok=True)
    return HwsApp(home, load_config(home.root), agent_factory=AgentBuilder(workdir), workdir=workdir)


def watch_notices(app: HwsApp) -> list[str]:
    notices: list[str] = []
    original = app.notify
    app.notify = lambda message, **kw: (notices.append(str(message)), original(message, **kw))[1]  # type: ignore[method-assign]
    return notices


def without(text: str, *lines: str) -> list[str]:
    return [line for line in text.splitlines() if line not in lines]


async def test_a_theme_picked_in_the_picker_is_kept_in_config_yaml_and_the_next_start_opens_in_it(
    scripted: Any,
) -> None:
    before = config_text(scripted)
    app = make_app(before)
    async with app.run_test() as pilot:
        notices = watch_notices(app)
        app.main_screen.prompt.set_text("/theme")
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press(*"nord")
        await pilot.pause()
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.theme == "nord"
        assert any(
            n.startswith("Theme nord kept: display.theme in ~/.hermes/config.yaml") for n in notices
        ), notices
    after = app.home.config_file.read_text(encoding="utf-8")
    # One line changed; every comment, blank line and other setting is where the person put it.
    assert without(after, "  theme: nord") == without(before, "  theme: hws-dark"), after
    assert load_config(app.home.root).display.theme == "nord"

    again = make_app()  # the next start, on the same home
    async with again.run_test() as pilot:
        await pilot.pause()
        assert again.theme == "nord"


async def test_a_model_switch_is_kept_in_config_yaml_and_the_next_start_uses_it(scripted: Any) -> None:
    before = config_text(scripted)
    home = make_home(before)
    app = app_on_the_file(home)
    seen: list[Message] = []
    async with app.run_test(size=(160, 48), message_hook=seen.append) as pilot:
        notices = watch_notices(app)
        await settle(pilot, app)
        assert await pause_until(pilot, lambda: app.agent is not None, rounds=600)
        mark = len(seen)
        await say(pilot, app, "/model scripted-large")
        await agent_ready_since(pilot, seen, mark)
        await app.workers.wait_for_complete()
        await pilot.pause()
        kept = "Model scripted-large kept: model.default in ~/.hermes/config.yaml"
        assert any(n.startswith(kept) for n in notices), notices
    after = home.config_file.read_text(encoding="utf-8")
    assert without(after, "  default: scripted-large   # the model I use most") == without(
        before, "  default: scripted   # the model I use most"
    ), after

    again = app_on_the_file(home)  # the next start asks the new model
    seen = []
    async with again.run_test(size=(160, 48), message_hook=seen.append) as pilot:
        await settle(pilot, again)
        assert await pause_until(pilot, lambda: again.agent is not None, rounds=600)
        assert again.main_screen.status.state.model == "scripted-large"
        await say(pilot, again, "we ship on fridays")
        await turn_done(pilot, again, seen, 1)
    assert scripted.server.chat_requests[-1].body["model"] == "scripted-large"


async def test_a_model_switch_on_the_scripted_model_leaves_config_yaml_alone(scripted: Any) -> None:
    app = make_scripted_app(scripted, "# mine\ndisplay:\n  theme: hws-dark\n")
    before = app.home.config_file.read_text(encoding="utf-8")
    seen: list[Message] = []
    async with app.run_test(size=(160, 48), message_hook=seen.append) as pilot:
        notices = watch_notices(app)
        await settle(pilot, app)
        assert await pause_until(pilot, lambda: app.agent is not None, rounds=600)
        mark = len(seen)
        await say(pilot, app, "/model scripted-large")
        await agent_ready_since(pilot, seen, mark)
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert any(n.startswith("Model scripted-large for this run only") for n in notices), notices
    assert app.home.config_file.read_text(encoding="utf-8") == before


def test_a_config_the_line_editor_cannot_change_is_left_as_it_is(hermes_home: Path) -> None:
    home = Home.resolve(hermes_home).ensure()
    text = "# mine\ndisplay: {theme: hws-dark, show_reasoning: true}\n"
    home.config_file.write_text(text, encoding="utf-8")
    with pytest.raises(SettingNotKept, match=r"set display\.theme: nord by hand"):
        keep_setting(home, "theme", "nord")
    assert home.config_file.read_text(encoding="utf-8") == text
