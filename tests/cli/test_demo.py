"""`hws demo --headless`: the shipped day of work through the real engine, and the home it leaves."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from engine.demo.script import DemoError, builtin_demos, load_demo, parse_demo
from engine.home import Home
from engine.storage.journal import Journal

ROOT = Path(__file__).resolve().parents[2]
PREFERENCE = "hates light themes"
DOUBLED_STOP = re.compile(r"(?<!\.)\.\.(?!\.)")  # two full stops, not an ellipsis


def hws(*args: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "tui.main", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        timeout=timeout,
    )


def events_of(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess[str], Path]:
    """One headless run of the shipped demo, kept in a folder of its own (it takes a few seconds)."""
    base = tmp_path_factory.mktemp("demo")
    kept = base / "kept-home"
    env_home = base / "users-home"
    old = os.environ.get("HERMES_HOME")
    os.environ["HERMES_HOME"] = str(env_home)
    try:
        result = hws("demo", "--headless", "--json", "--keep", str(kept), cwd=base)
    finally:
        if old is None:
            os.environ.pop("HERMES_HOME", None)
        else:
            os.environ["HERMES_HOME"] = old
    assert not env_home.exists(), "the demo never touches the user's home"
    return result, kept


def sessions(home: Path) -> list[tuple[str, str | None, str | None, str]]:
    connection = sqlite3.connect(home / "state.db")
    try:
        return connection.execute(
            "SELECT id, parent_session_id, end_reason, system_prompt FROM sessions ORDER BY started_at, rowid"
        ).fetchall()
    finally:
        connection.close()


def test_the_demo_plays_to_its_end_and_every_check_holds(played: Any) -> None:
    result, _kept = played
    assert result.returncode == 0, result.stderr
    events = events_of(result.stdout)
    kinds = [e["type"] for e in events]
    report = events[-1]
    assert report["type"] == "demo_report" and report["ok"], report
    assert all(check["ok"] for check in report["checks"]) and len(report["checks"]) == 7
    assert "error_event" not in kinds
    assert kinds.count("demo_say") == load_demo().turns == 14
    told = [e["text"] for e in events if e["type"].startswith("demo_") and isinstance(e.get("text"), str)]
    assert [t for t in told if DOUBLED_STOP.search(t)] == [], "a sentence joined to a sentence"


def test_the_event_stream_shows_each_step_of_the_learning_loop_in_order(played: Any) -> None:
    events = events_of(played[0].stdout)
    turn = 0
    seen: list[tuple[int, str]] = []
    for event in events:
        if event["type"] == "turn_started":
            turn = event["turn"]
        elif event["type"] == "nudge_fired":
            seen.append((turn, event["nudge"]))
        elif event["type"] == "compression_phase":
            seen.append((turn, event["phase"]))
        elif event["type"] in ("memory_written", "skill_changed"):
            seen.append(
                (turn, f"{event['type']}:{event.get('target') or event.get('action')}:{event['who']}")
            )
    assert seen == [
        (6, "skill_create"),
        (6, "skill_changed:create:review"),
        (10, "memory"),
        (10, "memory_written:user:review"),
        (11, "skill_patch"),
        (11, "skill_changed:patch:review"),
        (12, "memory_written:memory:agent"),  # the flush, phase 1
        (12, "flush"),
        (12, "summarize"),
        (12, "split"),
    ]
    frozen = [e for e in events if e["type"] == "demo_observe" and "frozen ≠ disk" in e["text"]]
    assert frozen and PREFERENCE in frozen[0]["text"]
    rebuilt = [e for e in events if e["type"] == "demo_observe" and "rebuilt the prompt" in e["text"]]
    assert rebuilt and PREFERENCE in rebuilt[0]["text"]


def test_the_final_home_holds_what_the_agent_learned(played: Any) -> None:
    _result, kept = played
    user_md = (kept / "memories" / "USER.md").read_text(encoding="utf-8")
    assert PREFERENCE in user_md
    skill = kept / "skills" / "web" / "static-site-navbar" / "SKILL.md"
    assert "`./check_links.sh site`" in skill.read_text(encoding="utf-8"), "the failure patched the skill"
    journal = Journal(Home(kept))
    try:
        history = [(e.action, e.who) for e in journal.entries("skill", "static-site-navbar")]
    finally:
        journal.close()
    assert history == [("create", "review"), ("patch", "review")]

    rows = sessions(kept)
    by_id = {row[0]: row for row in rows}
    children = [row for row in rows if row[1]]
    assert len(children) == 1 and by_id[children[0][1]][2] == "compression", "a compression link"
    parent, child = by_id[children[0][1]], children[0]
    assert PREFERENCE not in parent[3], "the first session kept its frozen snapshot"
    assert PREFERENCE in child[3], "the prompt rebuilt after compression holds the new memory"
    roots = [row for row in rows if not row[1]]
    assert len(roots) == 2 and PREFERENCE in roots[-1][3], "the next session starts with the preference"

    style = (kept / "demo-project" / "site" / "style.css").read_text(encoding="utf-8")
    assert "footer { background: #1e1e2e" in style, "the new session acted on the preference"
    config = (kept / "config.yaml").read_text(encoding="utf-8")
    assert "base_url" not in config, "a kept home holds no dead model address"


def test_without_keep_the_temporary_home_is_removed(tmp_path: Path, hermes_home: Path) -> None:
    result = hws("demo", "--headless", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "✓ a session ended by compression has a child session" in result.stdout
    line = next(x for x in result.stdout.splitlines() if x.startswith("(the demo home "))
    demo_home = Path(line.removeprefix("(the demo home ").split(" is removed")[0])
    assert not demo_home.exists()
    assert not (hermes_home / "state.db").exists() and not (hermes_home / "memories").exists()


def test_keep_refuses_a_folder_with_something_in_it_and_the_users_home(
    tmp_path: Path, hermes_home: Path
) -> None:
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "notes.txt").write_text("mine", encoding="utf-8")
    result = hws("demo", "--headless", "--keep", str(busy), cwd=tmp_path)
    assert result.returncode == 2 and "not an empty folder" in result.stderr
    assert (busy / "notes.txt").read_text(encoding="utf-8") == "mine" and len(list(busy.iterdir())) == 1
    result = hws("demo", "--headless", "--keep", str(hermes_home), cwd=tmp_path)
    assert result.returncode == 2 and "your own home" in result.stderr


SMALL_DEMO = """\
name: tiny
steps:
  - caption: "A tiny demo."
  - say: "remember that I like tea"
