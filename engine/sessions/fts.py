"""The SQL a search runs: filtered FTS5 queries, newest-first scans, and the rows they return.

Searches run on their own read connection in their own thread (see `Searcher`), so every query
here is synchronous and may be given a deadline: SQLite's progress handler calls
`FtsQueries.progress_check`, which interrupts the running statement once the deadline has passed.
Only search queries ever run on that connection, so the deadline can stop nothing else.
"""

from __future__ import annotations

import re
import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from engine.sessions.records import CONTENT_JSON_PREFIX, content_text, decode_content

# Search budgets count the search thread's own CPU time: the work a query costs, which a loaded
# machine (other processes, a test run on two cores) does not inflate as it inflates wall time.
clock = time.thread_time

FIRST_CHUNK = 4096  # message ids in the first window of a newest-first scan (doubling after)


@dataclass(frozen=True)
class FtsIndex:
    """An FTS5 table we can search, and what it holds."""

    table: str
    trigram: bool
    # Set for our CJK index, which holds only messages with CJK text: its rowid table, so a scan
    # for a substring can visit those messages only.
    docsize: str | None = None


@dataclass(frozen=True)
class SearchFilters:
    """Which messages a search may return."""

    roles: tuple[str, ...] = ()
    since: float | None = None
    until: float | None = None
    session_ids: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    exclude_sources: tuple[str, ...] = ()
    exclude_session_ids: tuple[str, ...] = ()

    @property
    def narrows_ids(self) -> bool:
        """True when the filters bound the message id range (dates, sessions)."""
        return self.since is not None or self.until is not None or bool(self.session_ids)


class SearchHit(NamedTuple):
    """One matching message: where it is, a snippet with `>>>hits<<<`, and its score.

    A named tuple rather than a frozen dataclass: a search builds dozens of them, and a frozen
    dataclass costs five times as much to construct.
    """

    message_id: int
    session_id: str
    role: str
    timestamp: float
    snippet: str
    score: float
    tool_name: str | None = None
    rewound: bool = False  # taken back with /undo: kept and found, but no longer in its conversation

    def as_dict(self) -> dict[str, Any]:
        return {
            "message_id": self.message_id,
            "session_id": self.session_id,
            "role": self.role,
            "timestamp": self.timestamp,
            "snippet": self.snippet,
            "score": round(self.score, 4),
            "tool_name": self.tool_name,
            "rewound": self.rewound,
        }


@dataclass
class Found:
    """What a part of a search found, whether it stopped early, and how it searched."""

    rows: list[SearchHit] = field(default_factory=list)
    partial: bool = False
    plan: list[str] = field(default_factory=list)
    counts: dict[str, float] = field(default_factory=dict)  # messages each term matches (estimated)
    total: int = 0  # messages in the range searched

    def add(self, other: Found) -> None:
        self.rows.extend(other.rows)
        self.partial |= other.partial
        self.plan.extend(other.plan)
        self.counts.update(other.counts)
        self.total = max(self.total, other.total)


class Interrupted(Exception):
    """A query ran past its deadline and was stopped by SQLite."""


