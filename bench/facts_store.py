"""The fact store at 100,000 facts: search time beside Hermes' own holographic plugin on the same file,
and what the per-turn prefetch costs a turn."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import textwrap
import time
from pathlib import Path

import yaml

from bench.common import Figure, Options, median, temp_home
from engine.config import load_config
from engine.home import Home
from engine.providers.facts import hrr
from engine.providers.facts.store import FactStore
from engine.providers.host import ProviderHost

ROOT = Path(__file__).resolve().parents[1]
FIRST = ["Ada", "Grace", "Linus", "Alan", "Barbara", "Donald", "Edsger", "Frances", "John", "Margaret"]
LAST = [
    "Lovelace",
    "Hopper",
    "Torvalds",
    "Turing",
    "Liskov",
    "Knuth",
    "Dijkstra",
    "Allen",
    "Backus",
    "Hamilton",
]
PLACES = ["Berlin Cluster", "Lisbon Office", "Harbor Build", "Nimbus Prime", "Atlas Rack", "Orion Lab"]
# fmt: off
WORDS = [
    "deploys", "reviews", "prefers", "maintains", "owns", "configures", "migrates", "tests",
    "documents", "schedules", "postgres", "redis", "kubernetes", "terraform", "neovim", "emacs", "rust",
    "python", "golang", "release", "backup", "nightly", "weekly", "staging", "production", "dashboard",
    "alerting", "latency", "budget", "invoice", "roadmap", "design", "meeting", "tea", "coffee",
    "bicycle", "train", "laptop",
]
# fmt: on
HERMES_SEARCH = """
import json, sys, time
from plugins.memory.holographic.store import MemoryStore
from plugins.memory.holographic.retrieval import FactRetriever
from plugins.memory.holographic import holographic as hrr
store = MemoryStore(db_path=sys.argv[1])
retriever = FactRetriever(store)
queries = json.loads(sys.argv[2])
for q in queries[:3]:
    retriever.search(q, limit=10)
times = []
for q in queries:
    t = time.perf_counter()
    retriever.search(q, limit=10)
    times.append((time.perf_counter() - t) * 1000)
print(json.dumps({"times": times, "numpy": hrr._HAS_NUMPY}))
"""


def synthetic_facts(count: int, seed: int = 26) -> list[tuple[str, str, str]]:
    """`count` distinct facts about a few hundred people and places, in four categories."""
    rng = random.Random(seed)
    facts = []
    for index in range(count):
        person = f"{rng.choice(FIRST)} {rng.choice(LAST)}"
        words = " ".join(rng.sample(WORDS, 5))
        place = rng.choice(PLACES)
        category = rng.choice(("user_pref", "project", "tool", "general"))
        facts.append((f"{person} {words} at the {place} (note {index})", category, rng.choice(WORDS)))
    return facts


def queries(count: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    asked = []
    for _ in range(count):
        person, verbs = f"{rng.choice(FIRST)} {rng.choice(LAST)}", " ".join(rng.sample(WORDS, 2))
        asked.append(f"what does {person} {verbs} at the {rng.choice(PLACES)}")
    return asked


def hermes_python() -> str | None:
    for candidate in (os.environ.get("HWS_HERMES_PYTHON", ""), str(ROOT / ".hermes-venv/bin/python")):
        if candidate and Path(candidate).is_file():
            return candidate
    return None


def _hermes_search(db: Path, asked: list[str]) -> tuple[list[float], bool] | None:
    python = hermes_python()
    if python is None:
        return None
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(
        [python, "-c", textwrap.dedent(HERMES_SEARCH), str(db), json.dumps(asked)],
        capture_output=True,
        text=True,
        timeout=1800,
        env={**env, "HERMES_HOME": str(db.parent)},
    )
    if done.returncode != 0:
        return None
    report = json.loads(done.stdout.strip().splitlines()[-1])
    return report["times"], bool(report["numpy"])


def _search_figures(store: FactStore, db: Path, count: int, asked: list[str]) -> list[Figure]:
    times = []
    for query in asked[:3]:
        store.search(query)
    for query in asked:
        started = time.perf_counter()
        store.search(query)
        times.append((time.perf_counter() - started) * 1000)
    mode = "hrr+fts5" if store.settings.use_vectors else "fts5"
    hermes = _hermes_search(db, asked)
    if hermes is None:
        baseline = "Hermes' plugin: no Hermes venv (.ci/run makes .hermes-venv)"
    else:
        theirs, numpy = hermes
        baseline = (
            f"Hermes' plugin ({'hrr+fts5' if numpy else 'fts5'}): median {median(theirs):.2f} ms, "
            f"worst {max(theirs):.2f} ms"
        )
    return [
        Figure(f"fact search, {count:,} facts ({mode}), median", median(times), "ms", "< 50 ms", baseline),
        Figure(
            f"fact search, {count:,} facts ({mode}), worst",
            max(times),
            "ms",
            "< 200 ms",
            met=max(times) < 200,
        ),
    ]


def _prefetch_figures(root: Path, asked: list[str]) -> list[Figure]:
    home = Home.resolve(root).ensure()
    home.config_file.write_text(yaml.safe_dump({"memory": {"provider": "holographic"}}), encoding="utf-8")
    host = ProviderHost.from_config(home, load_config(home.root))
    assert host is not None
    firsts, takes, prefetches = [], [], []
    for index, query in enumerate(asked[:10]):
        host.start(f"bench-{index}")
        started = time.perf_counter()
        host.turn_layer_sync(query)  # the first turn: waits for its prefetch
        firsts.append((time.perf_counter() - started) * 1000)
        host.after_turn(query)
        host.drain(30)
        prefetches.append(host.status().last_prefetch_s * 1000)
        started = time.perf_counter()
        host.take_layer()  # every later turn: the layer is already there
        takes.append((time.perf_counter() - started) * 1000)
    host.close()
    return [
        Figure(
            "facts prefetch, later turns: take_layer()",
            median(takes) * 1000,
            "µs",
            "< 1,000 µs",
            met=median(takes) < 1.0,
        ),
        Figure(
            "facts prefetch, first turn of a session waits",
            median(firsts),
            "ms",
            f"< first_turn_wait ({host.settings.first_turn_wait * 1000:.0f} ms)",
            note=f"background prefetch itself: {median(prefetches):.1f} ms",
        ),
    ]


def run(options: Options) -> list[Figure]:
    count = 10_000 if options.quick else 100_000
    asked = queries(20 if options.quick else 100)
    with temp_home() as root:
        db = Path(root) / "memory_store.db"
        store = FactStore(db)
        started = time.perf_counter()
        facts = synthetic_facts(count)
        for start in range(0, count, 5000):
            store.add_many(facts[start : start + 5000])
        store.rebuild_banks()
        load_s = time.perf_counter() - started
        figures = [
            Figure(f"load {count:,} facts (vectors: {hrr.AVAILABLE})", load_s, "s", note="one-off import")
        ]
        figures += _search_figures(store, db, count, asked)
        store.close()
        figures += _prefetch_figures(Path(root), asked)
        shutil.rmtree(Path(root) / "logs", ignore_errors=True)
    return figures
