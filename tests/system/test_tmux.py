"""`hws` in a real terminal (tmux), driven as a person would: look, type, send, quit."""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

import pytest

from tests.support.tmux import TmuxSession, TmuxTimeout, tmux_available

pytestmark = pytest.mark.skipif(not tmux_available(), reason="tmux is not installed")

HWS = str(Path(sys.executable).with_name("hws"))


def test_hws_opens_shows_the_layout_takes_input_and_quits(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {"HERMES_HOME": str(home), "HOME": str(tmp_path), "TEXTUAL_ANIMATIONS": "none"}
    with TmuxSession.start([HWS], width=120, height=32, env=env, cwd=str(tmp_path)) as tmux:
        tmux.wait_for("idle", timeout=20)
        tmux.wait_for("Choose your model")  # a first run with no model offers the setup screen
        tmux.send_keys("Escape")  # later
        tmux.wait_until_gone("Choose your model")
        screen = tmux.wait_for("No model is configured")
        for text in ("F1 hws", "F2 Memory", "F3 Budget", "F4 Skills", "F5 Compression", "no model"):
            assert text in screen, text
        tmux.type("hello from tmux")
        screen = tmux.wait_for("hello from tmux")
        tmux.send_keys("Enter")
        screen = tmux.wait_for("Not sent: no model is configured")
        assert "you  hello from tmux" in screen
        # F2 focuses the memory pane, F10 zooms it (a key sent mid-redraw may be lost)
        for attempt in range(3):
            tmux.send_keys("F2")
            time.sleep(0.3)
            tmux.send_keys("F10")
            try:
                screen = tmux.wait_until_gone("F3 Budget", timeout=4)
                break
            except TmuxTimeout:
                if attempt == 2:
                    raise
        assert "F2 Memory" in screen
        tmux.send_keys("F10")
        tmux.wait_for("F3 Budget")
        tmux.send_keys("C-q")
        screen = tmux.wait_for("[exited 0]", timeout=10)
    assert (home / "SOUL.md").exists()


def test_hws_at_80x24_folds_the_panes_into_tabs(tmp_path: Path) -> None:
    env = {"HERMES_HOME": str(tmp_path / "home"), "HOME": str(tmp_path)}
    with TmuxSession.start([HWS], width=80, height=24, env=env, cwd=str(tmp_path)) as tmux:
        tmux.wait_for("idle", timeout=20)
        tmux.wait_for("Choose your model")
        tmux.send_keys("Escape")
        tmux.wait_until_gone("Choose your model")
        tmux.wait_for("No model is configured")
        screen = tmux.wait_for("F2 Memory 0%")  # '…' until the memory files are read
        # The budget tab shows the prompt preview's share once it is counted (0% until then).
        assert re.search(r"F2 Memory 0% │ F3 Budget \d+% │ F4 Skills", screen), screen
        assert "▾ F2 Memory" not in screen
        tmux.send_keys("F3")
        screen = tmux.wait_for("▾ F3 Budget")
        assert "No model is configured" not in screen  # the pane took the transcript's place
        tmux.send_keys("F1")
        tmux.wait_for("No model is configured")
        tmux.send_keys("C-q")
        tmux.wait_for("[exited 0]", timeout=10)


def test_a_broken_config_exits_with_one_sentence(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.yaml").write_text("memory:\n  memory_char_limit: [\n", encoding="utf-8")
    env = {"HERMES_HOME": str(home), "HOME": str(tmp_path)}
    with TmuxSession.start([HWS], width=100, height=10, env=env, cwd=str(tmp_path)) as tmux:
        screen = tmux.wait_for("[exited 2]", timeout=15)
    assert "config.yaml line" in screen and "Traceback" not in screen
