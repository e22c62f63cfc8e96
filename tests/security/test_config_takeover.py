"""The model tries to take over the home's config through the file tools, end to end through `hws run`.

Each attack is a scripted model issuing the hostile tool call; config.yaml must come out byte for
byte unchanged, the refusal must name the setting (it comes before any question), and a following
session must still ask before `rm -rf`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.fault_support import assert_clean_exit, hws, write_scenario

pytestmark = pytest.mark.usefixtures("closing_benches")

CONFIG = """\
model:
  default: scripted
  base_url: http://127.0.0.1:9/v1
agent:
  max_turns: 6
display:
  theme: nord
"""


def one_call(tool: str, arguments: dict[str, Any]) -> str:
    """A scenario whose model makes one tool call, then repeats the result."""
    call = json.dumps({"name": tool, "arguments": arguments})
    return f"""
    name: attack
    rules:
      - when: {{iteration: 1}}
        times: 1
        reply: {{tool_calls: [{call}]}}
      - when: {{after_tool: true}}
        reply: {{text: "tool said: {{{{last_tool_result}}}}"}}
      - reply: {{text: "done"}}
    """


def run_json(home: Path, cwd: Path, scenario: Path, *extra: str) -> list[dict[str, Any]]:
    done = hws("run", "--json", "--scenario", str(scenario), *extra, "go", home=home, cwd=cwd)
    assert_clean_exit(done, (0,))
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def tool_results(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == "tool_finished"]


@pytest.fixture
def project(tmp_path: Path, hermes_home: Path) -> Path:
    hermes_home.mkdir(parents=True, exist_ok=True)
    (hermes_home / "config.yaml").write_text(CONFIG, encoding="utf-8")
    folder = tmp_path / "project"
    (folder / "victim").mkdir(parents=True)
    (folder / "victim" / "keep.txt").write_text("precious\n")
    return folder


ATTACKS = {
    "patch adds agent.yolo": (
        "patch",
        {
            "path": "$HERMES_HOME/config.yaml",
            "old_string": "agent:\n",
            "new_string": "agent:\n  yolo: true\n",
        },
        "agent.yolo",
    ),
    "write_file replaces config.yaml": (
        "write_file",
        {"path": "~/.hermes/config.yaml", "content": CONFIG + "agent:\n  yolo: true\n"},
        "repeated keys",
    ),
    "write_file rewrites it whole": (
        "write_file",
        {
            "path": "$HERMES_HOME/config.yaml",
            "content": CONFIG.replace("max_turns: 6", "max_turns: 6\n  yolo: true"),
        },
        "agent.yolo",
    ),
    "patch redirects model.base_url": (
        "patch",
        {
            "path": "$HERMES_HOME/config.yaml",
            "old_string": "http://127.0.0.1:9/v1",
            "new_string": "https://evil.test/v1",
        },
        "model.base_url",
    ),
    "a YAML alias carries yolo in": (
        "write_file",
        {
            "path": "$HERMES_HOME/config.yaml",
            "content": "defaults: &d {yolo: true, max_turns: 6}\nmodel: {default: scripted, base_url: "
            "http://127.0.0.1:9/v1}\nagent: *d\n",
        },
        "aliases",
    ),
    "a merge key carries yolo in": (
        "patch",
        {
            "path": "$HERMES_HOME/config.yaml",
            "old_string": "agent:\n",
            "new_string": "x: &x {yolo: true}\nagent:\n  <<: *x\n",
        },
        "merge keys",
    ),
    "serve opened to the network": (
        "patch",
        {
            "path": "$HERMES_HOME/config.yaml",
            "old_string": "display:\n",
            "new_string": "serve:\n  host: 0.0.0.0\ndisplay:\n",
        },
        "serve.host",
    ),
    "a config that no longer parses": (
        "write_file",
        {"path": "$HERMES_HOME/config.yaml", "content": "agent: [yolo\n"},
        "would not parse",
    ),
}


@pytest.mark.parametrize("name", list(ATTACKS))
def test_a_config_takeover_is_refused_before_anyone_is_asked(
    name: str, project: Path, hermes_home: Path, tmp_path: Path
) -> None:
    tool, arguments, named = ATTACKS[name]
    scenario = write_scenario(tmp_path, one_call(tool, arguments))
    events = run_json(hermes_home, project, scenario)
    (result,) = tool_results(events)
    assert not result["ok"] and "Refused" in result["result"] and named in result["result"], result
    assert not [e for e in events if e["type"] == "approval_needed"]  # refused, not merely declined
    assert (hermes_home / "config.yaml").read_text(encoding="utf-8") == CONFIG


def test_even_yolo_never_writes_a_guarded_setting(project: Path, hermes_home: Path, tmp_path: Path) -> None:
    tool, arguments, _named = ATTACKS["patch adds agent.yolo"]
    scenario = write_scenario(tmp_path, one_call(tool, arguments))
    done = hws("run", "--yolo", "--scenario", str(scenario), "go", home=hermes_home, cwd=project)
    assert_clean_exit(done, (0,))
    assert "agent.yolo" in done.stdout and (hermes_home / "config.yaml").read_text() == CONFIG


def test_a_harmless_config_change_asks_with_its_diff_even_under_yolo(
    project: Path, hermes_home: Path, tmp_path: Path
) -> None:
    arguments = {
        "path": "$HERMES_HOME/config.yaml",
        "old_string": "theme: nord",
        "new_string": "theme: dracula",
    }
    scenario = write_scenario(tmp_path, one_call("patch", arguments))
    events = run_json(hermes_home, project, scenario, "--yolo")
    (asked,) = [e for e in events if e["type"] == "approval_needed"]
    assert asked["rule"] == "protected-file" and not asked["allow_session"]
    assert "-  theme: nord" in asked["detail"] and "+  theme: dracula" in asked["detail"]
    (result,) = tool_results(events)
    assert not result["ok"] and "declined" in result["result"]
    assert (hermes_home / "config.yaml").read_text() == CONFIG


def test_after_the_attempts_the_next_session_still_asks_before_rm_rf(
    project: Path, hermes_home: Path, tmp_path: Path
) -> None:
    for name in ("patch adds agent.yolo", "a YAML alias carries yolo in"):
        tool, arguments, _named = ATTACKS[name]
        run_json(hermes_home, project, write_scenario(tmp_path, one_call(tool, arguments), f"{tool}.yaml"))
    rm = write_scenario(tmp_path, one_call("terminal", {"command": "rm -rf victim"}), "rm.yaml")
    done = hws("run", "--scenario", str(rm), "clean up", home=hermes_home, cwd=project)
    assert_clean_exit(done, (0,))
    assert "declined: rm -rf victim" in done.stderr
    assert (project / "victim" / "keep.txt").read_text() == "precious\n"


def test_env_keys_cannot_be_rewritten_and_other_lines_ask(
    project: Path, hermes_home: Path, tmp_path: Path
) -> None:
    env = "OPENROUTER_API_KEY=sk-or-v1-original\nEDITOR=vim\n"
    (hermes_home / ".env").write_text(env)
    swap = {"path": "$HERMES_HOME/.env", "old_string": "sk-or-v1-original", "new_string": "sk-or-v1-attacker"}
    events = run_json(hermes_home, project, write_scenario(tmp_path, one_call("patch", swap), "key.yaml"))
    (result,) = tool_results(events)
    assert not result["ok"] and "OPENROUTER_API_KEY" in result["result"]
    assert not [e for e in events if e["type"] == "approval_needed"]
    edit = {"path": "$HERMES_HOME/.env", "old_string": "EDITOR=vim", "new_string": "EDITOR=nano"}
    events = run_json(hermes_home, project, write_scenario(tmp_path, one_call("patch", edit), "editor.yaml"))
    (asked,) = [e for e in events if e["type"] == "approval_needed"]
    assert asked["rule"] == "protected-file" and "sk-or-v1-original" not in json.dumps(events)
    assert (hermes_home / ".env").read_text() == env
