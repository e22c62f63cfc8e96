"""`memory_store.db` shared with the real Hermes Agent 0.19: its holographic plugin writes, hws reads,
searches and writes, and Hermes reads what hws wrote (its tools, its search, its vectors).

Hermes runs in its own venv (`.hermes-venv`, made by .ci/run, or HWS_HERMES_PYTHON), in a subprocess.
"""

from __future__ import annotations

import json
import os
import subprocess
import textwrap
from pathlib import Path
from typing import Any

import pytest

from engine.providers.facts import hrr, queries
from engine.providers.facts import tools as fact_tools
from engine.providers.facts.store import FactStore

ROOT = Path(__file__).resolve().parents[2]


def hermes_python() -> str | None:
    named = os.environ.get("HWS_HERMES_PYTHON", "")
    for candidate in (named, str(ROOT / ".hermes-venv/bin/python"), "/work/main/.hermes-venv/bin/python"):
        if candidate and Path(candidate).is_file():
            return candidate
    return None


pytestmark = pytest.mark.skipif(
    hermes_python() is None,
    reason="no Hermes Agent venv: .ci/run makes .hermes-venv (or set HWS_HERMES_PYTHON)",
)

HERMES_PRELUDE = """
import json, sys
from plugins.memory.holographic import HolographicMemoryProvider
from plugins.memory.holographic import holographic as hermes_hrr
db = sys.argv[1]
provider = HolographicMemoryProvider(config={"db_path": db})
provider.initialize("hermes-session")
def call(tool, **args):
    return json.loads(provider.handle_tool_call(tool, args))
out = {"numpy": hermes_hrr._HAS_NUMPY}
"""

HERMES_WRITES = """
out["added"] = [
    call("fact_store", action="add", content="Grace Hopper maintains the Harbor Build farm",
         category="project"),
    call("fact_store", action="add", content="The user prefers 'ripgrep' over grep", category="user_pref"),
    call("fact_store", action="add", content="Grace Hopper reviews every release on Fridays", tags="release"),
]
provider.on_memory_write("add", "user", "The user's shell is fish")
out["feedback"] = call("fact_feedback", action="helpful", fact_id=1)
"""

HERMES_READS = """
out["search"] = call("fact_store", action="search", query="sourdough bakery schedule")
out["probe"] = call("fact_store", action="probe", entity="Grace Hopper")
out["list"] = call("fact_store", action="list", limit=20)
out["feedback"] = call("fact_feedback", action="unhelpful", fact_id=out["search"]["results"][0]["fact_id"])
import sqlite3
conn = sqlite3.connect(db)
out["integrity"] = conn.execute("PRAGMA integrity_check").fetchone()[0]
if hermes_hrr._HAS_NUMPY:
    same = []
    for fact_id, content, blob in conn.execute("SELECT fact_id, content, hrr_vector FROM facts"):
        names = [r[0] for r in conn.execute(
            "SELECT e.name FROM entities e JOIN fact_entities fe ON fe.entity_id = e.entity_id "
            "WHERE fe.fact_id = ?", (fact_id,))]
        mine = hermes_hrr.phases_to_bytes(hermes_hrr.encode_fact(content, names, 1024))
        same.append(blob == mine)
    out["vectors_equal"] = same
"""


def run_hermes(db: Path, body: str) -> dict[str, Any]:
    script = (
        textwrap.dedent(HERMES_PRELUDE)
        + textwrap.dedent(body)
        + "\nprovider.shutdown()\nprint(json.dumps(out))\n"
    )
    env = {**os.environ, "HERMES_HOME": str(db.parent)}
    env.pop("PYTHONPATH", None)
    done = subprocess.run(
        [hermes_python() or "", "-c", script, str(db)], capture_output=True, text=True, timeout=180, env=env
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_store_hermes_wrote_is_read_searched_and_written_by_hws_and_hermes_reads_it_back(
    tmp_path: Path,
) -> None:
    db = tmp_path / "memory_store.db"
    wrote = run_hermes(db, HERMES_WRITES)
    assert [a["status"] for a in wrote["added"]] == ["added"] * 3

    store = FactStore(db)
    listed = {f["content"]: f for f in store.list(limit=20)}
    assert listed["The user's shell is fish"]["category"] == "user_pref"  # Hermes' on_memory_write
    assert listed["Grace Hopper maintains the Harbor Build farm"]["trust_score"] == pytest.approx(0.55)
    assert [f["fact_id"] for f in queries.probe(store, "grace hopper")][:2] in ([1, 3], [3, 1])
    assert store.search("which tool instead of grep?", min_trust=0.0)[0]["content"].startswith(
        "The user prefers"
    )
    added = fact_tools.call(
        store, "fact_store", {"action": "add", "content": "Grace Hopper runs the sourdough bakery schedule"}
    )
    assert added == {"fact_id": 5, "status": "added"}
    assert fact_tools.call(store, "fact_feedback", {"action": "helpful", "fact_id": 2})[
        "new_trust"
    ] == pytest.approx(0.55)
    assert store.update(3, tags="release,weekly")
    store.close()

    read = run_hermes(db, HERMES_READS)
    assert read["integrity"] == "ok"
    assert read["search"]["results"][0]["fact_id"] == 5  # Hermes' FTS index saw hws' insert
    assert {r["fact_id"] for r in read["probe"]["results"]} >= {1, 3}
    trust = {f["fact_id"]: f["trust_score"] for f in read["list"]["facts"]}
    assert trust[2] == pytest.approx(0.55) and len(trust) == 5
    assert read["feedback"]["old_trust"] == pytest.approx(0.5)
    if read["numpy"] and hrr.AVAILABLE:  # both sides encode: the same bytes for every fact
        assert all(read["vectors_equal"]), read["vectors_equal"]

    store = FactStore(db)  # and hws reads Hermes' last write
    assert store.get(5)["trust_score"] == pytest.approx(0.4)
    store.close()
