"""clarify through `hws run`: with nobody at a terminal the model is told to decide and say what it
assumed; at a terminal the person picks a choice by its number or answers in their own words."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.security.tty_support import TtyRun
from tests.support.fault_support import assert_clean_exit, hws, write_scenario

ASKS = """
rules:
  - when: {iteration: 1, tools: [clarify]}
    reply:
      text: "One question first."
      tool_calls:
        - name: clarify
          arguments:
            question: "Which database should the new service use?"
            choices: ["PostgreSQL", "SQLite", "MySQL"]
  - when: {after_tool: true}
    reply:
      text: "Going with it."
"""


def _answer_received(log: Path) -> dict[str, Any]:
    requests = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    second = next(r for r in requests if r["call"] == 2)
    tool = [m for m in second["body"]["messages"] if m.get("role") == "tool"]
    return dict(json.loads(tool[0]["content"]))


def test_without_a_terminal_the_model_is_told_to_decide(tmp_path: Path, hermes_home: Path) -> None:
    scenario = write_scenario(tmp_path, ASKS)
    log = tmp_path / "requests.jsonl"
    done = hws(
        "run",
        "--scenario",
        str(scenario),
        "--request-log",
        str(log),
        "set up the service",
        home=hermes_home,
        cwd=tmp_path,
    )
    assert_clean_exit(done, (0,))
    assert _answer_received(log) == {
        "answer": None,
        "note": "No person to ask; decide and say what you assumed.",
    }
    assert "not asked: Which database should the new service use?" in done.stderr
    assert "Going with it." in done.stdout


def test_at_a_terminal_the_person_picks_a_choice_or_answers_freely(tmp_path: Path, hermes_home: Path) -> None:
    scenario = write_scenario(tmp_path, ASKS)
    for typed, expected in (("2", "SQLite"), ("DuckDB, it is all analytics", "DuckDB, it is all analytics")):
        log = tmp_path / f"requests-{typed[:1]}.jsonl"
        run = TtyRun(
            "--scenario",
            str(scenario),
            "--request-log",
            str(log),
            "set up the service",
            home=hermes_home,
            cwd=tmp_path,
        )
        screen = run.wait_for("empty to let the model decide): ")
        assert "? Which database should the new service use?" in screen and "  2. SQLite" in screen
        run.answer(typed)
        code, stdout, _ = run.finish()
        assert code == 0 and "Going with it." in stdout
        assert _answer_received(log) == {"answer": expected}
