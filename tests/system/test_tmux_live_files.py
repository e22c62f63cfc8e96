"""Live files in a real terminal: USER.md edited with vim while `hws` runs, and ctrl+g through $EDITOR."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from engine.memory.format import char_count, parse_entries
from tests.support.tmux import TmuxSession, TmuxTimeout, tmux_available

pytestmark = pytest.mark.skipif(not tmux_available(), reason="tmux is not installed")

HWS = str(Path(sys.executable).with_name("hws"))


def start_env(tmp_path: Path, **extra: str) -> tuple[Path, dict[str, str]]:
    home = tmp_path / "home"
    (home / "memories").mkdir(parents=True)
    (home / "memories" / "USER.md").write_text("Name: Dana\n§\nLives in Lisbon", encoding="utf-8")
    # No model, and no setup screen over the panes these tests watch (test_tmux covers that screen).
    (home / "config.yaml").write_text("setup:\n  offer_screen: false\n", encoding="utf-8")
    env = {"HERMES_HOME": str(home), "HOME": str(tmp_path), "TEXTUAL_ANIMATIONS": "none", **extra}
    return home, env


def usage_shown(path: Path) -> str:
    """What the memory pane's usage bar says of `path` now ("N/1,375"), counted as the engine counts."""
    return f"{char_count(parse_entries(path.read_text(encoding='utf-8'))):,}/1,375"


def edit_until_shown(hws: TmuxSession, path: Path, attempts: int = 5) -> str:
    """`sed -i` on `path` until the memory pane's usage shows it (the watcher starts after the frame)."""
    for attempt in range(attempts):
        subprocess.run(
            ["sed", "-i", f"s/Lives in .*/Lives in Porto now{'!' * attempt}/", str(path)], check=True
        )
        try:
            return hws.wait_for(usage_shown(path), timeout=5)
        except TmuxTimeout:
            continue
    return hws.wait_for(usage_shown(path), timeout=5)


@pytest.mark.skipif(shutil.which("vim") is None, reason="vim is not installed")
def test_user_md_edited_in_vim_shows_in_the_memory_pane(tmp_path: Path) -> None:
    home, env = start_env(tmp_path)
    user_md = home / "memories" / "USER.md"
    with TmuxSession.start([HWS], width=120, height=32, env=env, cwd=str(tmp_path)) as hws:
        hws.wait_for("idle", timeout=20)
        hws.wait_for("F2 Memory")
        edit_until_shown(hws, user_md)  # the watcher is looking now
        vim_env = {"HOME": str(tmp_path)}
        with TmuxSession.start(
            ["vim", "-u", "DEFAULTS", "-i", "NONE", str(user_md)], width=80, height=20, env=vim_env
        ) as vim:
            vim.wait_for("Lives in Porto", timeout=10)
            vim.send_keys("G", "o")
            vim.type("§")
            vim.send_keys("Enter")
            vim.type("Hates light themes")
            vim.send_keys("Escape")
            vim.type(":wq")
            vim.send_keys("Enter")
            vim.wait_for("[exited 0]", timeout=10)
        hws.wait_for(usage_shown(user_md), timeout=10)  # the entry vim added, counted in the memory pane
        hws.send_keys("C-q")
        hws.wait_for("[exited 0]", timeout=10)
    assert user_md.read_text(encoding="utf-8").rstrip("\n").endswith("Hates light themes")


def test_sed_in_place_while_hws_runs_shows_in_the_memory_pane(tmp_path: Path) -> None:
    home, env = start_env(tmp_path)
    user_md = home / "memories" / "USER.md"
    with TmuxSession.start([HWS], width=120, height=32, env=env, cwd=str(tmp_path)) as hws:
        hws.wait_for("idle", timeout=20)
        hws.wait_for("F2 Memory")
        screen = edit_until_shown(hws, user_md)
        assert "Lives in Porto now" in user_md.read_text(encoding="utf-8") and usage_shown(user_md) in screen
        hws.send_keys("C-q")
        hws.wait_for("[exited 0]", timeout=10)


def test_ctrl_g_suspends_for_the_editor_and_ctrl_s_saves_what_it_wrote(tmp_path: Path) -> None:
    home, env = start_env(tmp_path, EDITOR="sed -i s/Lisbon/Porto/", VISUAL="")
    with TmuxSession.start([HWS], width=120, height=32, env=env, cwd=str(tmp_path)) as hws:
        hws.wait_for("idle", timeout=20)
        hws.wait_for("No model is configured")
        hws.type("/edit USER.md SOUL.md")
        hws.wait_for("/edit USER.md SOUL.md")
        hws.send_keys("Escape")  # close the completion list, so enter sends the line
        hws.send_keys("Enter")
        hws.wait_for("Lives in Lisbon", timeout=10)
        hws.send_keys("C-g")
        screen = hws.wait_for("Edited in sed; ctrl+s saves it.", timeout=10)
        assert "Lives in Porto" in screen and "modified" in screen
        hws.send_keys("C-s")
        hws.wait_for("USER.md saved", timeout=10)
        hws.send_keys("C-q")
        hws.wait_for("[exited 0]", timeout=10)
    assert (home / "memories" / "USER.md").read_text(encoding="utf-8") == "Name: Dana\n§\nLives in Porto"
