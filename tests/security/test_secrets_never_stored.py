"""Keys never reach memory, skills or the screen: refused writes, and every printed view redacted.

A scripted model tries to save a key in memory and in a skill (`hws run`); the person installs a skill
folder holding one; a key placed by hand is printed by `hws memory show/history` and `hws skills view`;
an endpoint echoes the key to `hws doctor`; a bug's message carries it. Each refusal says which
secret it found (by its variable's name) and never shows it.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pytest

from engine.home import Home
from engine.model_server.server import ScriptedModelServer
from tests.support.fault_support import assert_clean_exit, files_containing, hws, write_config, write_scenario
from tests.support.live_files_support import make_skill
from tests.support.tmux import SCRIPTED_WAIT_S, TmuxSession, tmux_available

CREDS = "q7Lm2Vx9Rt4Kp8Zw3Nc6Hb1"  # in .env under a name that says nothing
OPENROUTER = "sk-or-v1-4f9a0c2e7b1d3f5a6c8e0b2d4f6a8c0e2b4d6f8a0c2e4b6d"
GITHUB = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"  # known only by its shape
AWS = "AKIAQ7W3E5R7T9Y1U3I5"
SECRETS = (CREDS, OPENROUTER, GITHUB, AWS)


def _home(hermes_home: Path) -> Home:
    home = Home.resolve(hermes_home).ensure()
    home.env_file.write_text(f"MYCORP_LLM_CREDS={CREDS}\nOPENROUTER_API_KEY={OPENROUTER}\n")
    return home


SKILL_HEAD = "---\\nname: call-gateway\\ndescription: Call the gateway.\\n---\\n"  # escaped for YAML
WRITES = f"""
rules:
  - when: {{iteration: 1}}
    reply:
      tool_calls:
        - name: memory
          arguments: {{action: add, target: memory, content: "The OpenRouter key is {OPENROUTER}"}}
  - when: {{iteration: 2}}
    reply:
      tool_calls:
        - name: memory
          arguments: {{action: add, target: user, content: "User's GitHub token: {GITHUB}"}}
  - when: {{iteration: 3}}
    reply:
      tool_calls:
        - name: memory
          arguments: {{action: add, target: memory, content: "Deploys go through the staging host first."}}
  - when: {{iteration: 4}}
    reply:
      tool_calls:
        - name: memory
          arguments:
            {{action: replace, target: memory, old_text: "staging host", content: "Staging uses {CREDS}"}}
  - when: {{iteration: 5}}
    reply:
      tool_calls:
        - name: skill_manage
          arguments:
            action: create
            name: call-gateway
            content: "{SKILL_HEAD}Use the key {CREDS}.\\n"
  - when: {{iteration: 6}}
    reply:
      tool_calls:
        - name: skill_manage
          arguments:
            action: create
            name: call-gateway
            content: "{SKILL_HEAD}Use $MYCORP_LLM_CREDS.\\n"
  - when: {{iteration: 7}}
    reply:
      tool_calls:
        - name: skill_manage
          arguments: {{action: patch, name: call-gateway, old_string: "Use", new_string: "Use {AWS} or"}}
  - when: {{iteration: 8}}
    reply:
      tool_calls:
        - name: skill_manage
          arguments:
            action: write_file
            name: call-gateway
            file_path: references/keys.md
            file_content: "backup key: {OPENROUTER}"
  - reply: {{text: "Done trying."}}
