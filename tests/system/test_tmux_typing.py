"""A person typing at `hws --scripted` in a real terminal (tmux): nothing they type or edit is lost.

Typing after F1 lands in the input (a letter in a pane is text, not a pane action); an approval
question arriving mid-word takes no keystroke; an editor buffer changed in $EDITOR (ctrl+g) and left
unsaved makes ctrl+q ask, and "save" writes it before hws exits; SIGTERM saves nothing and says in
logs/errors.log which buffers were lost.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.tmux import SCRIPTED_WAIT_S, TmuxSession, tmux_available, wait_idle

pytestmark = pytest.mark.skipif(not tmux_available(), reason="tmux is not installed")

HWS = str(Path(sys.executable).with_name("hws"))
WAIT_S = SCRIPTED_WAIT_S

SCENARIO = """
name: typing
model: scripted
defaults: {chunk_size: 6, chunk_delay: 0.01}
rules:
  - name: after a tool
    when: {after_tool: true}
    reply: {text: "The command was not run."}
  - name: clean
    when: {user: "^clean"}
    reply:
      delay: 1.0
      text: "Cleaning up."
      tool_calls:
        - name: terminal
          arguments: {command: "rm -rf build"}
  - reply: {text: "Noted: {{last_user}}."}
"""


def start(tmp_path: Path, width: int = 100, height: int = 30, **env: str):  # type: ignore[no-untyped-def]
    home = tmp_path / "home"
    scenario = tmp_path / "typing.yaml"
    scenario.write_text(SCENARIO, encoding="utf-8")
    (tmp_path / "build").mkdir(exist_ok=True)
    environment = {"HOME": str(tmp_path), "TEXTUAL_ANIMATIONS": "none", **env}
    command = [HWS, "--scenario", str(scenario), "--home", str(home)]
    return home, TmuxSession.start(command, width=width, height=height, env=environment, cwd=str(tmp_path))


def ready(hws: TmuxSession) -> None:
    """Started, with the agent built (a first exchange answered)."""
    hws.wait_for("Scripted model: scenario 'typing'", timeout=WAIT_S)
    hws.type("warm up")
    hws.send_keys("Enter")
    hws.wait_for("Noted: warm up.", timeout=WAIT_S)
    wait_idle(hws)


def input_line(screen: str) -> str:
    """The input: the line under the rule above the status bar."""
    lines = screen.rstrip("\n").splitlines()
    rule = max(i for i, line in enumerate(lines) if line.startswith("────"))
    return lines[rule + 1]


def test_typing_after_f1_lands_in_the_input_and_a_question_mid_word_takes_no_keystroke(
    tmp_path: Path,
) -> None:
    home, session = start(tmp_path)
    with session as hws:
        ready(hws)
        hws.send_keys("F1")
        hws.wait_for("▾ F1")
        hws.type("hello")
        screen = hws.wait_for("hello")
        assert input_line(screen).strip() == "hello", screen
        assert "▸ F1" not in screen and "Noted: warm up." in screen  # the transcript is still shown
        hws.send_keys("Enter")
        hws.wait_for("Noted: hello.", timeout=WAIT_S)
        wait_idle(hws)

        # A question arrives while the person types the next message, one letter at a time.
        hws.type("clean build")
        hws.send_keys("Enter")
        hws.wait_for("you  clean build", timeout=WAIT_S)
        typed = ""
        letters = iter("thenextmessagearrivesletterbyletterwhilethequestionappears")
        asked_at = -1
        for letter in letters:
            typed += letter
            hws.type(letter)
            screen = hws.wait_for(typed)
            if asked_at < 0 and "approve?" in screen:
                asked_at = len(typed)
            if asked_at > 0 and len(typed) >= asked_at + 5:
                break
        if asked_at < 0:  # a very slow machine: the question comes after the word; type on after it
            hws.wait_for("approve?", timeout=WAIT_S)
            asked_at = len(typed)
            for letter in "after":
                typed += letter
                hws.type(letter)
                hws.wait_for(typed)
        screen = hws.capture()
        assert input_line(screen).strip() == typed, screen
        assert "approve?" in screen and "rm -rf build" in screen, "the question waits, unanswered"

        hws.send_keys("C-o")
        hws.send_keys("3")
        screen = hws.wait_for("The command was not run.", timeout=WAIT_S)
        wait_idle(hws)
        hws.type("!")
        screen = hws.wait_for(typed + "!")
        assert input_line(screen).strip() == typed + "!"
        hws.send_keys("C-q")
        hws.wait_for("[exited 0]", timeout=WAIT_S)
    assert (tmp_path / "build").is_dir(), "denied: the folder is still there"
    with sqlite3.connect(home / "state.db") as db:
        said = [row[0] for row in db.execute("SELECT content FROM messages WHERE role = 'user' ORDER BY id")]
    assert said == ["warm up", "hello", "clean build"]


def test_an_unsaved_edit_made_in_editor_makes_ctrl_q_ask_and_save_keeps_it(tmp_path: Path) -> None:
    # $EDITOR, run by ctrl+g on a copy of the buffer: appends a line, as a person would in vim.
    home, session = start(tmp_path, width=120, height=36, EDITOR="sed -i -e '$a Added by hand.'")
    with session as hws:
        ready(hws)
        soul_before = (home / "SOUL.md").read_text(encoding="utf-8")
        hws.send_keys("C-e")
        hws.wait_for("esc back")
        hws.wait_for("SOUL.md", timeout=WAIT_S)
        hws.send_keys("C-g")
        screen = hws.wait_for("Edited in sed; ctrl+s saves it.", timeout=WAIT_S)
        assert "● modified" in hws.wait_for("● modified", timeout=WAIT_S)
        hws.send_keys("Escape")
        hws.wait_until_gone("esc back")
        hws.send_keys("C-q")
        screen = hws.wait_for("Unsaved changes in 1 file", timeout=WAIT_S)
        assert "SOUL.md" in screen
        hws.send_keys("Escape")  # cancel: nothing happens, nothing is lost
        hws.wait_until_gone("Unsaved changes")
        hws.send_keys("C-q")
        hws.wait_for("Unsaved changes in 1 file", timeout=WAIT_S)
        hws.send_keys("s")
        hws.wait_for("[exited 0]", timeout=WAIT_S)
    assert (home / "SOUL.md").read_text(encoding="utf-8") == soul_before.rstrip("\n") + "\nAdded by hand.\n"


def test_sigterm_with_an_unsaved_buffer_saves_nothing_and_logs_what_was_lost(tmp_path: Path) -> None:
    home, session = start(tmp_path, width=120, height=36)
    with session as hws:
        ready(hws)
        soul_before = (home / "SOUL.md").read_text(encoding="utf-8")
        hws.send_keys("C-e")
        hws.wait_for("esc back")
        hws.wait_for("SOUL.md", timeout=WAIT_S)
        hws.type("half a thought ")
        hws.wait_for("● modified", timeout=WAIT_S)
        shell = hws._tmux("list-panes", "-t", hws.name, "-F", "#{pane_pid}").stdout.split()[0]
        found = subprocess.run(["pgrep", "-P", shell], capture_output=True, text=True, check=True)
        os.kill(int(found.stdout.split()[0]), signal.SIGTERM)
        hws.wait_for("[exited 0]", timeout=WAIT_S)
    assert (home / "SOUL.md").read_text(encoding="utf-8") == soul_before
    errors = (home / "logs" / "errors.log").read_text(encoding="utf-8")
    assert "SIGTERM" in errors and "unsaved editor changes" in errors and "SOUL.md" in errors


def test_the_draft_goes_to_editor_with_ctrl_g_or_alt_e_and_comes_back_edited(tmp_path: Path) -> None:
    # $EDITOR fixes a typo in the file it is given, as a person would in vim.
    home, session = start(tmp_path, width=120, height=36, EDITOR="sed -i -e 's/teh/the/g'")
    with session as hws:
        ready(hws)
        hws.type("fix teh typo")
        hws.wait_for("fix teh typo")
        hws.send_keys("C-g")  # no paste chip in the draft: ctrl+g opens the draft itself
        screen = hws.wait_for("fix the typo", timeout=WAIT_S)
        assert input_line(screen).strip() == "fix the typo"
        hws.send_keys("Enter")
        hws.wait_for("Noted: fix the typo.", timeout=WAIT_S)
        wait_idle(hws)

        hws.type("teh end")
        hws.wait_for("teh end")
        hws.send_keys("M-e")
        screen = hws.wait_for("the end", timeout=WAIT_S)
        assert input_line(screen).strip() == "the end"
        hws.send_keys("C-q")
        hws.wait_for("[exited 0]", timeout=WAIT_S)
    with sqlite3.connect(home / "state.db") as db:
        said = [row[0] for row in db.execute("SELECT content FROM messages WHERE role = 'user' ORDER BY id")]
    assert said == ["warm up", "fix the typo"]
