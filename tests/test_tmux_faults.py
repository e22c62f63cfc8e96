"""Provider faults in a real terminal (tmux): what the person reads after a stream cut mid-reply.

The scripted model cuts its first answer after a few words and gives it whole on the retry. The
screen shows the answer once, says the first attempt started over, leaves no retry warning in the
status bar once the answer came, answers the next message, and ctrl+q exits 0.
"""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import pytest

from tests.tmux import SCRIPTED_WAIT_S, TmuxSession, status_line, tmux_available, wait_idle

pytestmark = pytest.mark.skipif(not tmux_available(), reason="tmux is not installed")

HWS = str(Path(sys.executable).with_name("hws"))
WAIT_S = SCRIPTED_WAIT_S
ANSWER = "The kiln reached cone six and the glaze came out blue."

SCENARIO = f"""
name: cut-once
model: scripted
defaults: {{chunk_size: 6, chunk_delay: 0.02}}
rules:
  - name: cut
    when: {{user: "^glaze"}}
    times: 1
    fault: {{kind: cut, after_chunks: 4}}
    reply: {{text: "{ANSWER}"}}
  - reply: {{text: "{ANSWER}"}}
"""


def test_a_reply_cut_mid_stream_is_shown_once_after_its_retry(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.yaml").write_text("agent:\n  retry_base_delay: 0.05\n", encoding="utf-8")
    scenario = tmp_path / "cut.yaml"
    scenario.write_text(SCENARIO, encoding="utf-8")
    env = {"HOME": str(tmp_path), "TEXTUAL_ANIMATIONS": "none"}
    command = [HWS, "--scenario", str(scenario), "--home", str(home)]
    with TmuxSession.start(command, width=140, height=40, env=env, cwd=str(tmp_path)) as hws:
        hws.wait_for("Scripted model: scenario 'cut-once'", timeout=WAIT_S)
        hws.type("glaze report")
        hws.send_keys("Enter")
        screen = hws.wait_for("came out blue.", timeout=WAIT_S)
        screen = wait_idle(hws)
        assert screen.count("The kiln reached") == 1, screen
        assert "↻ Model call failed; retrying (1/3)" in screen and "starts over" in screen
        assert "Model call failed" not in status_line(screen)

        hws.type("and again")
        hws.send_keys("Enter")
        hws.wait_for("you  and again", timeout=WAIT_S)
        screen = wait_idle(hws)
        assert screen.count("came out blue.") == 2, screen

        hws.send_keys("C-q")
        hws.wait_for("[exited 0]", timeout=WAIT_S)
    with sqlite3.connect(home / "state.db") as db:
        rows = db.execute("SELECT role, content FROM messages ORDER BY id").fetchall()
    assert rows == [
        ("user", "glaze report"),
        ("assistant", ANSWER),
        ("user", "and again"),
        ("assistant", ANSWER),
    ]
