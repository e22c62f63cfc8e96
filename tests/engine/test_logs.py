"""logs/agent.log and logs/errors.log, as a person reads them after a bad day: `hws run` (a real
subprocess with the scripted model) logs each turn's start and end, its tool calls, every retry of
a provider that answers HTTP 500 and the final failure, all redacted and rotated at the configured
size; compression and hand edits have their lines too."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from engine import events
from engine.event_log import log_event
from tests.support.fault_support import assert_clean_exit, hws, write_config, write_scenario

KEY = "sk-or-v1-" + "0123456789abcdef" * 4

SCENARIO = f"""
rules:
  - when: {{user: "^check", iteration: 1}}
    reply:
      text: "Looking."
      tool_calls: [{{name: terminal, arguments: {{command: "echo checked {KEY}"}}}}]
  - when: {{user: "^check"}}
    reply: {{text: "All good."}}
  - when: {{user: "^down"}}
    fault: {{kind: server_error, message: "upstream exploded"}}
  - when: {{user: "^loop"}}
    times: 30
    reply: {{tool_calls: [{{name: todo, arguments: {{action: list}}}}]}}
  - reply: {{text: "Done."}}
"""


def read_log(home: Path, name: str) -> str:
    path = home / "logs" / name
    return path.read_text(encoding="utf-8") if path.exists() else ""


def test_a_day_of_turns_tool_calls_and_http_500s_is_in_the_logs_redacted(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_config(
        home,
        agent={"retry_base_delay": 0.01, "retry_max_delay": 0.02, "api_max_retries": 2},
        review={"enabled": False},
        terminal={"sandbox": "none"},
    )
    scenario = write_scenario(tmp_path, SCENARIO)
    done = hws("run", "--yolo", "--scenario", str(scenario), "check the box", home=home, cwd=tmp_path)
    assert_clean_exit(done, (0,))
    failed = hws("run", "--scenario", str(scenario), "down again", home=home, cwd=tmp_path)
    assert_clean_exit(failed, (1,))

    agent_log = read_log(home, "agent.log")
    assert 'turn 1 started: "check the box"' in agent_log, agent_log
    assert "tool terminal called" in agent_log and "tool terminal ok" in agent_log
    assert "turn ended: 1 tool call(s), 9 chars of reply" in agent_log
    errors_log = read_log(home, "errors.log")
    retries = [line for line in errors_log.splitlines() if "retrying in" in line]
    assert len(retries) == 2 and all("HTTP 500" in line for line in retries), errors_log
    assert "upstream exploded" in errors_log, "the provider's own words are kept"
    assert "failed for good" in errors_log and "turn error" in errors_log
    assert "turn 1 started" not in errors_log, "errors.log keeps warnings and worse only"
    for text in (agent_log, errors_log):
        assert KEY not in text


def test_the_logs_rotate_at_the_size_set_in_config(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_config(home, logs={"max_bytes": 10_000, "backups": 2}, review={"enabled": False})
    scenario = write_scenario(tmp_path, SCENARIO)
    for _ in range(2):
        done = hws("run", "--scenario", str(scenario), "loop a while", home=home, cwd=tmp_path)
        assert_clean_exit(done, (0, 1))
    logs = home / "logs"
    assert (logs / "agent.log.1").exists(), sorted(p.name for p in logs.iterdir())
    assert not (logs / "agent.log.3").exists(), "two backups are kept"
    for path in logs.glob("agent.log*"):
        assert path.stat().st_size <= 10_000 + 1_000


@pytest.mark.parametrize(
    ("event", "line"),
    [
        (
            events.CompressionFinished("s1", "s1", "s2", 90_000, 20_000, "summary"),
            "compression finished: 90,000 → 20,000 tokens; session s1 → s2",
        ),
        (
            events.CompressionFinished(
                "s1", "s1", "s1", 90_000, 90_000, "", compressed=False, note="it saved less"
            ),
            "compression saved nothing: it saved less",
        ),
        (
            events.MemoryWritten("s1", "user", "add", "agent", "j1", "Entry added."),
            "memory user add by agent",
        ),
        (events.TextDelta("s1", "words"), None),
    ],
)
def test_each_event_a_person_greps_for_has_one_line(
    event: events.Event, line: str | None, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.DEBUG, logger="engine.events"):
        log_event(event)
    if line is None:
        assert caplog.records == []
    else:
        assert len(caplog.records) == 1 and line in caplog.records[0].getMessage()
        assert caplog.records[0].getMessage().startswith("[s1] ")


def test_a_hand_edit_journaled_is_logged(hermes_home: Path, caplog: pytest.LogCaptureFixture) -> None:
    from engine.config import load_config
    from engine.editing.external_edits import journal_external
    from engine.home import Home

    home = Home.resolve(hermes_home).ensure()
    path = home.memories / "USER.md"
    path.write_text("Dana likes tea.", encoding="utf-8")
    with caplog.at_level(logging.INFO, logger="engine"):
        entries = journal_external(home, load_config(home.root), "user", path, "", "Dana likes tea.")
    assert entries
    assert any("external edit of memories/USER.md journaled as" in r.getMessage() for r in caplog.records)
