"""The fact store: add, update, remove, list and rate facts in `memory_store.db`, and search them.

One connection per store, in autocommit mode, behind one lock: every method is safe from any thread
and a write that fails never leaves a transaction holding the file. Every text that would be written
passes `guard` first (the secret check and the threat scanner), so no path stores what memory refuses.
Search is FTS5 candidates reranked by relevance (bm25, word overlap, and HRR similarity when numpy is
there) × trust × recency.
"""

from __future__ import annotations

import math
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from engine.providers.facts import hrr
from engine.providers.facts.entities import link_entities
from engine.providers.facts.schema import FACT_COLUMNS, FactStoreError, connect
from engine.providers.facts.search_plan import TermFrequencies, match_plans, rarest_first
from engine.providers.facts.text import significant_words, word_set

CATEGORIES = ("user_pref", "project", "tool", "general")
_BANK_CHUNK = 2048  # vectors summed at a time when a category's bank is rebuilt

Guard = Callable[[str], "str | None"]


@dataclass(frozen=True)
class FactSettings:
    """The `facts.*` settings: trust, ranking weights, recency and whether vectors are used."""

    default_trust: float = 0.5
    min_trust: float = 0.3
    helpful_delta: float = 0.05
    unhelpful_delta: float = -0.10
    hrr_dim: int = 1024
    vectors: str = "auto"  # auto: with numpy when it is installed; off: the FTS5 path only
    fts_weight: float = 0.4
    overlap_weight: float = 0.3
    hrr_weight: float = 0.3
    half_life_days: float = 0.0  # 0: no recency decay
    candidates_per_result: int = 3
    or_cap: int = 5000  # documents an OR fallback may rank: its words' frequencies add up to at most this
    scan_limit: int = 500  # facts compared pairwise by `contradict`, the most recently updated

    @property
    def use_vectors(self) -> bool:
        return self.vectors != "off" and hrr.AVAILABLE


def clamp_trust(value: float) -> float:
    return max(0.0, min(1.0, value))


def parse_time(stamp: object) -> float | None:
    """Seconds since the epoch of a SQLite `CURRENT_TIMESTAMP` (UTC), or None when unreadable."""
    if not isinstance(stamp, str) or not stamp:
        return None
    try:
        when = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return None
    return (when if when.tzinfo else when.replace(tzinfo=UTC)).timestamp()


def fact_dict(row: sqlite3.Row) -> dict[str, Any]:
    """A fact as the tools return it: its columns without the vector."""
    fact = dict(row)
    fact.pop("hrr_vector", None)
    return fact


