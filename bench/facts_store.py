"""The fact store at 100,000 facts: search time beside Hermes' own holographic plugin on the same file,
and what the per-turn prefetch costs a turn."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import shutil
import subprocess
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import yaml

from bench.common import Figure, Options, median, temp_home
from engine.config import load_config
from engine.home import Home
from engine.providers.facts import hrr
from engine.providers.facts.store import FactStore
from engine.providers.facts.text import fts_query
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
    before = _one_or_query_times(store, asked)
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
            f"before (one OR query over every word): median {median(before):.2f} ms, "
            f"worst {max(before):.2f} ms",
            met=max(times) < 200,
        ),
    ]


def _one_or_query_times(store: FactStore, asked: list[str]) -> list[float]:
    """The search as it was: every fact holding any query word ranked by FTS5, then the top reranked."""
    times = []
    for query in asked:
        started = time.perf_counter()
        with store.locked() as conn:
            rows = store._matching(conn, fts_query(query), None, store.settings.min_trust, 30)
        store.rank(query, [dict(r) for r in rows])[:10]
        times.append((time.perf_counter() - started) * 1000)
    return times


async def _first_token(root: Path, base_url: str, text: str) -> float:
    """Milliseconds from a new session's first turn to its first token."""
    from engine.agent.turns import Agent
    from engine.events import TextDelta
    from engine.llm.direct import DirectLLMClient
    from engine.llm.settings import ModelSettings

    client = DirectLLMClient(ModelSettings(base_url=base_url, model="scripted"))
    agent = Agent(Home(root).ensure(), load_config(root), cwd=root, client=client, aux_client=client)
    started, first = time.perf_counter(), 0.0
    async for event in agent.run_turn(text):
        if isinstance(event, TextDelta) and not first:
            first = (time.perf_counter() - started) * 1000
    await agent.close()
    return first


async def _first_token_samples(root: Path, asked: list[str], runs: int) -> tuple[list[float], list[float]]:
    """First-token times of new sessions without a provider and with the fact store, interleaved."""
    from engine.model_server.server import ScriptedModelServer

    server = ScriptedModelServer.from_yaml("rules:\n  - reply: {text: Noted.}\n").start()
    bare, with_facts = [], []
    try:
        for index in range(runs + 1):  # the first pair warms imports and is not counted
            query = asked[index % len(asked)]
            home = Home.resolve(root).ensure()
            home.config_file.write_text(yaml.safe_dump({}), encoding="utf-8")
            without = await _first_token(root, server.base_url, query)
            provider = {"memory": {"provider": "holographic"}}
            home.config_file.write_text(yaml.safe_dump(provider), encoding="utf-8")
            facts = await _first_token(root, server.base_url, query)
            if index:
                bare.append(without)
                with_facts.append(facts)
    finally:
        server.stop()
    return bare, with_facts


def _prefetch_figures(root: Path, asked: list[str], runs: int) -> list[Figure]:
    home = Home.resolve(root).ensure()
    home.config_file.write_text(yaml.safe_dump({"memory": {"provider": "holographic"}}), encoding="utf-8")
    config = load_config(home.root)
    host = ProviderHost.from_config(home, config)
    assert host is not None
    quick, found, takes, prefetches = [], [], [], []
    for index, query in enumerate(asked[:10]):
        host.start(f"bench-{index}")
        host.drain(30)  # the session opened: the store is open
        started = time.perf_counter()
        host.turn_layer_sync(query)  # the first turn: the entity index, within facts.first_turn_ms
        quick.append((time.perf_counter() - started) * 1000)
        found.append(len(host.recalled))
        host.after_turn(query)
        host.drain(30)
        prefetches.append(host.status().last_prefetch_s * 1000)
        started = time.perf_counter()
        host.take_layer()  # every later turn: the ranked prefetch is already there
        takes.append((time.perf_counter() - started) * 1000)
    host.close()
    bare, with_facts = asyncio.run(_first_token_samples(root, asked, runs))
    added = median([facts - without for facts, without in zip(with_facts, bare, strict=True)])  # paired
    return [
        Figure(
            "facts prefetch, later turns: take_layer()",
            median(takes) * 1000,
            "µs",
            "< 1,000 µs",
            f"ranked prefetch in the background: {median(prefetches):.1f} ms",
            met=median(takes) < 1.0,
        ),
        Figure(
            "facts, first turn: entity-index lookup",
            median(quick),
            "ms",
            note=f"no ranked search; facts found: median {median(found):g} of {config.facts.prefetch_limit}",
        ),
        Figure(
            f"first token, new session, with the fact store (median of {runs})",
            median(with_facts),
            "ms",
            "≤ +5 ms",
            f"without a provider, same run: {median(bare):.1f} ms (added {added:+.1f} ms)",
            met=added <= 5,
        ),
    ]


@contextlib.contextmanager
def _facts_home(count: int) -> Iterator[Path]:
    """A throwaway home, or with HWS_BENCH_FACTS_HOME set, `<that folder>/<count>`, kept between runs
    so that a store of 100,000 facts is built once (the home's other files are rewritten each run)."""
    kept = os.environ.get("HWS_BENCH_FACTS_HOME", "").strip()
    if not kept:
        with temp_home() as root:
            yield root
        return
    root = Path(kept).expanduser() / str(count)
    root.mkdir(parents=True, exist_ok=True)
    old = os.environ.get("HERMES_HOME")
    os.environ["HERMES_HOME"] = str(root)
    try:
        yield root
    finally:
        if old is None:
            os.environ.pop("HERMES_HOME", None)
        else:
            os.environ["HERMES_HOME"] = old


def _loaded(store: FactStore, count: int) -> Figure:
    """Load `count` synthetic facts, unless a kept store already holds them."""
    name = f"load {count:,} facts (vectors: {hrr.AVAILABLE})"
    if store.count() == count:
        return Figure(name, 0.0, "s", note="kept store, not timed")
    started = time.perf_counter()
    facts = synthetic_facts(count)
    for start in range(0, count, 5000):
        store.add_many(facts[start : start + 5000])
    store.rebuild_banks()
    load_s = time.perf_counter() - started
    return Figure(name, load_s, "s", note="one-off import")


def run(options: Options) -> list[Figure]:
    count = 10_000 if options.quick else 100_000
    asked = queries(20 if options.quick else 100)
    with _facts_home(count) as root:
        db = Path(root) / "memory_store.db"
        store = FactStore(db)
        figures = [_loaded(store, count)]
        figures += _search_figures(store, db, count, asked)
        store.close()
        figures += _prefetch_figures(Path(root), asked, 5 if options.quick else 15)
        shutil.rmtree(Path(root) / "logs", ignore_errors=True)
    return figures
