"""The round trip with the real peer: Hermes Agent 0.19 opens a home whose session hws rewound and
branched, reads it as its own (/undo and /branch as Hermes makes them), rewinds the branch itself, and
hws reads that back.

The peer runs in a venv of its own: HWS_HERMES_PYTHON names its python, else `.hermes-venv/` at the
repository's root (which `.ci/run` tries to make: python3 -m venv .hermes-venv &&
.hermes-venv/bin/pip install hermes-agent==0.19.0).
"""

from __future__ import annotations

import json
import os
import subprocess
import textwrap
from pathlib import Path

import pytest

from engine.sessions.branch import branch_session
from engine.sessions.rewind import rewind_exchanges
from engine.sessions.store import SessionStore

ROOT = Path(__file__).resolve().parents[2]
HERMES_TIMEOUT = 120  # seconds for the peer's script (it imports a large package), never a timing claim


def hermes_python() -> Path | None:
    named = os.environ.get("HWS_HERMES_PYTHON")
    candidate = Path(named) if named else ROOT / ".hermes-venv" / "bin" / "python"
    return candidate if candidate.exists() else None


PEER = hermes_python()
pytestmark = pytest.mark.skipif(
    PEER is None,
    reason="Hermes Agent 0.19 is not installed for the round trip: set HWS_HERMES_PYTHON to the python of "
    "a venv with hermes-agent==0.19.0, or make .hermes-venv/ (.ci/run tries to)",
)

# Run by the peer: what Hermes reads of the file, then its own /undo of the branch's last exchange.
PEER_SCRIPT = """
import json, sys
from pathlib import Path
from hermes_state import SessionDB
path, sid, child = sys.argv[1:4]
db = SessionDB(Path(path))
out = {
    "active": [m["content"] for m in db.get_messages(sid)],
    "all": [(m["content"], m["active"]) for m in db.get_messages(sid, include_inactive=True)],
    "conversation": [m["content"] for m in db.get_messages_as_conversation(child)],
    "parent": {k: db.get_session(sid)[k] for k in ("end_reason", "rewind_count")},
    "child": {k: db.get_session(child)[k] for k in ("parent_session_id", "title", "model_config")},
    "listed": [s["id"] for s in db.list_sessions_rich(limit=50)],
    "found": sorted({h["session_id"] for h in db.search_messages("quokkas")}),
    "found_rewound": db.search_messages("babies"),
}
last = db.list_recent_user_messages(child, limit=1)[0]
out["hermes_rewound"] = db.rewind_to_message(child, last["id"])["rewound_count"]
db.append_message(child, "user", "hermes goes on after its own undo")
db.close()
print(json.dumps(out))
"""


async def test_hermes_reads_what_hws_rewound_and_branched_and_hws_reads_hermes_back(tmp_path: Path) -> None:
    assert PEER is not None
    path = tmp_path / "state.db"
    store = await SessionStore.open(path)
    session = await store.create_session(source="cli", title="Quokka census", system_prompt="You are Hermes.")
    for question, answer in (
        ("count the quokkas on the island", "About 12,000."),
        ("and the quokka babies?", "Joeys: a few hundred."),
        ("the quokka food then", "Grasses and leaves."),
    ):
        await store.append_message(session.id, "user", question)
        await store.append_message(session.id, "assistant", answer)
    await rewind_exchanges(store, session.id, 2)
    branched = await branch_session(store, session.id, end_parent=True, title="Quokka census, again")
    await store.append_message(branched.session_id, "user", "count them again")
    await store.append_message(branched.session_id, "assistant", "Still about 12,000.")
    await store.close()

    done = subprocess.run(
        [str(PEER), "-c", textwrap.dedent(PEER_SCRIPT), str(path), session.id, branched.session_id],
        capture_output=True,
        text=True,
        timeout=HERMES_TIMEOUT,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["active"] == ["count the quokkas on the island", "About 12,000."]
    assert [a for _c, a in seen["all"]] == [1, 1, 0, 0, 0, 0]
    assert seen["conversation"] == [
        "count the quokkas on the island",
        "About 12,000.",
        "count them again",
        "Still about 12,000.",
    ]
    assert seen["parent"] == {"end_reason": "branched", "rewind_count": 1}
    assert (
        seen["child"]["parent_session_id"] == session.id and seen["child"]["title"] == "Quokka census, again"
    )
    assert json.loads(seen["child"]["model_config"]) == {"_branched_from": session.id}
    assert {session.id, branched.session_id} <= set(seen["listed"])  # Hermes lists the branch as one
    assert set(seen["found"]) == {session.id, branched.session_id}
    assert seen["found_rewound"] == []  # Hermes' own search leaves rewound rows out; ours marks them
    assert seen["hermes_rewound"] == 2

    store = await SessionStore.open(path)
    try:
        kept = await store.get_messages(branched.session_id)
        assert [m.text for m in kept] == [
            "count the quokkas on the island",
            "About 12,000.",
            "hermes goes on after its own undo",
        ]
        hits = (await store.search('"count them again"')).hits
        assert [(h.session_id, h.rewound) for h in hits] == [(branched.session_id, True)]
        assert {h.rewound for h in (await store.search("babies")).hits} == {True}
        assert await store.integrity_errors() == []
    finally:
        await store.close()