class FtsQueries:
    """Query building blocks on one connection; `Searcher` decides which to run."""

    def __init__(self, conn: sqlite3.Connection, message_columns: set[str]) -> None:
        self.conn = conn
        self.columns = message_columns
        self.deadline: float | None = None
        self._vocabs: set[str] = set()

    def progress_check(self) -> int:
        """SQLite's progress handler: non-zero stops the running statement."""
        deadline = self.deadline
        return 1 if deadline is not None and clock() > deadline else 0

    def fetch(self, sql: str, params: Sequence[Any], deadline: float | None = None) -> list[Any]:
        if deadline is not None and clock() > deadline:
            raise Interrupted
        self.deadline = deadline
        try:
            return self.conn.execute(sql, params).fetchall()
        except sqlite3.OperationalError as exc:
            if "interrupt" in str(exc).lower():
                raise Interrupted from exc
            raise
        finally:
            self.deadline = None

    def filter_sql(self, filters: SearchFilters) -> tuple[str, list[Any], bool]:
        """Conditions on message `m` (and session `s`); True when `sessions` must be joined."""
        # Every message is searched, the inactive ones too (rewound with /undo, or compacted in place by
        # Hermes): the person may look for what they took back; a rewound hit says so (`rewound`).
        conds: list[str] = []
        params: list[Any] = []

        def among(column: str, values: tuple[str, ...], negate: bool = False) -> None:
            marks = ",".join("?" * len(values))
            conds.append(f"{column} {'NOT ' if negate else ''}IN ({marks})")
            params.extend(values)

        if filters.roles:
            among("m.role", filters.roles)
        if filters.since is not None:
            conds.append("m.timestamp >= ?")
            params.append(filters.since)
        if filters.until is not None:
            conds.append("m.timestamp <= ?")
            params.append(filters.until)
        if filters.session_ids:
            among("m.session_id", filters.session_ids)
        if filters.exclude_session_ids:
            among("m.session_id", filters.exclude_session_ids, negate=True)
        if filters.sources:
            among("s.source", filters.sources)
        if filters.exclude_sources:
            among("COALESCE(s.source, '')", filters.exclude_sources, negate=True)
        join = bool(filters.sources or filters.exclude_sources)
        return "".join(f" AND {c}" for c in conds), params, join

    def _select(self, index: FtsIndex, score: str, filters: SearchFilters) -> tuple[str, list[Any]]:
        table = index.table
        where, params, join = self.filter_sql(filters)
        sessions = " JOIN sessions s ON s.id = m.session_id" if join else ""
        sql = (
            f"SELECT {table}.rowid, {score}, m.session_id, m.role, m.timestamp, m.tool_name, m.content, "
            "m.tool_calls "
            f"FROM {table} JOIN messages m ON m.id = {table}.rowid{sessions} "
            f"WHERE {table} MATCH ? AND {table}.rowid BETWEEN ? AND ?{where}"
        )
        return sql, params

    def rewound(self, message_ids: list[int]) -> set[int]:
        """Which of these messages were rewound (inactive, and not compacted in place)."""
        if not message_ids or "active" not in self.columns:
            return set()
        compacted = " AND COALESCE(compacted, 0) = 0" if "compacted" in self.columns else ""
        marks = ",".join("?" * len(message_ids))
        sql = f"SELECT id FROM messages WHERE id IN ({marks}) AND active = 0{compacted}"
        return {int(r[0]) for r in self.fetch(sql, message_ids)}

    @staticmethod
    def rows(raw: list[Any]) -> list[SearchHit]:
        """Hits from rows of (id, score, session, role, time, tool, content, [tool calls]).

        The hit's snippet holds the message's whole text until the search has chosen its hits:
        only those are made snippets (`Searcher`), not every row a plan read.
        """
        return [SearchHit(r[0], r[2], r[3], r[4], _text(r), float(r[1]), r[5]) for r in raw]

    def bm25(
        self,
        index: FtsIndex,
        expr: str,
        filters: SearchFilters,
        limit: int,
        bounds: tuple[int, int],
        deadline: float | None,
    ) -> list[SearchHit]:
        """Best `limit` by bm25 among messages matching `expr` inside the id bounds."""
        # bm25() sorted by SQLite beats FTS5's own `ORDER BY rank` (a nested statement) on the few
        # hundred rows the planner lets through.
        sql, params = self._select(index, f"-bm25({index.table})", filters)
        sql += " ORDER BY 2 DESC LIMIT ?"
        raw = self.fetch(sql, [expr, *bounds, *params, limit], deadline)
        return self.rows(raw)

    def newest(
        self,
        index: FtsIndex,
        expr: str,
        filters: SearchFilters,
        limit: int,
        bounds: tuple[int, int],
        deadline: float | None,
    ) -> list[SearchHit]:
        """The newest `limit` messages matching `expr` inside the id bounds."""
        sql, params = self._select(index, "0.0", filters)
        sql += f" ORDER BY {index.table}.rowid DESC LIMIT ?"
        raw = self.fetch(sql, [expr, *bounds, *params, limit], deadline)
        return self.rows(raw)

    def newest_in_chunks(
        self,
        index: FtsIndex,
        expr: str,
        filters: SearchFilters,
        limit: int,
        bounds: tuple[int, int],
        deadline: float,
        chunk: int = 0,
    ) -> Found:
        """Newest matches one id window at a time, so a deadline keeps what was already found.

        Each window is read in ascending order and its newest rows kept. For a phrase FTS5 honours
        only the bound it starts from: a window costs a walk from its lower bound to the end of the
        words' lists (measured on 1M messages: 1.1 ms for the newest tenth of the ids, 6.2 ms from
        the first id), and SQLite can only stop a statement between its own steps, not inside that
        walk. Windows therefore double in size, starting from `chunk` ids when the caller knows how
        dense the query's rarest word is (else FIRST_CHUNK): the walks then add up to about twice
        one walk over the ids searched, where windows of a fixed size would cost its square.
        """
        found = Found()
        low, top = self.clamp(bounds)
        size = chunk or FIRST_CHUNK
        table = index.table
        sql, params = self._select(index, "0.0", filters)
        sql += f" ORDER BY {table}.rowid"
        while top >= low and len(found.rows) < limit:
            bottom = max(low, top - size + 1)
            try:
                raw = self.fetch(sql, [expr, bottom, top, *params], deadline)
            except Interrupted:
                found.partial = True
                break
            found.rows.extend(self.rows(raw[::-1][: limit - len(found.rows)]))
            top = bottom - 1
            size *= 2
        return found

    def short_cjk(
        self,
        index: FtsIndex,
        needle: str,
        filters: SearchFilters,
        limit: int,
        bounds: tuple[int, int],
        deadline: float,
    ) -> list[SearchHit]:
        """The newest messages holding a 1- or 2-character CJK string.

        Every character of an indexed text starts a trigram, so the trigrams that begin with
        `needle` are exactly its occurrences: a range of the index's vocabulary lists them. The
        newest occurrences are kept (a bounded sort) and only their messages are read; if filters
        leave too few, a wider slice of occurrences is tried.
        """
        vocab = self.instance_vocab(index)
        where, filter_params, join = self.filter_sql(filters)
        sessions = " JOIN sessions s ON s.id = m.session_id" if join else ""
        prefix = needle.lower()
        raw: list[Any] = []
        for inner in (limit * 10, limit * 100, -1):
            sql = (
                f"SELECT m.id, 0.0, m.session_id, m.role, m.timestamp, m.tool_name, m.content FROM "
                f"(SELECT doc FROM {vocab} WHERE term >= ? AND term <= ? AND doc BETWEEN ? AND ? "
                f"ORDER BY doc DESC LIMIT {inner}) d JOIN messages m ON m.id = d.doc{sessions} "
                f"WHERE 1{where} GROUP BY m.id ORDER BY m.id DESC LIMIT ?"
            )
            raw = self.fetch(sql, [prefix, prefix + "\U0010ffff", *bounds, *filter_params, limit], deadline)
            if len(raw) >= limit:
                break
        return self.rows(raw)

    def instance_vocab(self, index: FtsIndex) -> str:
        """A per-connection fts5vocab table listing every (term, message) of `index`."""
        name = f"temp.{index.table}_instances"
        if name not in self._vocabs:
            self.fetch(
                f"CREATE VIRTUAL TABLE IF NOT EXISTS {name} USING fts5vocab(main, {index.table}, 'instance')",
                (),
            )
            self._vocabs.add(name)
        return name

    def substring_scan(
        self,
        needles: Sequence[str],
        filters: SearchFilters,
        limit: int,
        bounds: tuple[int, int],
        deadline: float,
        rowids_from: str | None = None,
    ) -> Found:
        """Newest messages containing any needle; `rowids_from` limits the scan to that table's ids."""
        where, params, join = self.filter_sql(filters)
        sessions = " JOIN sessions s ON s.id = m.session_id" if join else ""
        likes = " OR ".join("m.content LIKE ? ESCAPE '\\'" for _ in needles)
        patterns = ["%" + re.sub(r"([\\%_])", r"\\\1", n) + "%" for n in needles]
        source, key = (
            (f"{rowids_from} d JOIN messages m ON m.id = d.id", "d.id")
            if rowids_from
            else ("messages m", "m.id")
        )
        found = Found(plan=[f"substring scan for {', '.join(needles)}"])
        low, top = self.clamp(bounds)
        size = FIRST_CHUNK * 2
        while top >= low and len(found.rows) < limit:
            bottom = max(low, top - size + 1)
            sql = (
                f"SELECT m.id, 0.0, m.session_id, m.role, m.timestamp, m.tool_name, m.content "
                f"FROM {source}{sessions} WHERE {key} BETWEEN ? AND ? AND ({likes}){where} "
                f"ORDER BY {key} DESC LIMIT ?"
            )
            try:
                raw = self.fetch(sql, [bottom, top, *patterns, *params, limit - len(found.rows)], deadline)
            except Interrupted:
                found.partial = True
                break
            found.rows.extend(self.rows(raw))
            top, size = bottom - 1, size * 2
        return found

    def clamp(self, bounds: tuple[int, int]) -> tuple[int, int]:
        """Bounds whose top is no higher than the newest message id (windows start there)."""
        rows = self.fetch("SELECT max(id) FROM messages", ())
        return bounds[0], min(bounds[1], int(rows[0][0] or 0))

    def bounds(self, filters: SearchFilters) -> tuple[int, int] | None:
        """The message id range the date and session filters allow (None: nothing can match).

        Ids grow with time, so a date range becomes an id range through the timestamp index; the
        exact timestamp test still runs on every candidate.
        """
        parts = ["(SELECT max(id) FROM messages)"]
        params: list[Any] = []
        if filters.since is not None:
            parts.append("(SELECT id FROM messages WHERE timestamp >= ? ORDER BY timestamp LIMIT 1)")
            params.append(filters.since)
        if filters.until is not None:
            parts.append("(SELECT id FROM messages WHERE timestamp <= ? ORDER BY timestamp DESC LIMIT 1)")
            params.append(filters.until)
        if filters.session_ids:
            marks = ",".join("?" * len(filters.session_ids))
            parts.append(f"(SELECT min(id) FROM messages WHERE session_id IN ({marks}))")
            parts.append(f"(SELECT max(id) FROM messages WHERE session_id IN ({marks}))")
            params.extend(filters.session_ids * 2)
        values = list((self.fetch(f"SELECT {', '.join(parts)}", params))[0])
        top = values.pop(0)
        if top is None:
            return None
        low, high = 0, int(top)
        if filters.since is not None:
            first = values.pop(0)
            if first is None:
                return None
            low = max(low, int(first))
        if filters.until is not None:
            last = values.pop(0)
            if last is None:
                return None
            high = min(high, int(last))
        if filters.session_ids:
            first, last = values.pop(0), values.pop(0)
            if first is None:
                return None
            low, high = max(low, int(first)), min(high, int(last))
        return (low, high) if low <= high else None


def plain(content: Any) -> str:
    return content_text(decode_content(content))


def _text(row: Sequence[Any]) -> str:
    """The text to show for a hit: the content, or the tool calls when that is all there is."""
    text = row[6]
    if type(text) is not str or text.startswith(CONTENT_JSON_PREFIX):  # plain text is the common case
        text = plain(text)
    if not text.strip() and len(row) > 7 and row[7]:
        return str(row[7])
    return text
