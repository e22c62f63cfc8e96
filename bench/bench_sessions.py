"""Session store figures (issue 4): search speed over a mixed query set, append cost, file size.

The database is synthetic (see `bench/sessions_data.py`): 2,000 sessions x 50 messages of ~300
characters at full size, 400 x 50 with `--quick`, and 20,000 x 50 more with `--large`; it is
written one committed message at a time, as the store writes, and kept in `bench/results/cache/`.
The 50 queries: 10 rare, 10 medium and 8 very common words, 8 phrases (two of very common words),
10 CJK strings of 2 to 5 characters, and 4 questions; each timed as the median of 5 searches
(limit 20, snippets included), after one warm-up.

With HWS_BENCH_HERMES_PYTHON set to the python of a venv holding `hermes-agent`, Hermes' own store
is measured on the same data and queries as the baseline (`hermes_sessions_baseline.py`).
Run `python -m bench.bench_sessions --queries` to see every query with its time and plan.
Recall on generated conversations follows (`recall_eval.py`; `python -m bench.recall_eval --both`).
"""

from __future__ import annotations

import asyncio
import hashlib
import inspect
import json
import os
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench import recall_eval, sessions_data
from bench.common import Figure, Options
from bench.sessions_data import Corpus, fill, make_corpus, messages
from engine.config import defaults
from engine.sessions import schema, upkeep
from engine.sessions.store import SessionStore

SEARCH_RUNS = 5
APPEND_COUNT = 400
TARGET_SEARCH_MEDIAN_MS = 1.0
TARGET_WORST_MS = 20.0
TARGET_APPEND_MS = 0.6
TARGET_MB_PER_100K = 100.0
CACHE = Path(__file__).parent / "results" / "cache"


@dataclass
class Timed:
    kind: str
    query: str
    ms: float
    hits: int
    partial: bool
    plan: str


async def _create(path: Path) -> None:
    store = await SessionStore.open(path)
    await store.close()


def build(path: Path, sessions: int, corpus: Corpus) -> tuple[int, str, list[float]]:
    """Build the database at `path`, or copy it from the cache of an earlier run with the same code.

    Building 1M messages one commit at a time takes about ten minutes, so built files are kept in
    `bench/results/cache/`, keyed by the source of the generator, the schema and the index upkeep,
    with the upkeep times of the build beside them.
    """
    source = "".join(inspect.getsource(m) for m in (sessions_data, schema, upkeep))
    key = hashlib.sha1(source.encode()).hexdigest()
    cached = CACHE / f"sessions-{sessions}x50-{key[:10]}.db"
    times = cached.with_suffix(".upkeep.json")
    if cached.exists() and times.exists():
        shutil.copyfile(cached, path)
        return sessions * 50, "from the cache", list(json.loads(times.read_text()))
    started = time.perf_counter()
    asyncio.run(_create(path))
    upkeep_ms: list[float] = []
    count = fill(path, sessions, 50, corpus, upkeep_ms=upkeep_ms)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    CACHE.mkdir(parents=True, exist_ok=True)
    for old in CACHE.glob(f"sessions-{sessions}x50-*"):
        old.unlink()
    shutil.copyfile(path, cached)
    times.write_text(json.dumps(upkeep_ms))
    return count, f"built in {time.perf_counter() - started:.0f} s", upkeep_ms


