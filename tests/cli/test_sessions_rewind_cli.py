"""`hws sessions rewind` and `hws sessions branch` between real `hws run --session` turns: what the scripted
model receives after each, what state.db keeps, and what search says."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from tests.support.fault_support import assert_clean_exit, hws, write_scenario

SCENARIO = """
name: echo
model: scripted
rules:
  - name: title
    when: {kind: title}
    reply: {text: "Kiln planning"}
  - name: echo
    reply: {text: "Answer to {{last_user}}"}
"""


class Conversation:
    """`hws run` turns against one scripted scenario, with every request the model got logged."""

    def __init__(self, home: Path, folder: Path) -> None:
        self.home = home
        self.folder = folder
        self.scenario = write_scenario(folder, SCENARIO)
        self.log = folder / "requests.jsonl"

    def run(self, text: str, session: str | None = None) -> str:
        args = ["run", "--json", "--scenario", str(self.scenario), "--request-log", str(self.log)]
        if session:
            args += ["--session", session]
        done = hws(*args, text, home=self.home, cwd=self.folder)
        assert_clean_exit(done, (0,))
        return str(json.loads(done.stdout.splitlines()[0])["session_id"])

    def sessions(self, *args: str, code: int = 0) -> Any:
        done = hws("sessions", *args, home=self.home, cwd=self.folder)
        assert_clean_exit(done, (code,))
        return done

    def last_asked(self) -> list[tuple[str, str]]:
        requests = [json.loads(line) for line in self.log.read_text(encoding="utf-8").splitlines()]
        chat = [r for r in requests if r["rule"] == "echo"][-1]
        return [(m["role"], m["content"]) for m in chat["body"]["messages"] if m["role"] != "system"]


def rows(db: Path, session_id: str) -> list[tuple[str, int]]:
    conn = sqlite3.connect(db)
    try:
        return conn.execute(
            "SELECT content, active FROM messages WHERE session_id = ? ORDER BY id", (session_id,)
        ).fetchall()
    finally:
        conn.close()


def test_rewind_two_exchanges_then_resend_an_edited_question(hermes_home: Path, tmp_path: Path) -> None:
    talk = Conversation(hermes_home, tmp_path)
    sid = talk.run("first question")
    talk.run("second question", sid)
    talk.run("third question", sid)
    rewound = talk.sessions("rewind", sid, "2")
    assert rewound.stdout == "second question\n"  # the message to edit and send again
    assert "Rewound 2 exchange(s)" in rewound.stderr
    talk.run("second question, edited", sid)
    assert talk.last_asked() == [
        ("user", "first question"),
        ("assistant", "Answer to first question"),
        ("user", "second question, edited"),
    ]
    assert rows(hermes_home / "state.db", sid) == [
        ("first question", 1),
        ("Answer to first question", 1),
        ("second question", 0),
        ("Answer to second question", 0),
        ("third question", 0),
        ("Answer to third question", 0),
        ("second question, edited", 1),
        ("Answer to second question, edited", 1),
    ]
    found = talk.sessions("search", '"third question"').stdout.splitlines()
    assert found[0].endswith("(rewound)") and "third question" in found[1]
    shown = talk.sessions("show", sid).stdout
    assert "third question" not in shown
    assert "(rewound)" in talk.sessions("show", sid, "--rewound").stdout
    # Asking the impossible is a sentence, not a traceback.
    refused = talk.sessions("rewind", sid, "--to", "2", code=1)
    assert "not one you wrote" in refused.stderr


def test_branch_then_go_on_in_both(hermes_home: Path, tmp_path: Path) -> None:
    talk = Conversation(hermes_home, tmp_path)
    sid = talk.run("plan the kiln firing")
    talk.run("use cone 6", sid)
    made = talk.sessions("branch", sid, "--title", "Cone 10 instead", "--json")
    branched = json.loads(made.stdout)
    child = branched["session_id"]
    assert branched["parent_session_id"] == sid and branched["messages"] == 4
    assert not branched["parent_ended"]  # from the command line the original is left as it was
    assert talk.run("try cone 10", child) == child
    assert talk.last_asked()[-3:] == [
        ("user", "use cone 6"),
        ("assistant", "Answer to use cone 6"),
        ("user", "try cone 10"),
    ]
    assert talk.run("and glaze?", sid) == sid  # the original resumes with its own history
    assert talk.last_asked() == [
        ("user", "plan the kiln firing"),
        ("assistant", "Answer to plan the kiln firing"),
        ("user", "use cone 6"),
        ("assistant", "Answer to use cone 6"),
        ("user", "and glaze?"),
    ]
    listed = talk.sessions("list", "--json")
    titles = {c["id"]: c["title"] for c in json.loads(listed.stdout)}
    assert titles[child] == "Cone 10 instead" and sid in titles
    at = talk.sessions("branch", sid, "--at", "2")
    assert at.stdout.strip() != child and "with 2 message(s)" in at.stderr
