"""`hws --scripted` in a real terminal (tmux), used as a person would: a greeting, a memory write, quit;
then the next day on the same home, the sessions screen finds that conversation.

The scripted model server ships with hws (scenario `default`): it greets back after a thought,
and "remember that …" makes it call the `memory` tool, which writes USER.md. Every wait polls
the captured screen with a generous deadline; nothing asserts on time.
"""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import pytest

from tests.support.tmux import SCRIPTED_WAIT_S, TmuxSession, TmuxTimeout, tmux_available, wait_idle

pytestmark = pytest.mark.skipif(not tmux_available(), reason="tmux is not installed")

HWS = str(Path(sys.executable).with_name("hws"))
WAIT_S = SCRIPTED_WAIT_S


def open_read_only(hws: TmuxSession, attempts: int = 3) -> str:
    """Enter on the highlighted result opens it read-only (the screen cannot show where the focus is,
    so an enter that reached the search box first, on a busy machine, is simply pressed again)."""
    for _ in range(attempts - 1):
        hws.send_keys("Enter")
        try:
            return hws.wait_for("read-only", timeout=10)
        except TmuxTimeout:
            continue
    hws.send_keys("Enter")
    return hws.wait_for("read-only", timeout=WAIT_S)


def test_a_conversation_with_the_scripted_model_in_tmux(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {"HERMES_HOME": str(tmp_path / "elsewhere"), "HOME": str(tmp_path), "TEXTUAL_ANIMATIONS": "none"}
    command = [HWS, "--scripted", "--home", str(home)]
    with TmuxSession.start(command, width=120, height=40, env=env, cwd=str(tmp_path)) as hws:
        screen = hws.wait_for("Replies come from the scenario, not a real", timeout=WAIT_S)
        assert "Scripted model: scenario 'default'" in screen
        assert "F2 Memory" in screen and " scripted │" in screen

        # Typed at once and sent, as a person does: the agent may still be starting (the message
        # waits for it), and enter must not overtake the letters typed before it.
        hws.type("hello there")
        hws.send_keys("Enter")
        screen = hws.wait_for("Hello! I'm the scripted model", timeout=WAIT_S)
        assert "you  hello there" in screen
        screen = wait_idle(hws)
        assert "Hello! I'm the scripted model that ships with Hermes Workstation." in screen
        assert "▸ thought" in screen, "the model's reasoning is a folded block"
        assert "Not sent" not in screen

        hws.type("remember that I prefer dark themes")
        hws.wait_for("remember that I prefer dark themes", timeout=WAIT_S)
        hws.send_keys("Enter")
        screen = hws.wait_for("Done. The memory tool answered", timeout=WAIT_S)
        assert "I'll remember that." in screen
        # The tool call block: name, argument preview, a tick and its result preview.
        assert "▸ memory" in screen and '+user "I prefer dark themes"' in screen and "✓" in screen
        assert "✎ memory add (user): Entry added." in screen
        # The memory pane: USER.md's usage bar counts the entry, and the diff shows what the next
        # session will see that the frozen prompt of this one does not.
        screen = hws.wait_for("+ I prefer dark themes", timeout=WAIT_S)
        assert "USER.md   20/1,375" in screen and "frozen ≠" in screen
        wait_idle(hws)

        hws.send_keys("C-q")
        hws.wait_for("[exited 0]", timeout=WAIT_S)

    assert "I prefer dark themes" in (home / "memories" / "USER.md").read_text(encoding="utf-8")
    assert not (tmp_path / "elsewhere").exists(), "--home wins over $HERMES_HOME"
    with sqlite3.connect(home / "state.db") as db:
        ended = db.execute("SELECT end_reason FROM sessions").fetchall()
        said = [row[0] for row in db.execute("SELECT content FROM messages WHERE role = 'user' ORDER BY id")]
    assert ended == [("user_exit",)], "ctrl+q ended the session"
    assert said == ["hello there", "remember that I prefer dark themes"]

    with TmuxSession.start(command, width=120, height=40, env=env, cwd=str(tmp_path)) as hws:
        hws.wait_for("Replies come from the scenario, not a real", timeout=WAIT_S)
        hws.wait_for("USER.md   20/1,375", timeout=WAIT_S)  # the memory written yesterday
        hws.send_keys("C-r")
        screen = hws.wait_for("1 conversation ·", timeout=WAIT_S)
        assert "hello there" in screen and "Sessions" in screen
        hws.type("dark themes")
        screen = hws.wait_for("match 'dark themes'", timeout=WAIT_S)
        assert "I prefer >>>" not in screen and "remember that I prefer dark themes" in screen
        hws.send_keys("Enter")  # from the search box to the results
        open_read_only(hws)
        screen = hws.wait_for("you  remember that I prefer dark themes", timeout=WAIT_S)  # from state.db
        assert "I'll remember that." in screen
        hws.send_keys("Escape")
        hws.wait_until_gone("read-only", timeout=WAIT_S)
        hws.send_keys("C-q")
        hws.wait_for("[exited 0]", timeout=WAIT_S)