class FactStore:
    """`memory_store.db` opened for reading and writing; `guard` refuses unsafe text with a sentence."""

    def __init__(self, path: Path, settings: FactSettings | None = None, guard: Guard | None = None) -> None:
        self.path = path
        self.settings = settings or FactSettings()
        self._guard = guard
        self._lock = threading.RLock()
        self._conn: sqlite3.Connection | None = connect(path)
        self._dirty_banks: set[str] = set()
        self._frequencies = TermFrequencies()

    # -- plumbing ---------------------------------------------------------------------------------

    @property
    def conn(self) -> sqlite3.Connection:
        if self._conn is None:
            self._conn = connect(self.path)
        return self._conn

    @contextmanager
    def locked(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            yield self.conn

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            conn = self.conn
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    def check(self, text: str) -> None:
        """Raise `FactStoreError` with the guard's sentence when `text` may not be stored."""
        refusal = self._guard(text) if self._guard is not None else None
        if refusal:
            raise FactStoreError(refusal)

    def close(self) -> None:
        with self._lock:
            if self._conn is None:
                return
            try:
                self.rebuild_banks()
            finally:
                self._conn.close()
                self._conn = None

    # -- writing ----------------------------------------------------------------------------------

    def add(self, content: str, category: str = "general", tags: str = "") -> tuple[int, bool]:
        """Store a fact; returns (its id, True) or, when the same content is there, (that id, False)."""
        content = content.strip()
        if not content:
            raise FactStoreError("A fact needs some content; `content` is empty.")
        self.check(f"{content}\n{tags}")
        with self._transaction() as conn:
            row = conn.execute("SELECT fact_id FROM facts WHERE content = ?", (content,)).fetchone()
            if row is not None:
                return int(row[0]), False
            cursor = conn.execute(
                "INSERT INTO facts (content, category, tags, trust_score) VALUES (?, ?, ?, ?)",
                (content, category, tags, self.settings.default_trust),
            )
            fact_id = int(cursor.lastrowid or 0)
            link_entities(conn, fact_id, content)
            self._store_vector(conn, fact_id, content)
        self._dirty_banks.add(category)
        return fact_id, True

    def add_many(self, facts: list[tuple[str, str, str]]) -> int:
        """Store many (content, category, tags) facts in one transaction; returns how many were new."""
        for content, _category, tags in facts:
            self.check(f"{content}\n{tags}")
        added = 0
        with self._transaction() as conn:
            for content, category, tags in facts:
                cursor = conn.execute(
                    "INSERT OR IGNORE INTO facts (content, category, tags, trust_score) VALUES (?, ?, ?, ?)",
                    (content.strip(), category, tags, self.settings.default_trust),
                )
                if cursor.rowcount:
                    fact_id = int(cursor.lastrowid or 0)
                    link_entities(conn, fact_id, content)
                    self._store_vector(conn, fact_id, content)
                    self._dirty_banks.add(category)
                    added += 1
        return added

    def update(
        self,
        fact_id: int,
        *,
        content: str | None = None,
        tags: str | None = None,
        category: str | None = None,
        trust_delta: float | None = None,
    ) -> bool:
        """Change some of a fact's fields (trust moves by `trust_delta`, kept in 0..1); False if missing."""
        if content is not None:
            content = content.strip()
            if not content:
                raise FactStoreError("A fact cannot be updated to empty content; remove it instead.")
        self.check(f"{content or ''}\n{tags or ''}")
        with self._transaction() as conn:
            row = conn.execute(
                "SELECT trust_score, category FROM facts WHERE fact_id = ?", (fact_id,)
            ).fetchone()
            if row is None:
                return False
            sets, params = ["updated_at = CURRENT_TIMESTAMP"], []
            for column, value in (("content", content), ("tags", tags), ("category", category)):
                if value is not None:
                    sets.append(f"{column} = ?")
                    params.append(value)
            if trust_delta is not None:
                sets.append("trust_score = ?")
                params.append(clamp_trust(float(row["trust_score"]) + trust_delta))
            try:
                conn.execute(f"UPDATE facts SET {', '.join(sets)} WHERE fact_id = ?", (*params, fact_id))
            except sqlite3.IntegrityError as exc:
                raise FactStoreError("Another fact already says exactly this; remove one of them.") from exc
            if content is not None:
                link_entities(conn, fact_id, content)
                self._store_vector(conn, fact_id, content)
        self._dirty_banks.update({str(row["category"]), category or str(row["category"])})
        return True

    def remove(self, fact_id: int) -> bool:
        with self._transaction() as conn:
            row = conn.execute("SELECT category FROM facts WHERE fact_id = ?", (fact_id,)).fetchone()
            if row is None:
                return False
            conn.execute("DELETE FROM fact_entities WHERE fact_id = ?", (fact_id,))
            conn.execute("DELETE FROM facts WHERE fact_id = ?", (fact_id,))
        self._dirty_banks.add(str(row["category"]))
        return True

    def feedback(self, fact_id: int, helpful: bool) -> dict[str, Any]:
        """Rate a fact: helpful raises its trust a little, unhelpful lowers it twice as much."""
        delta = self.settings.helpful_delta if helpful else self.settings.unhelpful_delta
        with self._transaction() as conn:
            row = conn.execute(
                "SELECT trust_score, helpful_count FROM facts WHERE fact_id = ?", (fact_id,)
            ).fetchone()
            if row is None:
                raise FactStoreError(
                    f"There is no fact {fact_id}; `fact_store` list or search shows the ids."
                )
            old = float(row["trust_score"])
            new = clamp_trust(old + delta)
            conn.execute(
                "UPDATE facts SET trust_score = ?, helpful_count = helpful_count + ?, "
                "updated_at = CURRENT_TIMESTAMP WHERE fact_id = ?",
                (new, int(helpful), fact_id),
            )
        count = int(row["helpful_count"]) + int(helpful)
        return {"fact_id": fact_id, "old_trust": old, "new_trust": new, "helpful_count": count}

    def _store_vector(self, conn: sqlite3.Connection, fact_id: int, content: str) -> None:
        if not self.settings.use_vectors:
            return
        names = [
            r[0]
            for r in conn.execute(
                "SELECT e.name FROM entities e JOIN fact_entities fe ON fe.entity_id = e.entity_id "
                "WHERE fe.fact_id = ?",
                (fact_id,),
            )
        ]
        vector = hrr.encode_fact(content, names, self.settings.hrr_dim)
        conn.execute("UPDATE facts SET hrr_vector = ? WHERE fact_id = ?", (hrr.to_bytes(vector), fact_id))

    def rebuild_banks(self, categories: set[str] | None = None) -> int:
        """Re-bundle the category banks writes touched (or `categories`); returns how many were rebuilt."""
        if not self.settings.use_vectors:
            return 0
        with self._lock:
            wanted, self._dirty_banks = (categories or set(self._dirty_banks)), set()
            for category in wanted:
                self._rebuild_bank(category)
        return len(wanted)

    def _rebuild_bank(self, category: str) -> None:
        dim, name, total, count = self.settings.hrr_dim, f"cat:{category}", None, 0
        cursor = self.conn.execute(
            "SELECT hrr_vector FROM facts WHERE category = ? AND hrr_vector IS NOT NULL", (category,)
        )
        while rows := cursor.fetchmany(_BANK_CHUNK):
            blobs = [r[0] for r in rows if len(r[0]) == dim * 8]
            if blobs:
                part = hrr.numpy().exp(1j * hrr.stack(blobs, dim)).sum(axis=0)
                total = part if total is None else total + part
                count += len(blobs)
        if total is None:
            self.conn.execute("DELETE FROM memory_banks WHERE bank_name = ?", (name,))
            return
        vector = hrr.numpy().angle(total) % hrr.TAU
        self.conn.execute(
            "INSERT INTO memory_banks (bank_name, vector, dim, fact_count, updated_at) "
            "VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP) ON CONFLICT(bank_name) DO UPDATE SET "
            "vector = excluded.vector, dim = excluded.dim, fact_count = excluded.fact_count, "
            "updated_at = excluded.updated_at",
            (name, hrr.to_bytes(vector), dim, count),
        )

    # -- reading ----------------------------------------------------------------------------------

    def get(self, fact_id: int) -> dict[str, Any] | None:
        with self.locked() as conn:
            row = conn.execute(f"SELECT {FACT_COLUMNS} FROM facts WHERE fact_id = ?", (fact_id,)).fetchone()
        return dict(row) if row is not None else None

    def count(self) -> int:
        with self.locked() as conn:
            return int(conn.execute("SELECT COUNT(*) FROM facts").fetchone()[0])

    def vector_count(self) -> int:
        with self.locked() as conn:
            return int(conn.execute("SELECT COUNT(*) FROM facts WHERE hrr_vector IS NOT NULL").fetchone()[0])

    def list(
        self, category: str | None = None, min_trust: float = 0.0, limit: int = 10
    ) -> list[dict[str, Any]]:
        """Facts by trust, highest first."""
        where, params = "trust_score >= ?", [min_trust]
        if category:
            where += " AND category = ?"
            params.append(category)
        with self.locked() as conn:
            rows = conn.execute(
                f"SELECT {FACT_COLUMNS} FROM facts WHERE {where} "
                "ORDER BY trust_score DESC, fact_id DESC LIMIT ?",
                (*params, limit),
            ).fetchall()
        return [dict(r) for r in rows]

    def search(
        self,
        query: str,
        category: str | None = None,
        min_trust: float | None = None,
        limit: int = 10,
        *,
        count_retrieval: bool = False,
    ) -> list[dict[str, Any]]:
        """Facts matching `query`, best first, each with its `score` (relevance × trust × recency)."""
        words = significant_words(query)
        if not words or limit <= 0:
            return []
        floor = self.settings.min_trust if min_trust is None else min_trust
        rows = self._candidates(words, category, floor, limit * self.settings.candidates_per_result)
        if not rows:
            return []
        results = self.rank(query, rows)[:limit]
        if count_retrieval:
            self.count_retrievals([int(r["fact_id"]) for r in results])
        return results

    def _candidates(
        self, words: list[str], category: str | None, floor: float, need: int
    ) -> list[dict[str, Any]]:
        """Up to `need` facts from the narrowest queries that find enough (see `search_plan`), each with
        `bm25`: its rank within its query, scaled by the share of the query's words that query required."""
        found: dict[int, dict[str, Any]] = {}
        with self.locked() as conn:
            counted = rarest_first(conn, words, self._frequencies)
            for match, share in match_plans(counted, self.settings.or_cap):
                rows = self._matching(conn, match, category, floor, need)
                top = max((abs(float(r["bm25"])) for r in rows), default=0.0) or 1.0
                for row in rows:
                    if int(row["fact_id"]) not in found and len(found) < need:
                        fact = dict(row)
                        fact["bm25"] = share * abs(float(row["bm25"])) / top
                        found[int(row["fact_id"])] = fact
                if len(found) >= need:
                    break
        return list(found.values())

    def _matching(
        self, conn: sqlite3.Connection, match: str, category: str | None, floor: float, limit: int
    ) -> list[sqlite3.Row]:
        vector = ", f.hrr_vector" if self.settings.use_vectors else ""
        where, params = "facts_fts MATCH ? AND f.trust_score >= ?", [match, floor]
        if category:
            where += " AND f.category = ?"
            params.append(category)
        sql = (
            f"SELECT f.fact_id, f.content, f.category, f.tags, f.trust_score, f.retrieval_count, "
            f"f.helpful_count, f.created_at, f.updated_at{vector}, facts_fts.rank AS bm25 "
            f"FROM facts_fts JOIN facts f ON f.fact_id = facts_fts.rowid WHERE {where} "
            "ORDER BY facts_fts.rank LIMIT ?"
        )
        try:
            return conn.execute(sql, (*params, limit)).fetchall()
        except sqlite3.OperationalError:  # a query FTS5 cannot parse finds nothing
            return []

    def rank(self, query: str, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Score candidates: weighted bm25, word overlap and HRR similarity, times trust and recency."""
        s = self.settings
        top = max(max(abs(float(r["bm25"])) for r in rows), 1e-6)
        wanted = word_set(query)
        query_vector = hrr.encode_text(query, s.hrr_dim) if s.use_vectors else None
        now, scored = time.time(), []
        for row in rows:
            fact = fact_dict(row)
            bm25 = abs(float(fact.pop("bm25"))) / top
            have = word_set(f"{row['content']} {row['tags'] or ''}")
            overlap = len(wanted & have) / len(wanted | have) if wanted and have else 0.0
            if query_vector is not None:
                blob = row["hrr_vector"]
                closeness = (hrr.similarity(query_vector, hrr.from_bytes(blob)) + 1) / 2 if blob else 0.5
                relevance = s.fts_weight * bm25 + s.overlap_weight * overlap + s.hrr_weight * closeness
            else:  # the weights of the missing vector go to the other two, in proportion
                words_weight = s.fts_weight + s.overlap_weight or 1.0
                relevance = (s.fts_weight * bm25 + s.overlap_weight * overlap) / words_weight
            fact["score"] = round(relevance * float(fact["trust_score"]) * self.recency(fact, now), 6)
            scored.append(fact)
        scored.sort(key=lambda f: f["score"], reverse=True)
        return scored

    def recency(self, fact: dict[str, Any], now: float) -> float:
        """0.5 ** (age in days / half-life); 1 when decay is off or the time cannot be read."""
        if self.settings.half_life_days <= 0:
            return 1.0
        when = parse_time(fact.get("updated_at") or fact.get("created_at"))
        if when is None:
            return 1.0
        age_days = max(0.0, now - when) / 86400
        return math.pow(0.5, age_days / self.settings.half_life_days)

    def count_retrievals(self, ids: list[int]) -> None:
        if not ids:
            return
        marks = ",".join("?" * len(ids))
        with self.locked() as conn:
            conn.execute(
                f"UPDATE facts SET retrieval_count = retrieval_count + 1 WHERE fact_id IN ({marks})", ids
            )