def query_mix(path: Path, corpus: Corpus, seed: int = 3) -> list[tuple[str, str]]:
    """50 queries: rare, medium and very common words, phrases, 2-5 character CJK, and questions."""
    rng = random.Random(seed)
    conn = sqlite3.connect(path)
    conn.execute("CREATE VIRTUAL TABLE temp.v USING fts5vocab(main, hws_fts, 'row')")
    total = conn.execute("SELECT max(id) FROM messages").fetchone()[0]
    df = dict(conn.execute("SELECT term, doc FROM temp.v"))
    words = [w for w in corpus.words if w in df]  # porter may stem a few made-up words differently
    rare = [w for w in words if 3 <= df[w] <= max(60, total * 0.0006)]
    medium = [w for w in words if total * 0.005 <= df[w] <= total * 0.03]
    common = sorted(words, key=lambda w: -df[w])[:8]
    mix: list[tuple[str, str]] = []
    mix += [("rare", w) for w in rng.sample(rare, 10)]
    mix += [("medium", w) for w in rng.sample(medium, 10)]
    mix += [("common", w) for w in common]
    texts = [r[0] for r in conn.execute("SELECT content FROM messages WHERE id % 997 = 0")]
    for _ in range(4):
        tokens = rng.choice(texts).split()
        i = rng.randrange(len(tokens) - 1)
        mix.append(("phrase", f'"{tokens[i]} {tokens[i + 1]}"'))
    for _ in range(2):
        tokens = rng.choice(texts).split()
        i = rng.randrange(len(tokens) - 2)
        mix.append(("phrase", f'"{" ".join(tokens[i : i + 3])}"'))
    mix.append(("phrase", f'"{common[0]} {common[1]}"'))
    mix.append(("phrase", f'"{common[5]} {common[7]}"'))  # two very common words, rarely adjacent
    cjk_texts = [
        r[0]
        for r in conn.execute(
            "SELECT m.content FROM hws_fts_cjk_docsize d JOIN messages m ON m.id = d.id WHERE d.id % 7 = 0"
        )
    ]
    runs = [seg for t in cjk_texts for seg in t.split() if any("\u4e00" <= ch <= "\u9fff" for ch in seg)]
    for length, n in ((2, 3), (3, 3), (4, 2), (5, 2)):
        for _ in range(n):
            run = rng.choice([r.rstrip("。") for r in runs if len(r.rstrip("。")) >= length])
            i = rng.randrange(len(run) - length + 1)
            mix.append((f"cjk{length}", run[i : i + length]))
    mix.append(("question", f"When did we talk about {rng.choice(rare)} and the {rng.choice(medium)}?"))
    mix.append(("question", f"what was the {common[2]} {rng.choice(medium)} {rng.choice(rare)} about"))
    mix.append(("question", f"Which {rng.choice(medium)} did I pick for {rng.choice(medium)}?"))
    mix.append(("question", f"How did the {common[3]} {common[4]} go?"))
    conn.close()
    return mix


async def time_searches(path: Path, mix: list[tuple[str, str]]) -> list[Timed]:
    store = await SessionStore.open(path)
    out: list[Timed] = []
    try:
        for kind, query in mix:
            result = await store.search(query, limit=20)  # warm-up
            samples = []
            for _ in range(SEARCH_RUNS):
                start = time.perf_counter()
                result = await store.search(query, limit=20)
                samples.append((time.perf_counter() - start) * 1000)
            out.append(
                Timed(
                    kind,
                    query,
                    statistics.median(samples),
                    len(result.hits),
                    result.partial,
                    "; ".join(result.plan),
                )
            )
    finally:
        await store.close()
    return out


async def time_appends(path: Path, corpus: Corpus, synchronous: str) -> list[float]:
    settings = dict(defaults().sessions)
    settings["synchronous"] = synchronous
    store = await SessionStore.open(path, settings=settings)
    try:
        session = await store.create_session(source="bench")
        texts = list(messages(corpus, APPEND_COUNT, seed=99))
        samples = []
        for i, text in enumerate(texts):
            start = time.perf_counter()
            await store.append_message(session.id, "user" if i % 2 == 0 else "assistant", text)
            samples.append((time.perf_counter() - start) * 1000)
    finally:
        await store.close()
    return samples


def db_megabytes(path: Path) -> float:
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    total = sum(p.stat().st_size for p in path.parent.glob(path.name + "*"))
    return total / 1e6


