"""A Hermes home's config.yaml: Hermes' own settings are kept in silence, typos still warn.

`tests/support/fixtures/hermes-0.19.0-config.yaml` holds every default of Hermes Agent 0.19.0 (made by
`make_hermes_config.py` with the real Hermes); it gave 153 warnings, shown as toasts at start.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from engine.cli.doctor import run_checks
from engine.config import load_config
from engine.hermes_settings import hermes_setting_names, hermes_version
from engine.home import Home
from tests.support.tui_support import MODEL_CONFIG, ScriptedAgent, make_app, settle
from widgets.transcript_blocks import NoticeBlock

FIXTURE = Path(__file__).resolve().parents[1] / "support" / "fixtures" / "hermes-0.19.0-config.yaml"
REALISTIC = """\
model:
  default: scripted
  base_url: http://127.0.0.1:9/v1
display:
  personality: kawaii
  show_reasoning: false
terminal:
  backend: local
  timeout: 120
skills:
  creation_nudge_interval: 15
memory:
  memroy_char_limit: 3000
"""
HERMES_ONES = ["display.personality", "skills.creation_nudge_interval"]  # terminal.backend is hws' too


def test_a_config_holding_every_hermes_default_loads_without_one_warning(hermes_home: Path) -> None:
    hermes_home.mkdir(parents=True, exist_ok=True)
    shutil.copy(FIXTURE, hermes_home / "config.yaml")
    config = load_config(hermes_home)
    assert config.warnings == []
    hermes = {"display.personality", "terminal.docker_volumes", "auxiliary.vision", "slack"}
    assert hermes | {"mcp.auto_reload_on_config_change"} <= set(config.hermes_only)
    assert config.terminal.timeout == 180  # a value both programs share is still read
    assert "fallback_providers" not in config.hermes_only  # hws reads it too: providers to go on with
    assert config.get("fallback_providers") == []


def test_hermes_settings_are_kept_in_silence_and_a_typo_still_warns(hermes_home: Path) -> None:
    hermes_home.mkdir(parents=True, exist_ok=True)
    (hermes_home / "config.yaml").write_text(REALISTIC, encoding="utf-8")
    config = load_config(hermes_home)
    assert len(config.warnings) == 1, config.warnings
    typo = "unknown setting `memory.memroy_char_limit` is ignored; did you mean `memory.memory_char_limit`?"
    assert typo in config.warnings[0]
    assert config.hermes_only == HERMES_ONES
    assert config.raw["display"]["personality"] == "kawaii"  # kept, for Hermes and for `hws config`
    assert config.display.show_reasoning is False and config.terminal.timeout == 120


def test_doctor_lists_hermes_settings_once_and_does_not_warn_about_them(hermes_home: Path) -> None:
    hermes_home.mkdir(parents=True, exist_ok=True)
    (hermes_home / "config.yaml").write_text(REALISTIC, encoding="utf-8")
    findings = [f for f in run_checks(Home(hermes_home), endpoint=False) if f.area == "config"]
    mentions = [f for f in findings if "display.personality" in f.message]
    assert len(mentions) == 1 and mentions[0].level == "ok"
    assert all(name in mentions[0].message for name in HERMES_ONES)
    assert mentions[0].message.startswith("2 settings of Hermes Agent that hws does not use")
    warned = [f.message for f in findings if f.level == "warning"]
    assert len(warned) == 1 and "memroy_char_limit" in warned[0]


def test_the_list_of_hermes_names_is_the_one_made_from_hermes_0_19() -> None:
    names = hermes_setting_names()
    assert hermes_version() == "0.19.0"
    assert len(names) > 400
    assert {"memory.write_approval", "skills.inline_shell", "sessions.min_interval_hours"} <= names


async def test_the_workstation_shows_no_warning_for_a_hermes_homes_own_settings() -> None:
    """At start every config warning is a toast and a transcript line: only the typo is left."""
    config = MODEL_CONFIG + "".join(REALISTIC.splitlines(keepends=True)[3:])
    app = make_app(config, agent=ScriptedAgent())
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        shown = [str(block.render()) for block in app.main_screen.transcript.query(NoticeBlock)]
        toasts = [n.message for n in app._notifications]
        for name in HERMES_ONES:
            assert not any(name in text for text in shown + toasts), (name, shown, toasts)
        assert any("memroy_char_limit" in text for text in shown)
        assert any("memroy_char_limit" in text for text in toasts)
