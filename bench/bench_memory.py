"""Memory and scanner figures: `add` latency with the lock, fsync and journal; scan cost per entry;
attacks caught and benign notes refused on the test corpora.

When Hermes Agent is installed in a separate venv (`HWS_HERMES_PYTHON=/path/to/python`, or the
default `/tmp/hermes-venv/bin/python`), the same figures are measured for Hermes in the same run and
printed as the baseline. Its code is only run, never imported here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.common import Figure, Options, median, temp_home

HERMES_DEFAULT = "/tmp/hermes-venv/bin/python"
BIG_LIMIT = 10_000_000  # so that 200 adds never hit the budget

DOCUMENT_CHARS = 20_000
ROUNDS = 5  # adds alternate between Hermes and us in rounds, so a load spike hits both alike

# Runs inside Hermes' venv as a server: one JSON command per line in, one JSON answer per line out.
HERMES_PROBE = """
import json, sys, time
from tools.memory_tool import MemoryStore
from tools.threat_patterns import first_threat_message
store = MemoryStore(memory_char_limit=10_000_000, user_char_limit=10_000_000)
store.load_from_disk()
for n in range(3):
    store.add("memory", f"warm-up entry {n}")
count = 0
for line in sys.stdin:
    command = json.loads(line)
    if command[0] == "add":
        samples = []
        for _ in range(command[1]):
            start = time.perf_counter()
            store.add("memory", f"User fact number {count}: prefers concise answers and metric units")
            samples.append((time.perf_counter() - start) * 1000)
            count += 1
        print(json.dumps(samples), flush=True)
    elif command[0] == "scan":
        texts = command[1]
        best = None
        for _ in range(5):
            start = time.process_time()
            verdicts = [first_threat_message(t, "strict") is not None for t in texts]
            took = (time.process_time() - start) * 1000 / len(texts)
            best = took if best is None else min(best, took)
        print(json.dumps({"scan_ms": best, "verdicts": verdicts}), flush=True)