"""


def test_memory_and_skill_writes_holding_a_key_are_refused_with_a_reason(
    tmp_path: Path, hermes_home: Path
) -> None:
    home = _home(hermes_home)
    scenario = write_scenario(tmp_path, WRITES)
    log = tmp_path / "requests.jsonl"
    done = hws("run", "--scenario", str(scenario), "--request-log", str(log), "save my keys", home=home.root)
    assert_clean_exit(done, (0,))
    requests = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    last = max((r for r in requests if r["call"]), key=lambda r: len(r["body"]["messages"]))
    results = [str(m["content"]) for m in last["body"]["messages"] if m.get("role") == "tool"]
    assert len(results) == 8, results
    said = [json.loads(text) for text in results]
    assert "contains the value of OPENROUTER_API_KEY from .env" in said[0]["error"]
    assert "secrets are never stored in memory" in said[0]["error"]
    assert "what looks like a GitHub token" in said[1]["error"]
    assert said[2]["success"] is True
    assert "contains the value of MYCORP_LLM_CREDS from .env" in said[3]["error"]
    assert "contains the value of MYCORP_LLM_CREDS from .env" in said[4]["error"]
    assert "secrets are never stored in skills" in said[4]["error"]
    assert said[5]["success"] is True
    assert "what looks like an AWS access key" in said[6]["error"]
    assert "contains the value of OPENROUTER_API_KEY from .env" in said[7]["error"]
    memory = (home.memories / "MEMORY.md").read_text(encoding="utf-8")
    assert "Deploys go through the staging host first." in memory  # the replace was refused
    skill = next(home.skills.rglob("call-gateway/SKILL.md")).read_text(encoding="utf-8")
    assert "Use $MYCORP_LLM_CREDS." in skill
    assert not list(home.skills.rglob("keys.md"))
    for secret in SECRETS:
        assert not any(secret in text for text in results), f"a refusal echoed {secret} to the model"
        assert files_containing(home.root, secret.encode()) == [], secret
        assert secret not in done.stdout + done.stderr


def test_installing_a_skill_folder_that_holds_a_key_is_refused_even_with_force(
    tmp_path: Path, hermes_home: Path
) -> None:
    home = _home(hermes_home)
    source = tmp_path / "gateway-helper"
    (source / "references").mkdir(parents=True)
    (source / "SKILL.md").write_text("---\nname: gateway-helper\ndescription: Calls the gateway.\n---\nHi.\n")
    (source / "references" / "setup.md").write_text(f"export MYCORP_LLM_CREDS={CREDS}\n")
    done = hws("skills", "install", str(source), "--force", home=home.root)
    assert_clean_exit(done, (1, 2))
    assert "references/setup.md contains the value of MYCORP_LLM_CREDS from .env" in done.stderr, done.stderr
    assert CREDS not in done.stdout + done.stderr
    assert files_containing(home.root, CREDS.encode()) == []
    (source / "references" / "setup.md").write_text("export MYCORP_LLM_CREDS=<your key>\n")
    again = hws("skills", "install", str(source), home=home.root)
    assert_clean_exit(again, (0,))


def test_a_key_placed_by_hand_is_never_printed_by_the_memory_and_skills_commands(
    hermes_home: Path,
) -> None:
    home = _home(hermes_home)
    home.memories.mkdir(parents=True, exist_ok=True)
    (home.memories / "MEMORY.md").write_text(f"The gateway key is {CREDS}\n§\nToken {GITHUB}\n")
    replaced = hws("memory", "replace", "gateway key", "The gateway key is in .env.", home=home.root)
    assert_clean_exit(replaced, (0,))  # the journal keeps the text before, key and all
    skill = make_skill(home.root, "call-gateway")
    skill.write_text(skill.read_text() + f"\nUse {OPENROUTER} as the key.\n")
    history = hws("memory", "history", home=home.root)
    entry = history.stdout.split()[0]
    shown = [
        hws("memory", "show", home=home.root),
        hws("memory", "show", "--json", home=home.root),
        hws("memory", "diff", entry, home=home.root),
        hws("skills", "view", "call-gateway", home=home.root),
        hws("skills", "view", "call-gateway", "--json", home=home.root),
    ]
    quiet = [history, hws("memory", "history", "--json", home=home.root)]
    quiet.append(hws("memory", "show", "--prompt", home=home.root))  # the scanner keeps the token out
    for done in [*quiet, *shown]:
        assert_clean_exit(done, (0,))
        for secret in SECRETS:
            assert secret not in done.stdout + done.stderr, (done.args, secret)
    for done in shown:
        assert "[REDACTED]" in done.stdout, (done.args, done.stdout)


ECHO = """
rules:
  - fault: {{kind: http, status: 401, message: "Incorrect API key provided: {key}. Check it and retry."}}
