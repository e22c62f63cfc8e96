"""The real client: Toad (batrachian-toad) opens `hws acp` as its agent in tmux, and a person's message
gets the scripted answer on Toad's screen.

Toad needs Python 3.14, so it lives in a venv of its own: `.toad-venv` beside this checkout (.ci/run
makes it when a `python3.14` is on the PATH) or the executable `$HWS_TOAD` names. Without one the test
skips and says so.
"""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

import pytest

from tests.support.fault_support import stored_messages, write_scenario
from tests.support.tmux import SCRIPTED_WAIT_S, TmuxSession, tmux_available

ROOT = Path(__file__).resolve().parents[2]
TOAD = Path(os.environ.get("HWS_TOAD") or ROOT / ".toad-venv" / "bin" / "toad")
HWS = str(Path(sys.executable).with_name("hws"))

pytestmark = [
    pytest.mark.skipif(not tmux_available(), reason="tmux is not installed"),
    pytest.mark.skipif(
        not TOAD.is_file(),
        reason=f"Toad is not installed at {TOAD} (batrachian-toad needs Python 3.14: .ci/run installs it "
        "into .toad-venv when python3.14 is on the PATH; or set HWS_TOAD to its executable)",
    ),
]

SCENARIO = """
rules:
  - when: {kind: title}
    reply: {text: "Toad talks to hws"}
  - reply: {text: "Hello from hws over ACP, in Toad. You said: {{last_user}}"}
"""


def test_toad_runs_hws_acp_and_shows_the_scripted_answer(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    scenario = write_scenario(tmp_path, SCENARIO)
    agent = shlex.join([HWS, "--home", str(home), "acp", "--scenario", str(scenario)])
    env = {"HOME": str(tmp_path), "HERMES_HOME": str(home), "TEXTUAL_ANIMATIONS": "none"}
    command = [str(TOAD), "acp", "--title", "hws", "--project-dir", str(project), agent]
    with TmuxSession.start(command, width=120, height=40, env=env, cwd=str(project)) as toad:
        toad.wait_for("hws connected", timeout=SCRIPTED_WAIT_S)
        toad.type("hello toad")
        toad.send_keys("Enter")
        screen = toad.wait_for("Hello from hws over ACP, in Toad.", timeout=SCRIPTED_WAIT_S)
        assert "You said: hello toad" in screen
    kept = [(role, content) for _, role, content in stored_messages(home / "state.db")]
    assert ("user", "hello toad") in kept, "the conversation is kept in the home's session store"
