"""A big paste in a real terminal (tmux's bracketed paste, line ends sent as carriage returns, as
terminals do): it becomes a chip, it is sent, and nothing of it is lost.

The scripted model reports a 128K window: a 2,000-line paste fits and goes out whole; a 2 MB paste
does not, and the dialog saves it in the project and sends its path instead.
"""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import pytest

from tests.support.compression_support import pasted_log
from tests.support.tmux import SCRIPTED_WAIT_S, TmuxSession, tmux_available, wait_idle

pytestmark = pytest.mark.skipif(not tmux_available(), reason="tmux is not installed")

HWS = str(Path(sys.executable).with_name("hws"))
SCENARIO = """
model: scripted
context_length: 128000
rules:
  - when: {prompt_tokens_over: 128000}
    fault: {kind: context_length, limit: 128000}
  - when: {user: "saved to `([^`]+)`"}
    reply: {text: "I will read {{match.1}} now."}
  - when: {user: "(?s)^which batch.*paste line 001999"}
    reply: {text: "All 2,000 lines arrived."}
  - reply: {text: "Something else arrived."}
"""


def paste(hws: TmuxSession, text: str, folder: Path) -> None:
    """Paste `text` as a terminal does: bracketed (-p), each line end sent as a carriage return."""
    buffer = folder / "clipboard.txt"
    buffer.write_text(text, encoding="utf-8")
    hws._tmux("load-buffer", "-b", "clip", str(buffer))
    hws._tmux("paste-buffer", "-p", "-b", "clip", "-t", hws.name)


def test_big_pastes_in_tmux_become_chips_are_sent_and_nothing_is_lost(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    scenario = tmp_path / "scenario.yaml"
    scenario.write_text(SCENARIO, encoding="utf-8")
    medium, big = pasted_log(2000, tag="paste"), pasted_log(23_165, tag="big")
    env = {"HERMES_HOME": str(home), "HOME": str(tmp_path), "TEXTUAL_ANIMATIONS": "none"}
    command = [HWS, "--scenario", str(scenario), "--home", str(home)]
    with TmuxSession.start(command, width=120, height=40, env=env, cwd=str(project)) as hws:
        hws.wait_for(" scripted │", timeout=SCRIPTED_WAIT_S)

        # A paste that fits: one chip, then the whole text goes out with the words typed around it.
        hws.type("which batch was slow? ")
        paste(hws, medium, tmp_path)
        screen = hws.wait_for("[Pasted 2,000 lines · 180 KB]", timeout=SCRIPTED_WAIT_S)
        assert "paste line 000001" not in screen, "the paste's lines did not flood the input"
        hws.send_keys("Enter")
        screen = hws.wait_for("All 2,000 lines arrived.", timeout=SCRIPTED_WAIT_S)
        assert "2,000 lines · 180 KB" in screen, "the sent paste shows collapsed with its size"
        wait_idle(hws)

        # A paste the window cannot hold: the dialog, then the file in the project and its path.
        paste(hws, big, tmp_path)
        hws.wait_for("[Pasted 23,165 lines · 2.0 MB]", timeout=SCRIPTED_WAIT_S)
        hws.send_keys("Enter")
        screen = hws.wait_for("Too large for the model", timeout=SCRIPTED_WAIT_S)
        assert "128,000 tokens" in screen
        hws.send_keys("f")
        screen = hws.wait_for("now.", timeout=SCRIPTED_WAIT_S)
        wait_idle(hws)
        hws.send_keys("C-q")
        hws.wait_for("[exited 0]", timeout=SCRIPTED_WAIT_S)

    with sqlite3.connect(home / "state.db") as db:
        said = [row[0] for row in db.execute("SELECT content FROM messages WHERE role = 'user' ORDER BY id")]
    assert said[0] == "which batch was slow? " + medium, "the paste arrived whole, line ends and all"
    saved = list((project / ".hws" / "pastes").glob("paste-*.txt"))
    assert len(saved) == 1 and saved[0].read_text(encoding="utf-8") == big
    assert f".hws/pastes/{saved[0].name}" in said[1] and f"I will read .hws/pastes/{saved[0].name}" in screen
