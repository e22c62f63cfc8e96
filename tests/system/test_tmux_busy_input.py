"""Typing while the agent works, in a real terminal (tmux): three messages sent during a long turn are
queued (shown dimmed above the input) and go to the model in order, each as its own turn.

The turn's tool waits for the file `release` in the working folder, so the turn lasts exactly as long
as the typing does, however loaded the machine; the test then creates the file. Every wait polls the
captured screen with a generous deadline; nothing asserts on time.
"""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import pytest

from tests.support.tmux import SCRIPTED_WAIT_S, TmuxSession, tmux_available, wait_idle

pytestmark = pytest.mark.skipif(not tmux_available(), reason="tmux is not installed")

HWS = str(Path(sys.executable).with_name("hws"))
WAIT_S = SCRIPTED_WAIT_S

SCENARIO = """
name: busy
model: scripted
defaults: {chunk_size: 50, chunk_delay: 0}
rules:
  - name: title
    when: {kind: title}
    reply: {text: "Busy day"}
  - name: after a tool
    when: {after_tool: true}
    reply: {text: "Released at last"}
  - name: wait
    when: {user: "(?i)^wait"}
    reply:
      text: "Waiting for the release."
      tool_calls:
        - name: terminal
          arguments: {command: "while [ ! -e release ]; do sleep 0.05; done; echo released"}
  - name: echo
    reply: {text: "Answer to {{last_user}}"}
"""


def test_three_messages_typed_during_a_long_turn_are_queued_and_sent_in_order(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.yaml").write_text("terminal:\n  sandbox: none\n", encoding="utf-8")
    scenario = tmp_path / "busy.yaml"
    scenario.write_text(SCENARIO, encoding="utf-8")
    work = tmp_path / "work"
    work.mkdir()
    env = {"HERMES_HOME": str(home), "HOME": str(tmp_path), "TEXTUAL_ANIMATIONS": "none"}
    command = [HWS, "--scenario", str(scenario), "--home", str(home)]
    with TmuxSession.start(command, width=120, height=40, env=env, cwd=str(work)) as hws:
        hws.wait_for("Scripted model: scenario 'busy'", timeout=WAIT_S)
        hws.type("wait for it")
        hws.send_keys("Enter")
        hws.wait_for("Waiting for the release.", timeout=WAIT_S)
        for text in ("first queued", "second queued", "third queued"):
            hws.type(text)
            hws.wait_for(text, timeout=WAIT_S)
            hws.send_keys("Enter")
        screen = hws.wait_for("3. third queued", timeout=WAIT_S)
        assert "queued: sent when the turn ends" in screen
        assert "1. first queued" in screen and "2. second queued" in screen
        assert "Answer to" not in screen and "still working" not in screen
        (work / "release").write_text("", encoding="utf-8")
        hws.wait_for("Answer to third queued", timeout=WAIT_S)
        screen = wait_idle(hws)
        assert "Released at last" in screen and "3. third queued" not in screen
        hws.send_keys("C-q")
        hws.wait_for("[exited 0]", timeout=WAIT_S)
    with sqlite3.connect(home / "state.db") as db:
        said = [row[0] for row in db.execute("SELECT content FROM messages WHERE role = 'user' ORDER BY id")]
    assert said == ["wait for it", "first queued", "second queued", "third queued"]