def hermes_baseline(sessions: int, mix: list[tuple[str, str]]) -> dict[str, Any] | None:
    """Hermes Agent's figures on the same data, when HWS_BENCH_HERMES_PYTHON names its venv's python."""
    python = os.environ.get("HWS_BENCH_HERMES_PYTHON")
    if not python:
        return None
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump(mix, handle)
    try:
        out = subprocess.run(
            [
                python,
                str(Path(__file__).with_name("hermes_sessions_baseline.py")),
                str(sessions),
                handle.name,
            ],
            capture_output=True,
            text=True,
            timeout=7200,
        )
    finally:
        os.unlink(handle.name)
    if out.returncode != 0:
        print(f"Hermes baseline failed: {out.stderr[-500:]}", file=sys.stderr)
        return None
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def figures_for(sessions: int, label: str, corpus: Corpus, verbose: bool = False) -> list[Figure]:
    with tempfile.TemporaryDirectory(prefix="hws-bench-sessions-") as tmp:
        path = Path(tmp) / "state.db"
        count, origin, upkeep_ms = build(path, sessions, corpus)
        megabytes = db_megabytes(path)
        conn = sqlite3.connect(path)
        pieces = {table: upkeep.segments(conn, table) for table in upkeep.OUR_INDEXES}
        conn.close()
        mix = query_mix(path, corpus)
        load = os.getloadavg()[0]
        timed = asyncio.run(time_searches(path, mix))
        normal = asyncio.run(time_appends(path, corpus, "normal"))
        full = asyncio.run(time_appends(path, corpus, "full"))
    hermes = hermes_baseline(sessions, mix)

    def baseline(key: str, quoted: str, unit: str = "ms") -> str:
        if hermes is None:
            return f"Hermes 0.19: {quoted} (issue 4)"
        return f"Hermes 0.19 here: {hermes[key]:,.2f} {unit}"

    if verbose:
        for t in timed:
            flag = " PARTIAL" if t.partial else ""
            print(
                f"{t.ms:8.3f} ms  {t.kind:8} {t.query[:40]:40} {t.hits:3} hits{flag}  {t.plan}",
                file=sys.stderr,
            )
    medians = [t.ms for t in timed]
    worst = max(timed, key=lambda t: t.ms)
    partial = sum(t.partial for t in timed)
    per_100k = megabytes * 100_000 / count
    median_ms = statistics.median(medians)
    budget_ms = float(defaults().sessions["index_upkeep_ms"])
    append_ms = statistics.median(normal)
    return [
        Figure(
            f"search median, 50 mixed queries ({label})",
            median_ms,
            "ms",
            target=f"<= {TARGET_SEARCH_MEDIAN_MS} ms",
            baseline=baseline("search_median_ms", "2.5 ms"),
            note=(
                f"{len(timed)} queries, median of {SEARCH_RUNS} runs each, limit 20, {partial} partial; "
                f"index pieces {pieces['hws_fts']} words / {pieces['hws_fts_cjk']} CJK; "
                f"load average {load:.1f} on {os.cpu_count()} cores"
            ),
            met=median_ms <= TARGET_SEARCH_MEDIAN_MS,
        ),
        Figure(
            f"search worst query ({label})",
            worst.ms,
            "ms",
            target=f"<= {TARGET_WORST_MS} ms",
            baseline=baseline("worst_ms", "91-112 ms (common words)"),
            note=f"{worst.kind}: {worst.query[:40]}",
            met=worst.ms <= TARGET_WORST_MS,
        ),
        Figure(
            f"append median, committed, synchronous=normal ({label})",
            append_ms,
            "ms",
            target=f"<= {TARGET_APPEND_MS} ms",
            baseline=baseline("append_median_ms", "0.60 ms"),
            note=f"{APPEND_COUNT} messages of ~300 chars, one auto-committed INSERT each",
            met=append_ms <= TARGET_APPEND_MS,
        ),
        Figure(
            f"append median, committed, synchronous=full ({label})",
            statistics.median(full),
            "ms",
            note="also survives a power cut (fsync per message); not the default",
        ),
        Figure(
            f"index upkeep per store close, median ({label})",
            statistics.median(upkeep_ms),
            "ms",
            target=f"<= {budget_ms:.0f} ms budget",
            note=(
                f"worst {max(upkeep_ms):.0f} ms, 90th percentile {_percentile(upkeep_ms, 0.9):.1f} ms "
                f"over {len(upkeep_ms):,} closes (one per session, while the database was built)"
            ),
            met=statistics.median(upkeep_ms) <= budget_ms,
        ),
        Figure(
            f"DB size per 100k messages ({label})",
            per_100k,
            "MB",
            target=f"<= {TARGET_MB_PER_100K:.0f} MB",
            baseline=baseline("mb_per_100k", "214 MB", "MB"),
            note=f"{megabytes:.1f} MB for {count:,} msgs, WAL checkpointed ({origin})",
            met=per_100k <= TARGET_MB_PER_100K,
        ),
    ]


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))]


def run(options: Options) -> list[Figure]:
    corpus = make_corpus()
    if options.quick:
        figures = figures_for(400, "20k msgs, --quick", corpus)
    else:
        figures = figures_for(2000, "100k msgs", corpus)
    if options.large:
        figures += figures_for(20_000, "1M msgs", corpus)
    return figures + recall_eval.run_all()


if __name__ == "__main__":
    verbose = "--queries" in sys.argv
    sessions = 400 if "--quick" in sys.argv else (20_000 if "--large" in sys.argv else 2000)
    for fig in figures_for(sessions, f"{sessions * 50:,} msgs", make_corpus(), verbose=verbose):
        mark = "" if fig.met is None else (" ok" if fig.met else " MISS")
        print(f"{fig.name}: {fig.value:,.3f} {fig.unit} (target {fig.target}){mark}  {fig.note}")