checks:
  - {file_contains: {path: memories/USER.md, text: "likes tea"}}
  - {skill_exists: never-made}
---
rules:
  - when: {user: "tea", iteration: 1}
    reply:
      tool_calls: [{name: memory, arguments: {action: add, target: user, content: "User likes tea."}}]
  - reply: {text: "Noted."}
"""


def test_a_demo_of_your_own_plays_and_a_failed_check_fails_the_run(tmp_path: Path) -> None:
    demo = tmp_path / "tiny.yaml"
    demo.write_text(SMALL_DEMO, encoding="utf-8")
    assert hws("demo", str(demo), "--check", cwd=tmp_path).returncode == 0
    result = hws("demo", str(demo), "--headless", cwd=tmp_path)
    assert result.returncode == 1
    assert "✓ memories/USER.md contains 'likes tea'" in result.stdout
    assert "✗ the skill never-made exists" in result.stdout


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("steps:\n  - say: hi\n", "the model is missing"),
        ("steps:\n  - shout: hi\n---\nrules: []\n", "line 2: unknown step `shout`"),
        ("steps:\n  - say: hi\nchecks:\n  - {guess: 1}\n---\nrules: []\n", "line 4: unknown check `guess`"),
        ("steps: []\n---\nrules: []\n", "non-empty list"),
        ("project:\n  ../out.txt: x\nsteps:\n  - say: hi\n---\nrules: []\n", "relative path inside"),
        ("steps:\n  - say: hi\n---\nrules:\n  - when: {turns: 1}\n", "line 5"),
    ],
)
def test_a_bad_demo_file_is_one_sentence_with_its_line(text: str, message: str) -> None:
    with pytest.raises(DemoError, match=None) as caught:
        parse_demo(text, source="bad.yaml")
    assert message in str(caught.value) and "bad.yaml" in str(caught.value)


def test_the_shipped_demos_parse_and_unknown_names_are_explained(tmp_path: Path) -> None:
    assert "day-of-work" in builtin_demos()
    for name in builtin_demos():
        assert load_demo(name).turns > 0
    result = hws("demo", "no-such-demo", "--headless", cwd=tmp_path)
    assert result.returncode == 2 and "day-of-work" in result.stderr
    assert textwrap.dedent(hws("demo", "--list", cwd=tmp_path).stdout).split() == builtin_demos()