"""


def test_hws_doctor_hides_a_key_the_endpoint_echoes(tmp_path: Path, hermes_home: Path) -> None:
    home = _home(hermes_home)
    scenario = write_scenario(tmp_path, ECHO.format(key=CREDS))
    with ScriptedModelServer(scenario) as server:
        write_config(
            home.root,
            model={"base_url": server.base_url, "default": "scripted", "api_key_env": "MYCORP_LLM_CREDS"},
        )
        done = hws("doctor", home=home.root)
        as_json = hws("doctor", "--json", home=home.root)
    assert "Incorrect API key provided: [REDACTED]" in done.stdout, done.stdout
    for result in (done, as_json):
        assert CREDS not in result.stdout + result.stderr
    assert files_containing(home.root, CREDS.encode()) == []


def test_the_unexpected_error_line_hides_keys_from_env(
    hermes_home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The last line of defence printed the error's message redacted only by the environment's keys."""
    from engine import cli
    from engine.cli import memory_cmd
    from engine.cli.common import open_home

    home = _home(hermes_home)

    def broken(args: argparse.Namespace) -> int:
        open_home(args)  # as every command does: the home's logs are set up
        raise RuntimeError(f"the gateway refused {CREDS}")

    monkeypatch.setattr(memory_cmd, "run_show", broken)
    code = cli.main(["--home", str(home.root), "memory", "show"])
    out = capsys.readouterr()
    assert code == 1
    assert "unexpected error (RuntimeError: the gateway refused [REDACTED])" in out.err, out.err
    assert CREDS not in out.err + out.out
    assert files_containing(home.root, CREDS.encode()) == []  # logs/errors.log has the traceback, redacted
    assert "the gateway refused [REDACTED]" in (home.logs / "errors.log").read_text()


CRASHING_HWS = """
import sys
import widgets.transcript


async def append_reply(self, text):
    gateway_key = "{key}"
    raise RuntimeError(f"a bug while showing {{gateway_key}}")


widgets.transcript.Transcript.append_reply = append_reply
from tui.main import main

sys.exit(main(sys.argv[1:]))
"""
SCENARIO = """
name: plain
model: scripted
rules:
  - reply: {text: "An ordinary answer."}
"""


@pytest.mark.skipif(not tmux_available(), reason="tmux is not installed")
def test_the_traceback_of_a_workstation_crash_hides_keys_from_env(tmp_path: Path) -> None:
    """Textual prints the error with each frame's locals; a key from `.env` in them was shown raw."""
    home_root = tmp_path / "home"
    _home(home_root)
    scenario = write_scenario(tmp_path, SCENARIO, "plain.yaml")
    wrapper = tmp_path / "crashing_hws.py"
    wrapper.write_text(CRASHING_HWS.format(key=CREDS), encoding="utf-8")
    env = {"HOME": str(tmp_path), "TEXTUAL_ANIMATIONS": "none", "PYTHONPATH": str(Path.cwd())}
    command = [sys.executable, str(wrapper), "--scenario", str(scenario), "--home", str(home_root)]
    with TmuxSession.start(command, width=140, height=50, env=env, cwd=str(tmp_path)) as hws_tui:
        hws_tui.wait_for("Scripted model: scenario 'plain'", timeout=SCRIPTED_WAIT_S)
        hws_tui.type("hello")
        hws_tui.send_keys("Enter")
        screen = hws_tui.wait_for("[exited 1]", timeout=30)
    assert "a bug while showing [REDACTED]" in screen, screen
    assert CREDS not in screen
    assert files_containing(home_root, CREDS.encode()) == []
