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

from tests.support.tmux import SCRIPTED_WAIT_S, TmuxSession, status_line, tmux_available, wait_idle

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


CRASHING_HWS = """
import sys
import widgets.transcript


async def append_reply(self, text):
    raise RuntimeError("a bug in the transcript, injected by the test")


widgets.transcript.Transcript.append_reply = append_reply
from tui.main import main

sys.exit(main(sys.argv[1:]))
"""


def test_an_unexpected_error_ends_hws_with_a_sentence_instead_of_hanging(tmp_path: Path) -> None:
    """A bug that stops the app left the process waiting at exit for good under the traceback (the
    session's database thread was never closed): the person had to kill their terminal's program."""
    home = tmp_path / "home"
    scenario = tmp_path / "cut.yaml"
    scenario.write_text(SCENARIO, encoding="utf-8")
    wrapper = tmp_path / "crashing_hws.py"
    wrapper.write_text(CRASHING_HWS, encoding="utf-8")
    env = {"HOME": str(tmp_path), "TEXTUAL_ANIMATIONS": "none", "PYTHONPATH": str(Path.cwd())}
    command = [sys.executable, str(wrapper), "--scenario", str(scenario), "--home", str(home)]
    with TmuxSession.start(command, width=140, height=40, env=env, cwd=str(tmp_path)) as hws:
        hws.wait_for("Scripted model: scenario 'cut-once'", timeout=WAIT_S)
        hws.type("glaze report")
        hws.send_keys("Enter")
        screen = hws.wait_for("[exited 1]", timeout=30)
        assert "RuntimeError: a bug in the transcript, injected by the test" in screen
        assert "hws stopped on an unexpected error (above)." in screen
    with sqlite3.connect(home / "state.db") as db:
        said = db.execute("SELECT role, content FROM messages ORDER BY id").fetchall()
    assert said[0] == ("user", "glaze report")  # what was committed before the error is kept
    assert "a bug in the transcript" in (home / "logs" / "errors.log").read_text(encoding="utf-8")


def test_an_unexpected_error_in_the_demo_ends_it_with_a_sentence_instead_of_hanging(tmp_path: Path) -> None:
    """`hws demo` runs the same workstation; after a bug it exited 0 under the traceback, with no word."""
    wrapper = tmp_path / "crashing_hws.py"
    wrapper.write_text(CRASHING_HWS, encoding="utf-8")
    env = {"HOME": str(tmp_path), "TEXTUAL_ANIMATIONS": "none", "PYTHONPATH": str(Path.cwd())}
    command = [sys.executable, str(wrapper), "demo", "--speed", "20"]
    with TmuxSession.start(command, width=140, height=40, env=env, cwd=str(tmp_path)) as hws:
        screen = hws.wait_for("[exited 1]", timeout=WAIT_S)
        assert "RuntimeError: a bug in the transcript, injected by the test" in screen
        assert "The demo stopped on an unexpected error (above)" in screen


def test_sigterm_quits_like_ctrl_q_and_gives_the_terminal_back(tmp_path: Path) -> None:
    """`kill PID` killed hws mid-screen: the app stayed drawn under 'Terminated', the session unclosed."""
    import os
    import signal
    import subprocess

    home = tmp_path / "home"
    scenario = tmp_path / "cut.yaml"
    scenario.write_text(SCENARIO, encoding="utf-8")
    env = {"HOME": str(tmp_path), "TEXTUAL_ANIMATIONS": "none"}
    command = [HWS, "--scenario", str(scenario), "--home", str(home)]
    with TmuxSession.start(command, width=140, height=40, env=env, cwd=str(tmp_path)) as hws:
        hws.wait_for("Scripted model: scenario 'cut-once'", timeout=WAIT_S)
        hws.type("and again")
        hws.send_keys("Enter")
        hws.wait_for("came out blue.", timeout=WAIT_S)
        wait_idle(hws)
        shell = hws._tmux("list-panes", "-t", hws.name, "-F", "#{pane_pid}").stdout.split()[0]
        found = subprocess.run(["pgrep", "-P", shell], capture_output=True, text=True, check=True)
        os.kill(int(found.stdout.split()[0]), signal.SIGTERM)  # `env` ran hws in its own place
        screen = hws.wait_for("[exited 0]", timeout=WAIT_S)
        assert " scripted │" not in screen and "Terminated" not in screen, screen  # the terminal is back
    with sqlite3.connect(home / "state.db") as db:
        ended = db.execute("SELECT end_reason FROM sessions").fetchall()
    assert ended == [("user_exit",)]


def test_a_closed_terminal_ends_the_session_as_ctrl_q_does(tmp_path: Path) -> None:
    """Closing the terminal (SIGHUP to hws) killed it outright: the session stayed open in state.db."""
    import os
    import subprocess
    import time

    home = tmp_path / "home"
    scenario = tmp_path / "cut.yaml"
    scenario.write_text(SCENARIO, encoding="utf-8")
    env = {"HOME": str(tmp_path), "TEXTUAL_ANIMATIONS": "none"}
    command = [HWS, "--scenario", str(scenario), "--home", str(home)]
    with TmuxSession.start(command, width=140, height=40, env=env, cwd=str(tmp_path)) as hws:
        hws.wait_for("Scripted model: scenario 'cut-once'", timeout=WAIT_S)
        hws.type("and again")
        hws.send_keys("Enter")
        hws.wait_for("came out blue.", timeout=WAIT_S)
        wait_idle(hws)
        shell = hws._tmux("list-panes", "-t", hws.name, "-F", "#{pane_pid}").stdout.split()[0]
        found = subprocess.run(["pgrep", "-P", shell], capture_output=True, text=True, check=True)
        pid = int(found.stdout.split()[0])
        hws._tmux("kill-session", "-t", hws.name)  # the window closes: its processes get SIGHUP
        deadline = time.monotonic() + WAIT_S
        while os.path.exists(f"/proc/{pid}") and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not os.path.exists(f"/proc/{pid}"), "hws outlived its terminal"
    with sqlite3.connect(home / "state.db") as db:
        ended = db.execute("SELECT ended_at IS NOT NULL, end_reason FROM sessions").fetchall()
    assert ended == [(1, "user_exit")]
    errors = home / "logs" / "errors.log"
    assert "Traceback" not in (errors.read_text(encoding="utf-8") if errors.exists() else "")
