"""Rewinding in a real terminal (tmux), as a person does it: three questions, `/undo 2`, the last two
exchanges leave the screen and the second question is back in the input; edited and sent again, the
model is asked with the rewound history (its reply counts the questions it was given), and state.db
keeps the rewound messages, inactive. Then `alt+up` to the first question and `ctrl+z` rewinds there.
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
name: rewind
model: scripted
defaults: {chunk_size: 8, chunk_delay: 0}
rules:
  - name: title
    when: {kind: title}
    reply: {text: "Kiln planning"}
  - reply: {text: "Answer {{turn}} to {{last_user}}."}
"""


def input_line(screen: str) -> str:
    """The input: the line under the rule above the status bar."""
    lines = screen.rstrip("\n").splitlines()
    rule = max(i for i, line in enumerate(lines) if line.startswith("────"))
    return lines[rule + 1]


def ask(hws: TmuxSession, question: str, answer: str) -> str:
    hws.type(question)
    hws.wait_for(question, timeout=WAIT_S)
    hws.send_keys("Enter")
    hws.wait_for(answer, timeout=WAIT_S)
    return wait_idle(hws)


def test_rewind_two_exchanges_and_resend_an_edited_question_in_tmux(tmp_path: Path) -> None:
    home = tmp_path / "home"
    scenario = tmp_path / "rewind.yaml"
    scenario.write_text(SCENARIO, encoding="utf-8")
    env = {"HOME": str(tmp_path), "TEXTUAL_ANIMATIONS": "none"}
    command = [HWS, "--scenario", str(scenario), "--home", str(home)]
    with TmuxSession.start(command, width=120, height=40, env=env, cwd=str(tmp_path)) as hws:
        hws.wait_for("Scripted model: scenario 'rewind'", timeout=WAIT_S)
        ask(hws, "first question", "Answer 1 to first question.")
        ask(hws, "second question", "Answer 2 to second question.")
        ask(hws, "third question", "Answer 3 to third question.")

        hws.type("/undo 2")
        hws.wait_for("/undo 2", timeout=WAIT_S)
        hws.send_keys("Enter")
        screen = hws.wait_for("Rewound 2 exchanges (4 messages", timeout=WAIT_S)
        screen = hws.wait_until_gone("Answer 3 to third question.", timeout=WAIT_S)
        assert "Answer 2 to second question." not in screen and "Answer 1 to first question." in screen
        assert "second question" in input_line(screen), input_line(screen)

        hws.send_keys("End")
        hws.type(", briefly")
        hws.wait_for("second question, briefly", timeout=WAIT_S)
        hws.send_keys("Enter")
        # Two questions reached the model: the first, and the edited second (not the rewound ones).
        screen = hws.wait_for("Answer 2 to second question, briefly.", timeout=WAIT_S)
        wait_idle(hws)

        # alt+up in the transcript to the first question, ctrl+z rewinds there.
        hws.send_keys("F1")
        hws.send_keys("M-Up")
        hws.send_keys("M-Up")
        hws.send_keys("C-z")
        screen = hws.wait_for("Rewound 2 exchanges (4 messages", timeout=WAIT_S)
        screen = hws.wait_until_gone("Answer 1 to first question.", timeout=WAIT_S)
        assert "first question" in input_line(screen), input_line(screen)
        hws.send_keys("Enter")
        hws.wait_for("Answer 1 to first question.", timeout=WAIT_S)
        wait_idle(hws)

        hws.send_keys("C-q")
        hws.wait_for("[exited 0]", timeout=WAIT_S)

    with sqlite3.connect(home / "state.db") as db:
        rows = db.execute("SELECT role, content, active FROM messages ORDER BY id").fetchall()
    active = [(role, content) for role, content, on in rows if on]
    assert active == [("user", "first question"), ("assistant", "Answer 1 to first question.")]
    rewound = [content for role, content, on in rows if not on and role == "user"]
    assert rewound == [
        "first question",
        "second question",
        "third question",
        "second question, briefly",
    ]
