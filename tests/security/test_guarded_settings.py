"""The list of settings that guard the person, and the checks built on it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from engine.cli.doctor import check_guarded
from engine.guarded_settings import (
    GuardedWatch,
    changed,
    config_write_refusal,
    env_write_refusal,
    guard_of,
    main,
    snapshot,
    yaml_indirections,
)
from engine.home import Home

ROOT = Path(__file__).resolve().parents[2]
CONFIG = """\
model:
  default: m
  base_url: http://localhost:8080/v1
  api_key_env: MY_LLM_KEY
agent:
  max_turns: 5
display:
  theme: nord
"""


@pytest.mark.parametrize(
    "dotted",
    [
        "agent.yolo",
        "approvals.mode",
        "terminal.sandbox",
        "terminal.sandbox_network",
        "model.base_url",
        "auxiliary.base_url",
        "honcho.base_url",
        "providers.openai.base_url",
        "fallback_providers.0.base_url",
        "fallback_providers.1.provider",
        "fallback_providers.0.api_key_env",
        "model.provider",
        "model.api_key",
        "auxiliary.api_key_env",
        "honcho.api_key",
        "api_key",
        "serve.host",
        "serve.port",
        "skills.inline_shell",
        "memory.write_approval",
        "skills.write_approval",
        "security.aux_review",
        "mcp_servers.fs.command",
        "hooks.on_start",
        "platforms.telegram.token",
        "gateway.webhook_secret",
    ],
)
def test_these_settings_are_guarded(dotted: str) -> None:
    assert guard_of(dotted.split(".")) is not None


@pytest.mark.parametrize(
    "dotted",
    [
        "agent.max_turns",
        "display.theme",
        "compression.summary_max_tokens",
        "setup.check_max_tokens",
        "model.default",
        "skills.inline_shell_timeout",
        "terminal.timeout",
        "keys.focus_memory",
    ],
)
def test_ordinary_settings_are_not(dotted: str) -> None:
    assert guard_of(dotted.split(".")) is None


def test_a_change_of_an_ordinary_setting_or_a_comment_is_allowed() -> None:
    assert config_write_refusal(CONFIG, CONFIG.replace("max_turns: 5", "max_turns: 9")) is None
    assert config_write_refusal(CONFIG, "# mine\n" + CONFIG.replace("nord", "dracula")) is None
    assert config_write_refusal(CONFIG, CONFIG.replace("max_turns: 5", "max_turns: 5\n  yolo: false")) is None
    assert config_write_refusal(CONFIG, CONFIG.replace("max_turns: 5", "max_turns: 5\n  yolo:")) is None


@pytest.mark.parametrize(
    ("new", "named"),
    [
        (CONFIG.replace("max_turns: 5", "max_turns: 5\n  yolo: true"), "agent.yolo"),
        (CONFIG.replace("max_turns: 5", "max_turns: 5\n  yolo: yes"), "agent.yolo"),
        (CONFIG.replace("localhost:8080", "evil.test"), "model.base_url"),
        (CONFIG.replace("  base_url: http://localhost:8080/v1\n", ""), "model.base_url"),
        (CONFIG.replace("api_key_env: MY_LLM_KEY", "api_key_env: OTHER"), "model.api_key_env"),
        (CONFIG + "auxiliary:\n  base_url: https://evil.test/v1\n", "auxiliary.base_url"),
        (CONFIG + "serve:\n  host: 0.0.0.0\n", "serve.host"),
        (CONFIG + "skills:\n  inline_shell: true\n", "skills.inline_shell"),
        (CONFIG + "memory:\n  write_approval: false\n", None),  # the default: nothing changes
        (CONFIG + "security:\n  aux_review: true\n", "security.aux_review"),
        (CONFIG + "security:\n  aux_review: false\n", None),  # the default since it is a setting
        (CONFIG + "terminal:\n  sandbox: none\n", "terminal.sandbox"),
        (CONFIG + "approvals:\n  mode: off\n", "approvals.mode"),
        (CONFIG + "mcp_servers:\n  x: {command: sh}\n", "mcp_servers.x.command"),
        ("model: m\n", "model.base_url"),
        ("", "model.base_url"),
    ],
)
def test_a_change_of_a_guarded_setting_is_refused_and_named(new: str, named: str | None) -> None:
    refused = config_write_refusal(CONFIG, new)
    if named is None:
        assert refused is None
    else:
        assert refused is not None and refused.startswith("Refused") and named in refused, refused


@pytest.mark.parametrize(
    ("new", "kind"),
    [
        ("a: &a {yolo: true}\nagent: *a\n" + CONFIG.split("agent:")[0], "anchors"),
        (CONFIG + "x: &x {theme: nord}\n", "anchors"),  # even a harmless anchor: the agent needs none
        (CONFIG.replace("agent:\n", "agent:\n  <<: {max_turns: 5}\n"), "merge keys"),
        (CONFIG.replace("max_turns: 5", "max_turns: !!int 5"), "tags"),
        ("%YAML 1.1\n---\n" + CONFIG, "directives"),
        (CONFIG + "agent:\n  max_turns: 5\n", "repeated keys"),
    ],
)
def test_yaml_indirection_the_file_did_not_use_is_refused(new: str, kind: str) -> None:
    refused = config_write_refusal(CONFIG, new)
    assert refused is not None and kind in refused, refused


def test_indirection_already_there_may_stay() -> None:
    mine = CONFIG + "common: &c {theme: nord}\ndisplay2: *c\n"
    assert yaml_indirections(mine) == {"anchors": 1, "aliases": 1}
    assert config_write_refusal(mine, mine.replace("max_turns: 5", "max_turns: 6")) is None


@pytest.mark.parametrize(
    "new", ["agent: [yolo\n", "- a\n- b\n", "agent: {max_turns: 5}\n" * 1 + "\x00", "x: " + "[" * 5000]
)
def test_a_config_that_would_not_read_is_refused(new: str) -> None:
    refused = config_write_refusal(CONFIG, new)
    assert refused is not None and "would not be a config" in refused


BOMB = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(8)
)


def test_an_alias_bomb_is_neither_expanded_nor_written() -> None:
    refused = config_write_refusal(CONFIG, BOMB)
    assert refused is not None and "more than 20,000 values" in refused
    assert snapshot(BOMB, "") == {"config.yaml": snapshot(BOMB, "")["config.yaml"]}
    assert "agent.yolo" in (config_write_refusal(BOMB, "agent:\n  yolo: true\n") or "")


def test_a_broken_config_is_compared_with_the_defaults() -> None:
    broken = "agent: [\n"
    assert config_write_refusal(broken, "agent:\n  max_turns: 3\n") is None
    assert "agent.yolo" in (config_write_refusal(broken, "agent:\n  yolo: true\n") or "")


def test_a_setting_read_from_env_counts_by_its_value() -> None:
    config = "model:\n  base_url: ${ENDPOINT}\n"
    env_before, env_after = "ENDPOINT=http://localhost:1/v1\n", "ENDPOINT=https://evil.test/v1\n"
    refused = env_write_refusal(env_before, env_after, config)
    assert refused is not None and "ENDPOINT" in refused
    assert env_write_refusal(env_before, env_before + "EDITOR=vim\n", config) is None


@pytest.mark.parametrize(
    ("before", "after", "named"),
    [
        ("OPENROUTER_API_KEY=a\n", "OPENROUTER_API_KEY=b\n", "OPENROUTER_API_KEY"),
        ("OPENROUTER_API_KEY=a\n", "", "OPENROUTER_API_KEY"),
        ("", "OPENAI_API_KEY=mine\n", "OPENAI_API_KEY"),
        ("MY_LLM_KEY=a\n", "export MY_LLM_KEY='b'\n", "MY_LLM_KEY"),
    ],
)
def test_env_key_variables_are_refused(before: str, after: str, named: str) -> None:
    refused = env_write_refusal(before, after, CONFIG)
    assert refused is not None and named in refused and "a\n" not in refused


def test_snapshots_name_what_changed_and_hold_no_values() -> None:
    env = "MY_LLM_KEY=secret-value\n"
    before = snapshot(CONFIG, env)
    assert "model.base_url" in before and ".env MY_LLM_KEY" in before
    assert not any("secret-value" in v or "localhost" in v for v in before.values())
    after = snapshot(CONFIG.replace("max_turns: 5", "max_turns: 5\n  yolo: true"), "MY_LLM_KEY=other\n")
    assert changed(before, after) == (".env MY_LLM_KEY", "agent.yolo")
    assert changed(before, snapshot("agent: [", env)) == ("config.yaml",)


def test_the_watch_reports_each_new_state_once(hermes_home: Path) -> None:
    home = Home(hermes_home).ensure()
    home.config_file.write_text(CONFIG)
    watch = GuardedWatch(home.root)
    assert watch.check() is None
    home.config_file.write_text(CONFIG.replace("nord", "dracula"))
    assert watch.check() is None  # a harmless edit is not news
    home.config_file.write_text(CONFIG.replace("max_turns: 5", "max_turns: 5\n  yolo: true"))
    assert watch.check() == ("agent.yolo",)
    assert watch.check() is None
    home.env_file.write_text("MY_LLM_KEY=rotated\n")
    assert watch.check() == (".env MY_LLM_KEY", "agent.yolo")
    home.config_file.write_text(CONFIG)
    home.env_file.unlink()
    assert watch.check() == ()  # back as the session began: said once
    assert watch.check() is None


def test_the_readme_lists_the_guarded_settings() -> None:
    assert main(["--check", str(ROOT / "README.md")]) == 0


def test_doctor_warns_of_yolo_and_of_another_name_for_env(tmp_path: Path, hermes_home: Path) -> None:
    from engine.config import load_config

    home = Home(hermes_home).ensure()
    home.config_file.write_text("agent:\n  yolo: true\n")
    home.env_file.write_text("OPENROUTER_API_KEY=x\n")
    os.link(home.env_file, tmp_path / "copy")
    findings = check_guarded(home, load_config(home.root))
    levels = {(f.level, f.message.split(":")[0].split(" has ")[0]) for f in findings}
    assert ("warning", "agent.yolo is on") in levels and ("warning", ".env") in levels
    assert any(f.level == "ok" and "agent.yolo" in f.message for f in findings)