"""


def hermes_python() -> str | None:
    path = os.environ.get("HWS_HERMES_PYTHON") or HERMES_DEFAULT
    return path if Path(path).exists() else None


def corpora() -> tuple[list[str], list[str]]:
    from tests.support.threat_corpus import ATTACKS, BENIGN
    from tests.support.threat_heldout import HELDOUT_ATTACKS, HELDOUT_BENIGN

    return [t for _, t in ATTACKS] + HELDOUT_ATTACKS, BENIGN + HELDOUT_BENIGN


class HermesProbe:
    """Hermes Agent's memory store and scanner, running in its own venv and its own temporary home."""

    def __init__(self, python: str) -> None:
        self.root = tempfile.TemporaryDirectory(prefix="hws-bench-hermes-")
        env = {**os.environ, "HERMES_HOME": self.root.name, "HOME": self.root.name}
        self.proc = subprocess.Popen(
            [python, "-c", HERMES_PROBE],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=self.root.name,
            text=True,
        )

    def ask(self, command: list[object]) -> object:
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(json.dumps(command) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(self.proc.stderr.read().strip().splitlines()[-1:] if self.proc.stderr else "")
        return json.loads(line)

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        self.proc.wait(timeout=30)
        self.root.cleanup()


def start_hermes() -> HermesProbe | None:
    python = hermes_python()
    if python is None:
        return None
    try:
        probe = HermesProbe(python)
        probe.ask(["add", 1])
        return probe
    except (OSError, RuntimeError, ValueError) as exc:
        print(f"  Hermes baseline skipped: {exc}", file=sys.stderr)
        return None


def measure_adds(runs: int, hermes: HermesProbe | None) -> tuple[list[float], list[float]]:
    """Our add latencies and Hermes', measured in alternating rounds."""
    from engine.home import Home
    from engine.memory.store import MemoryStore

    ours: list[float] = []
    theirs: list[float] = []
    with temp_home() as root:
        home = Home.resolve(root).ensure()
        store = MemoryStore(home, "memory", limit=BIG_LIMIT, who="agent")
        for n in range(3):
            store.add(f"warm-up entry {n}")
        per_round = max(1, runs // ROUNDS)
        count = 0
        for _ in range(ROUNDS):
            if hermes is not None:
                theirs += hermes.ask(["add", per_round])  # type: ignore[operator]
            for _ in range(per_round):
                start = time.perf_counter()
                result = store.add(f"User fact number {count}: prefers concise answers and metric units")
                ours.append((time.perf_counter() - start) * 1000)
                assert result["success"], result
                count += 1
        assert len(store.journal.entries()) == count + 3
    return ours, theirs


def measure_scan(texts: list[str]) -> tuple[float, list[bool]]:
    from engine.threats.scan import first_threat_message

    rounds = []
    verdicts: list[bool] = []
    for _ in range(5):
        start = time.process_time()  # CPU time: other processes on a shared machine do not count
        verdicts = [first_threat_message(t, "strict") is not None for t in texts]
        rounds.append((time.process_time() - start) * 1000 / len(texts))
    return min(rounds), verdicts


def run(options: Options) -> list[Figure]:
    runs = 50 if options.quick else 200
    attacks, benign = corpora()
    texts = attacks + benign
    hermes = start_hermes()
    try:
        ours, theirs = measure_adds(runs, hermes)
        hermes_scan = hermes.ask(["scan", texts]) if hermes else None
        hermes_benign = hermes.ask(["scan", benign]) if hermes else None
        document = "\n".join(benign * 3)[:DOCUMENT_CHARS]
        hermes_document = hermes.ask(["scan", [document]]) if hermes else None
    finally:
        if hermes is not None:
            hermes.close()
    add_ms = median(ours)
    hermes_add = median(theirs) if theirs else None
    scan_ms, verdicts = measure_scan(texts)
    document_ms, _ = measure_scan([document])
    hermes_document_ms = float(hermes_document["scan_ms"]) if isinstance(hermes_document, dict) else None
    benign_ms, _ = measure_scan(benign)
    caught = sum(verdicts[: len(attacks)])
    refused = sum(verdicts[len(attacks) :])
    hermes_verdicts: list[bool] = list(hermes_scan["verdicts"]) if isinstance(hermes_scan, dict) else []
    hermes_caught = sum(hermes_verdicts[: len(attacks)]) if hermes_verdicts else None
    hermes_refused = sum(hermes_verdicts[len(attacks) :]) if hermes_verdicts else None
    hermes_scan_ms = float(hermes_scan["scan_ms"]) if isinstance(hermes_scan, dict) else None
    hermes_benign_ms = float(hermes_benign["scan_ms"]) if isinstance(hermes_benign, dict) else None
    return [
        Figure(
            "memory add (lock + fsync + journal), median",
            add_ms,
            "ms",
            target="<= Hermes" if hermes_add else "<= 1.0 ms (Hermes 0.6–1.0 ms)",
            baseline=f"Hermes {hermes_add:.3f} ms" if hermes_add else "",
            note=f"median of {len(ours)} adds in {ROUNDS} rounds alternating with Hermes; each re-reads "
            "under the lock, writes, fsyncs and journals",
            met=add_ms <= (hermes_add * 1.05 if hermes_add else 1.0),
        ),
        Figure(
            "threat scan per entry (corpora, strict)",
            scan_ms,
            "ms",
            target="Hermes 0.04–0.07 ms",
            baseline=f"Hermes {hermes_scan_ms:.3f} ms" if hermes_scan_ms else "",
            note=f"CPU time, mean over {len(texts)} attack and benign notes, best of 5 rounds",
        ),
        Figure(
            "threat scan per benign note",
            benign_ms,
            "ms",
            target="<= Hermes" if hermes_benign_ms else "",
            baseline=f"Hermes {hermes_benign_ms:.3f} ms" if hermes_benign_ms else "",
            note="the common case, clean memory entries (CPU time)",
            met=benign_ms <= hermes_benign_ms * 1.1 if hermes_benign_ms else None,
        ),
        Figure(
            f"threat scan of a {len(document) // 1000} KB document",
            document_ms,
            "ms",
            baseline=f"Hermes {hermes_document_ms:.3f} ms" if hermes_document_ms else "",
            note="a skill-sized text of benign notes, scanned in paragraph-sized pieces (CPU time)",
        ),
        Figure(
            "attacks caught (both corpora)",
            caught,
            f"of {len(attacks)}",
            target="clearly more than Hermes",
            baseline=f"Hermes {hermes_caught}" if hermes_caught is not None else "",
            met=hermes_caught is None or caught > hermes_caught,
        ),
        Figure(
            "benign notes refused (both corpora)",
            refused,
            f"of {len(benign)}",
            target="0",
            baseline=f"Hermes {hermes_refused}" if hermes_refused is not None else "",
            met=refused == 0,
        ),
    ]
