"""Concurrency: several agent processes and a hand-editor write memory and skills at once.

Every write either lands or is refused with a reason; none is silently lost. Each writer is a real
process that logs every attempt and its result; the files are checked against the logs at the end.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine.memory.format import parse_entries
from tests.support.fault_support import HWS_TIMEOUT, ROOT, hws_env

AGENT = """
import json, sys, time
from engine.home import Home
from engine.memory.store import MemoryStore
from engine.skills.library import SkillLibrary
from engine.skills.manage import SkillManager

home = Home.resolve().ensure()
who, count, what = sys.argv[1], int(sys.argv[2]), sys.argv[3]
log = open(sys.argv[4], "w")
store = MemoryStore(home, "memory", limit=10_000_000, who="agent")
manager = SkillManager(SkillLibrary(home), who="agent")
for k in range(count):
    if what == "memory":
        text = f"{who} fact {k}: the kiln is at cone {k}."
        result = store.add(text)
    else:
        text = f"- {who} step {k}"
        result = manager.run({"action": "patch", "name": "shared", "old_string": "<!-- end -->",
                              "new_string": text + "\\n<!-- end -->"})
    ok = bool(result.get("success"))
    log.write(json.dumps({"text": text, "ok": ok, "error": result.get("error")}) + "\\n")
    log.flush()
"""

EDITOR = """
import json, os, sys, time
path, count, what, log_path = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
log = open(log_path, "w")
for k in range(count):
    text = f"editor note {k}: glaze the pots." if what == "memory" else f"- editor line {k}"
    # A hand edit that appends, the way `echo >> file` or an editor's append does: no lock, one write.
    fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    os.write(fd, (("\\n§\\n" + text) if what == "memory" else ("\\n" + text)).encode())
    os.close(fd)
    log.write(json.dumps({"text": text, "ok": True}) + "\\n")
    log.flush()
    time.sleep(0.002)
"""


def start(script: str, *args: str, home: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", script, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=hws_env(home),
        cwd=ROOT,
    )


def finish(procs: list[subprocess.Popen[str]]) -> None:
    for proc in procs:
        _, err = proc.communicate(timeout=HWS_TIMEOUT * 2)
        assert proc.returncode == 0, err[-3000:]


def results(paths: list[Path]) -> list[dict[str, object]]:
    return [json.loads(line) for path in paths for line in path.read_text().splitlines()]


def race(home: Path, tmp_path: Path, what: str, agents: int, count: int, target: Path) -> dict[str, int]:
    logs = [tmp_path / f"{what}-agent{i}.jsonl" for i in range(agents)]
    editor_log = tmp_path / f"{what}-editor.jsonl"
    procs = [start(AGENT, f"agent{i}", str(count), what, str(log), home=home) for i, log in enumerate(logs)]
    procs.append(start(EDITOR, str(target), str(count), what, str(editor_log), home=home))
    finish(procs)
    attempts = results([*logs, editor_log])
    assert len(attempts) == (agents + 1) * count
    refused = [a for a in attempts if not a["ok"]]
    assert all(isinstance(a["error"], str) and len(str(a["error"])) > 10 for a in refused), refused
    final = target.read_text(encoding="utf-8")
    kept = parse_entries(final) if what == "memory" else final.splitlines()
    lost = [a["text"] for a in attempts if a["ok"] and a["text"] not in kept]
    assert lost == [], f"{len(lost)} writes reported done are missing, e.g. {lost[:3]}"
    return {"landed": len(attempts) - len(refused), "refused": len(refused)}


def test_agents_and_a_hand_editor_share_memory(hermes_home: Path, tmp_path: Path) -> None:
    target = hermes_home / "memories" / "MEMORY.md"
    target.parent.mkdir(parents=True)
    target.write_text("The user likes stoneware.", encoding="utf-8")
    figures = race(hermes_home, tmp_path, "memory", agents=3, count=40, target=target)
    assert figures["landed"] > 0


def _shared_skill(home: Path) -> Path:
    folder = home / "skills" / "shared"
    folder.mkdir(parents=True)
    path = folder / "SKILL.md"
    path.write_text(
        "---\nname: shared\ndescription: A procedure many hands write. Use when testing.\n---\n\n"
        "# Shared\n\n<!-- end -->\n",
        encoding="utf-8",
    )
    return path


def test_agents_and_a_hand_editor_share_a_skill(hermes_home: Path, tmp_path: Path) -> None:
    target = _shared_skill(hermes_home)
    figures = race(hermes_home, tmp_path, "skills", agents=3, count=25, target=target)
    assert figures["landed"] > 0


@pytest.mark.slow
def test_long_races_over_memory_and_skills(hermes_home: Path, tmp_path: Path) -> None:
    started = time.monotonic()
    target = hermes_home / "memories" / "MEMORY.md"
    target.parent.mkdir(parents=True)
    target.write_text("The user likes stoneware.", encoding="utf-8")
    memory = race(hermes_home, tmp_path, "memory", agents=4, count=250, target=target)
    skills = race(hermes_home, tmp_path, "skills", agents=4, count=120, target=_shared_skill(hermes_home))
    print(
        f"\nconcurrency: memory {memory['landed']} writes landed, {memory['refused']} refused with a reason; "
        f"skill {skills['landed']} landed, {skills['refused']} refused; 0 lost "
        f"({time.monotonic() - started:.0f} s)"
    )
