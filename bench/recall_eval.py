"""Episodic recall of session search on generated conversations (`conversations_data.py`).

Each question is passed to the search as asked. Two figures per set and question kind:
- message recall: the share of a question's answer messages among the top 10 hits;
- session-view recall: the share found in what `session_search` shows the model (the best hit of
  each of the top 3 conversations with 5 messages either side).
Beside them, in the same run, plain bm25 over an OR of the question's words (an FTS5 index of the
same messages, unicode61 without stems), scored the same way, the session view grouped likewise.
"""

from __future__ import annotations

import asyncio
import re
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from bench.common import Figure
from bench.conversations_data import Dataset, Question, held_out_set, tuning_set
from engine.sessions.session_search import session_search
from engine.sessions.store import SessionStore

TOP = 10
VIEW_SESSIONS = 3
VIEW_WINDOW = 5
KINDS = ("single-hop", "temporal", "multi-hop", "open-domain")
TARGET_MESSAGES = 0.70
TARGET_VIEW = 0.80


@dataclass
class Scores:
    """Recall per question kind, for one retriever on one set."""

    by_kind: dict[str, list[float]] = field(default_factory=dict)

    def add(self, kind: str, value: float) -> None:
        self.by_kind.setdefault(kind, []).append(value)

    def overall(self) -> float:
        values = [v for vs in self.by_kind.values() for v in vs]
        return statistics.fmean(values) if values else 0.0

    def kinds(self) -> str:
        return ", ".join(f"{k} {statistics.fmean(self.by_kind[k]):.3f}" for k in KINDS if k in self.by_kind)


@dataclass
class Loaded:
    ids: list[list[int]]  # message ids of each session, in order
    session_of: dict[int, tuple[int, int]]  # message id -> (session index, position)


async def load(store: SessionStore, data: Dataset) -> Loaded:
    ids: list[list[int]] = []
    session_of: dict[int, tuple[int, int]] = {}
    for s, chat in enumerate(data.sessions):
        session = await store.create_session(source="cli", started_at=chat.started)
        row = []
        for m in chat.messages:
            message_id = await store.append_message(session.id, m.role, m.text, timestamp=m.time)
            session_of[message_id] = (s, len(row))
            row.append(message_id)
        ids.append(row)
    return Loaded(ids, session_of)


def _share(wanted: set[int], got: set[int]) -> float:
    return len(wanted & got) / len(wanted)


def view_of(ranked: list[int], loaded: Loaded) -> set[int]:
    """What the session view shows for a ranked list: best hit of the top sessions, with neighbours."""
    shown: set[int] = set()
    seen: list[int] = []
    for message_id in ranked:
        s, at = loaded.session_of[message_id]
        if s in seen:
            continue
        seen.append(s)
        row = loaded.ids[s]
        shown.update(row[max(0, at - VIEW_WINDOW) : at + VIEW_WINDOW + 1])
        if len(seen) == VIEW_SESSIONS:
            break
    return shown


class PlainBm25:
    """bm25 over an OR of every word of the question: the baseline of the same run."""

    def __init__(self, path: Path) -> None:
        self.conn = sqlite3.connect(":memory:")
        self.conn.execute("ATTACH ? AS src", (str(path),))
        self.conn.execute("CREATE VIRTUAL TABLE plain USING fts5(content, tokenize='unicode61')")
        self.conn.execute("INSERT INTO plain(rowid, content) SELECT id, content FROM src.messages")

    def ranked(self, question: str, limit: int = 50) -> list[int]:
        words = dict.fromkeys(w.lower() for w in re.findall(r"[^\W_]+", question))
        if not words:
            return []
        expr = " OR ".join(f'"{w}"' for w in words)
        sql = "SELECT rowid FROM plain WHERE plain MATCH ? ORDER BY bm25(plain) LIMIT ?"
        return [r[0] for r in self.conn.execute(sql, (expr, limit))]


@dataclass
class SetResult:
    name: str
    messages: Scores
    view: Scores
    plain: Scores
    plain_view: Scores
    search_ms: list[float]
    questions: int


async def evaluate(data: Dataset, misses: Callable[[Question, list[int]], None] | None = None) -> SetResult:
    with tempfile.TemporaryDirectory(prefix="hws-bench-recall-") as tmp:
        path = Path(tmp) / "state.db"
        store = await SessionStore.open(path)
        result = SetResult(data.name, Scores(), Scores(), Scores(), Scores(), [], len(data.questions))
        try:
            loaded = await load(store, data)
            plain = PlainBm25(path)
            for q in data.questions:
                wanted = {loaded.ids[s][m] for s, m in q.evidence}
                started = time.perf_counter()
                hits = (await store.search(q.text, limit=TOP)).hits
                result.search_ms.append((time.perf_counter() - started) * 1000)
                ranked = [h.message_id for h in hits]
                result.messages.add(q.kind, _share(wanted, set(ranked)))
                if misses is not None and not wanted <= set(ranked):
                    misses(q, ranked)
                view = await session_search(store, {"query": q.text})
                shown = {m["id"] for entry in view.get("results", []) for m in entry["messages"]}
                result.view.add(q.kind, _share(wanted, shown))
                baseline = plain.ranked(q.text)
                result.plain.add(q.kind, _share(wanted, set(baseline[:TOP])))
                result.plain_view.add(q.kind, _share(wanted, view_of(baseline, loaded)))
        finally:
            await store.close()
    return result


def figures(result: SetResult) -> list[Figure]:
    label = f"{result.name} set, {result.questions} questions"
    return [
        Figure(
            f"recall, answer messages in the top {TOP} ({label})",
            result.messages.overall() * 100,
            "%",
            target=f">= {TARGET_MESSAGES:.0%}",
            baseline=f"plain OR-of-words bm25: {result.plain.overall():.1%}",
            note=f"{result.messages.kinds()}; bm25 {result.plain.kinds()}; "
            f"search median {statistics.median(result.search_ms):.2f} ms, "
            f"worst {max(result.search_ms):.1f} ms",
            met=result.messages.overall() >= TARGET_MESSAGES,
        ),
        Figure(
            f"recall, session view of the top {VIEW_SESSIONS} conversations ({label})",
            result.view.overall() * 100,
            "%",
            target=f">= {TARGET_VIEW:.0%}",
            baseline=f"plain bm25, same view: {result.plain_view.overall():.1%}",
            note=f"{result.view.kinds()}; bm25 {result.plain_view.kinds()}",
            met=result.view.overall() >= TARGET_VIEW,
        ),
    ]


def run_all() -> list[Figure]:
    out: list[Figure] = []
    for data in (tuning_set(), held_out_set()):
        out += figures(asyncio.run(evaluate(data)))
    return out


def _print_miss(q: Question, ranked: list[int]) -> None:
    print(f"MISS {q.kind:11} {q.text}  evidence={q.evidence}", file=sys.stderr)


if __name__ == "__main__":
    show = "--misses" in sys.argv
    sets = [held_out_set()] if "--held-out" in sys.argv else [tuning_set()]
    if "--both" in sys.argv:
        sets = [tuning_set(), held_out_set()]
    for data in sets:
        for fig in figures(asyncio.run(evaluate(data, _print_miss if show else None))):
            print(
                f"{fig.name}: {fig.value:.1f} {fig.unit} (target {fig.target}) [{fig.baseline}]",
                f"\n    {fig.note}",
            )
