"""Quick recall: facts about the names a message mentions, found through the entity index at once.

A session's first turn has no prefetch ready, and the model should not wait for a ranked search.
This answers from the entity links alone: the facts linked to the rarest entity the message names,
those also linked to its other names first, then by trust and recency. Its work does not grow with
the store: it reads at most `_RECENT` links per entity (the newest: facts added or edited last) from
the entity index, and at most `_RANKED` fact rows (each row, with its vector, is a page or more
of the file). It reads on its own read-only connection (WAL lets it read while the store writes),
and SQLite interrupts it when `budget_s` runs out, so it never costs a turn more than its budget.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from engine.providers.facts.entities import extract_entities

_PROGRESS_STEPS = 500  # SQLite virtual-machine steps between two deadline checks
_ENTITY_IDS = (
    "SELECT entity_id FROM entities WHERE name LIKE ? OR ',' || aliases || ',' LIKE '%,' || ? || ',%'"
)
_RECENT = 256  # links read per entity: to find the rarest, and the rarest's newest facts
_RANKED = 64  # facts read (rows) to order the candidates by trust and recency
_LINKS = f"SELECT COUNT(*) FROM (SELECT 1 FROM fact_entities WHERE entity_id = ? LIMIT {_RECENT})"
# The rarest entity's newest links, those also linked to more of the other names first (index only).
_CANDIDATES = (
    "SELECT c.fact_id, (SELECT COUNT(*) FROM fact_entities x WHERE x.fact_id = c.fact_id "
    "AND x.entity_id IN ({marks})) AS hits FROM (SELECT fact_id FROM fact_entities WHERE entity_id = ? "
    f"ORDER BY rowid DESC LIMIT {_RECENT}) c ORDER BY hits DESC, c.fact_id DESC LIMIT {_RANKED}"
)


class QuickRecall:
    """Read-only, time-boxed lookups of the facts linked to named entities."""

    def __init__(self, path: Path, min_trust: float) -> None:
        self.path = path
        self.min_trust = min_trust
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._deadline = 0.0

    def _connection(self) -> sqlite3.Connection | None:
        if self._conn is None and self.path.exists():
            try:
                conn = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, check_same_thread=False)
            except sqlite3.Error:
                return None
            conn.row_factory = sqlite3.Row
            conn.set_progress_handler(lambda: int(time.monotonic() > self._deadline), _PROGRESS_STEPS)
            self._conn = conn
        return self._conn

    def facts(self, text: str, limit: int, budget_s: float) -> list[dict[str, Any]]:
        """Up to `limit` facts about the entities `text` names; [] when it names none or time runs out."""
        names = extract_entities(text)
        if not names or limit <= 0:
            return []
        with self._lock:
            conn = self._connection()
            if conn is None:
                return []
            self._deadline = time.monotonic() + budget_s
            try:
                return self._linked(conn, names, limit)
            except sqlite3.Error:  # interrupted by the deadline, or a store still being created
                return []

    def _linked(self, conn: sqlite3.Connection, names: list[str], limit: int) -> list[dict[str, Any]]:
        ids = {int(r[0]) for name in names for r in conn.execute(_ENTITY_IDS, (name, name))}
        if not ids:
            return []
        by_links = sorted(ids, key=lambda entity: int(conn.execute(_LINKS, (entity,)).fetchone()[0]))
        rarest, others = by_links[0], by_links[1:]
        marks = ",".join("?" * len(others)) or "NULL"
        candidates = conn.execute(_CANDIDATES.format(marks=marks), (*others, rarest))
        hits = {int(r[0]): int(r[1]) for r in candidates}
        if not hits:
            return []
        rows = conn.execute(
            "SELECT fact_id, content, category, trust_score, updated_at FROM facts "
            f"WHERE fact_id IN ({','.join('?' * len(hits))}) AND trust_score >= ?",
            (*hits, self.min_trust),
        ).fetchall()
        found = [{**dict(r), "hits": hits[int(r["fact_id"])]} for r in rows]
        found.sort(key=_rank, reverse=True)
        return found[:limit]

    def close(self) -> None:
        with self._lock:
            conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()


def _rank(fact: dict[str, Any]) -> tuple[int, float, str, int]:
    """More of the names first, then trust, then the latest change (then the newest fact)."""
    return int(fact["hits"]), float(fact["trust_score"]), str(fact["updated_at"] or ""), int(fact["fact_id"])
