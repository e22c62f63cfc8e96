"""Skills that need settings, end to end: what Hermes' frontmatter declares (environment variables,
`metadata.hermes.config`, `compatibility`) is parsed as Hermes parses it, listed when missing, explained
by `hws skills view`, and handed to the model when the skill loads, with secrets named, never valued."""

from __future__ import annotations

from pathlib import Path

from engine.skills.needs import EnvNeed, needs_from
from tests.support.fault_support import (
    assert_clean_exit,
    files_containing,
    hws,
    stored_messages,
    write_scenario,
)

SECRET = "wx-9f1c2e7a44d0b6c3"  # a value that must reach no prompt, no database, no log
SKILL = """---
name: weather-report
description: Write a weather report for a city. Use when asked about the weather.
compatibility: Needs network access to the weather API.
required_environment_variables:
  - name: WEATHER_API_KEY
    prompt: Your weather API key
    help: https://weather.example/keys
  - name: WEATHER_ACCOUNT
    optional: true
prerequisites:
  env_vars: [STATION_TOKEN]
metadata:
  hermes:
    config:
      - key: weather.units
        description: Units for temperatures
        default: metric
      - key: weather.city
        description: The city to report on
---

# Weather report

Call the API with $WEATHER_API_KEY and report in the configured units.
"""
SCENARIO = """
name: settings
model: scripted
rules:
  - name: after a tool
    when: {after_tool: true}
    reply:
      text: "Loaded."
  - name: load
    when: {user: "(?i)^load (\\\\S+)", tools: [skill_view]}
    reply:
      tool_calls:
        - name: skill_view
          arguments: {name: "{{match.1}}"}
  - name: anything else
    when: {}
    reply:
      text: "Done."
"""


def make_home(home: Path, *, city: str = "") -> None:
    skill = home / "skills" / "weather" / "weather-report"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(SKILL, encoding="utf-8")
    (home / ".env").write_text(f"WEATHER_API_KEY={SECRET}\n", encoding="utf-8")
    config = "skills:\n  config:\n    weather:\n      units: imperial\n"
    (home / "config.yaml").write_text(config + (f"      city: {city}\n" if city else ""), encoding="utf-8")


def test_hermes_fields_are_read_as_hermes_reads_them() -> None:
    import yaml

    meta = yaml.safe_load(SKILL.split("---")[1])
    meta["setup"] = {"help": "See the docs.", "collect_secrets": [{"env_var": "EXTRA", "provider_url": "u"}]}
    needs = needs_from(meta)
    assert [need.name for need in needs.env] == [
        "WEATHER_API_KEY",
        "WEATHER_ACCOUNT",
        "EXTRA",
        "STATION_TOKEN",
    ]
    assert needs.env[0] == EnvNeed("WEATHER_API_KEY", "Your weather API key", "https://weather.example/keys")
    assert needs.env[1].optional and needs.env[3].help == "See the docs."
    assert [(c.key, c.default) for c in needs.config] == [("weather.units", "metric"), ("weather.city", None)]
    assert needs.compatibility == "Needs network access to the weather API."
    assert not needs_from({"required_environment_variables": ["not a name", "1BAD"]}).env


def test_the_model_is_told_which_secrets_are_set_by_name_and_gets_config_values(
    hermes_home: Path, tmp_path: Path
) -> None:
    make_home(hermes_home)
    scenario = write_scenario(tmp_path, SCENARIO)
    done = hws(
        "run", "--scenario", str(scenario), "load weather-report", home=hermes_home, env=None, cwd=tmp_path
    )
    assert_clean_exit(done, (0,))
    tool = next(
        content for _sid, role, content in stored_messages(hermes_home / "state.db") if role == "tool"
    )
    assert "WEATHER_API_KEY is set" in tool and "STATION_TOKEN is not set" in tool
    assert "WEATHER_ACCOUNT is not set (optional)" in tool
    assert "weather.units = imperial" in tool and "weather.city = (not set)" in tool
    assert "Setup needed: STATION_TOKEN, skills.config.weather.city missing" in tool
    assert "Needs network access" in tool
    assert SECRET not in done.stdout + done.stderr
    assert files_containing(hermes_home, SECRET.encode()) == []  # only .env holds it


def test_a_slash_invocation_carries_the_same_settings(hermes_home: Path, tmp_path: Path) -> None:
    make_home(hermes_home, city="Lisbon")
    (hermes_home / ".env").write_text(f"WEATHER_API_KEY={SECRET}\nSTATION_TOKEN=t-{SECRET}\n")
    scenario = write_scenario(tmp_path, SCENARIO)
    done = hws("run", "--scenario", str(scenario), "/weather-report today", home=hermes_home, cwd=tmp_path)
    assert_clean_exit(done, (0,))
    user = next(
        content for _sid, role, content in stored_messages(hermes_home / "state.db") if role == "user"
    )
    assert "STATION_TOKEN is set" in user and "weather.city = Lisbon" in user
    assert "Setup needed" not in user
    assert files_containing(hermes_home, SECRET.encode()) == []


def test_the_cli_lists_what_is_missing_and_says_how_to_set_it(hermes_home: Path) -> None:
    make_home(hermes_home)
    listed = hws("skills", "list", home=hermes_home)
    assert_clean_exit(listed, (0,))
    assert "needs STATION_TOKEN, skills.config.weather.city" in listed.stdout
    assert "WEATHER_API_KEY" not in listed.stdout  # it is set
    shown = hws("skills", "view", "weather-report", home=hermes_home)
    assert_clean_exit(shown, (0,))
    assert f"STATION_TOKEN=... to {hermes_home / '.env'}" in shown.stderr
    assert "skills.config.weather.city is not set (The city to report on)" in shown.stderr
    assert "      city: VALUE" in shown.stderr and "compatibility: Needs network" in shown.stderr
    assert SECRET not in shown.stdout + shown.stderr
    (hermes_home / ".env").write_text(f"WEATHER_API_KEY={SECRET}\nSTATION_TOKEN=x\n", encoding="utf-8")
    with (hermes_home / "config.yaml").open("a", encoding="utf-8") as handle:
        handle.write("      city: Porto\n")
    listed = hws("skills", "list", home=hermes_home)
    assert "needs" not in listed.stdout and "weather-report" in listed.stdout
    assert "setup needed" not in hws("skills", "view", "weather-report", home=hermes_home).stderr
