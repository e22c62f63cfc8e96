"""A home on a read-only file system, in a real terminal (tmux): what the person reads.

The home is mounted read-only for hws alone (bubblewrap binds it read-only in a mount namespace of
its own; tests run as root, which a chmod would not stop). MEMORY.md and USER.md have never been
written by hws, so there are no lock files beside them, and none can be created: the memory pane
still shows their entries, and the start of the transcript says what cannot work here.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from engine.home import Home
from tests.support.tmux import SCRIPTED_WAIT_S, TmuxSession, tmux_available

HWS = str(Path(sys.executable).with_name("hws"))


def read_only_mounts_work() -> bool:
    if shutil.which("bwrap") is None:
        return False
    command = ["bwrap", "--dev-bind", "/", "/", "--ro-bind", "/tmp", "/tmp", "true"]
    probe = subprocess.run(command, capture_output=True, timeout=10)
    return probe.returncode == 0


pytestmark = pytest.mark.skipif(
    not (tmux_available() and read_only_mounts_work()), reason="needs tmux and bubblewrap"
)


def test_a_read_only_home_shows_its_memory_and_says_at_start_what_cannot_work(tmp_path: Path) -> None:
    home = Home.resolve(tmp_path / "home").ensure()
    (home.memories / "MEMORY.md").write_text("The deploy box is called kiln.", encoding="utf-8")
    (home.memories / "USER.md").write_text("Dana prefers short answers.", encoding="utf-8")
    root = str(home.root)
    command = ["bwrap", "--dev-bind", "/", "/", "--ro-bind", root, root, HWS, "--home", root, "--scripted"]
    env = {"HOME": str(tmp_path), "TEXTUAL_ANIMATIONS": "none"}
    with TmuxSession.start(command, width=160, height=45, env=env, cwd=str(tmp_path)) as hws:
        screen = hws.wait_for("The deploy box is called kiln.", timeout=SCRIPTED_WAIT_S)
        screen = hws.wait_for("Dana prefers short answers.", timeout=SCRIPTED_WAIT_S)
        assert "(empty)" not in screen, screen
        assert "read-only file system" in screen and "lock" not in screen, screen
        flat = " ".join(line.split("▏")[0].strip() for line in screen.splitlines())
        assert "is on a read-only file system: the agent cannot run" in flat, flat
        hws.send_keys("C-q")
        hws.wait_for("[exited 0]", timeout=SCRIPTED_WAIT_S)
    assert not list(home.memories.glob("*.lock")), "nothing was written"
