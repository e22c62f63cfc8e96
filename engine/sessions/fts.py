"""The SQL a search runs: filtered FTS5 queries, newest-first scans, and snippets.

Every query here runs under a deadline: SQLite's progress handler (installed by the store) calls
`FtsQueries.progress_check`, which interrupts the statement once the deadline has passed.
"""

from __future__ import annotations

import asyncio
import re
import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import aiosqlite

from engine.sessions.records import content_text, decode_content
from engine.sessions.snippets import Highlighter

FIRST_CHUNK = 4096  # message ids in the first window of a newest-first scan (doubling after)


@dataclass(frozen=True)
class FtsIndex:
    """An FTS5 table we can search, and what it holds."""

    table: str
    trigram: bool
    covers_all: bool  # every message is in it (else: only messages holding CJK)
    docsize: str | None = None  # the table listing its rowids, for scans of a contentless index


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


@dataclass
class Row:
    """A matching message as found by one query."""

    rowid: int
    score: float
    session_id: str
    role: str
    timestamp: float
    tool_name: str | None
    snippet: str


@dataclass
class Found:
    """What a part of a search found, whether it stopped early, and how it searched."""

    rows: list[Row] = field(default_factory=list)
    partial: bool = False
    plan: list[str] = field(default_factory=list)

    def add(self, other: Found) -> None:
        self.rows.extend(other.rows)
        self.partial |= other.partial
        self.plan.extend(other.plan)


class Interrupted(Exception):
    """A query ran past its deadline and was stopped by SQLite."""


class FtsQueries:
    """Query building blocks on one connection; `Searcher` decides which to run."""

    def __init__(self, conn: aiosqlite.Connection, message_columns: set[str], lock: asyncio.Lock) -> None:
        self.conn = conn
        self.columns = message_columns
        self.deadline: float | None = None
        # The store's statement lock: while a deadline is set no other statement (an append, say)
        # can reach the connection, so the progress handler only ever stops a search's own query.
        self.lock = lock
        self._vocabs: set[str] = set()

    def progress_check(self) -> int:
        """SQLite's progress handler: non-zero stops the running statement."""
        deadline = self.deadline
        return 1 if deadline is not None and time.perf_counter() > deadline else 0

    async def fetch(self, sql: str, params: Sequence[Any], deadline: float | None = None) -> list[Any]:
        if deadline is not None and time.perf_counter() > deadline:
            raise Interrupted
        async with self.lock:
            self.deadline = deadline
            try:
                return list(await self.conn.execute_fetchall(sql, params))
            except sqlite3.OperationalError as exc:
                if "interrupt" in str(exc).lower():
                    raise Interrupted from exc
                raise
            finally:
                self.deadline = None

    def filter_sql(self, filters: SearchFilters) -> tuple[str, list[Any], bool]:
        """Conditions on message `m` (and session `s`); True when `sessions` must be joined."""
        conds: list[str] = []
        params: list[Any] = []
        if "active" in self.columns:
            if "compacted" in self.columns:
                # Messages archived by in-place compaction stay searchable; /undo'ne ones do not.
                conds.append("(m.active = 1 OR m.compacted = 1)")
            else:
                conds.append("m.active = 1")

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

    @staticmethod
    def rows(raw: list[Any], marker: Highlighter) -> list[Row]:
        """Rows of (id, score, session, role, time, tool, content), the content made a snippet."""
        return [Row(r[0], float(r[1]), r[2], r[3], r[4], r[5], marker.snippet(_text(r))) for r in raw]

    async def bm25(
        self,
        index: FtsIndex,
        expr: str,
        filters: SearchFilters,
        limit: int,
        bounds: tuple[int, int],
        deadline: float | None,
        marker: Highlighter,
    ) -> list[Row]:
        """Best `limit` by bm25 among messages matching `expr` inside the id bounds."""
        # bm25() sorted by SQLite beats FTS5's own `ORDER BY rank` (a nested statement) on the few
        # hundred rows the planner lets through.
        sql, params = self._select(index, f"-bm25({index.table})", filters)
        sql += " ORDER BY 2 DESC LIMIT ?"
        raw = await self.fetch(sql, [expr, *bounds, *params, limit], deadline)
        return self.rows(raw, marker)

    async def newest(
        self,
        index: FtsIndex,
        expr: str,
        filters: SearchFilters,
        limit: int,
        bounds: tuple[int, int],
        deadline: float | None,
        marker: Highlighter,
    ) -> list[Row]:
        """The newest `limit` messages matching `expr` inside the id bounds."""
        sql, params = self._select(index, "0.0", filters)
        sql += f" ORDER BY {index.table}.rowid DESC LIMIT ?"
        raw = await self.fetch(sql, [expr, *bounds, *params, limit], deadline)
        return self.rows(raw, marker)

    async def newest_in_chunks(
        self,
        index: FtsIndex,
        expr: str,
        filters: SearchFilters,
        limit: int,
        bounds: tuple[int, int],
        deadline: float,
        marker: Highlighter,
    ) -> Found:
        """Newest matches one id window at a time, so a deadline keeps what was already found."""
        found = Found()
        low, top = await self.clamp(bounds)
        size = FIRST_CHUNK
        while top >= low and len(found.rows) < limit:
            bottom = max(low, top - size + 1)
            try:
                found.rows.extend(
                    await self.newest(
                        index, expr, filters, limit - len(found.rows), (bottom, top), deadline, marker
                    )
                )
            except Interrupted:
                found.partial = True
                break
            top, size = bottom - 1, size * 2
        return found

    async def short_cjk(
        self,
        index: FtsIndex,
        needle: str,
        filters: SearchFilters,
        limit: int,
        bounds: tuple[int, int],
        deadline: float,
        marker: Highlighter,
    ) -> list[Row]:
        """Messages holding a 1- or 2-character CJK string, most occurrences first, then newest.

        Every character of an indexed text starts a trigram, so the trigrams that begin with
        `needle` are exactly its occurrences: one range scan of the index's vocabulary finds them.
        """
        vocab = await self.instance_vocab(index)
        where, params, join = self.filter_sql(filters)
        sessions = " JOIN sessions s ON s.id = m.session_id" if join else ""
        prefix = needle.lower()
        sql = (
            f"SELECT d.doc, d.n, m.session_id, m.role, m.timestamp, m.tool_name, m.content "
            f"FROM (SELECT doc, count(*) AS n FROM {vocab} WHERE term >= ? AND term < ? "
            f"AND doc BETWEEN ? AND ? GROUP BY doc) d JOIN messages m ON m.id = d.doc{sessions} "
            f"WHERE 1{where} ORDER BY d.n DESC, d.doc DESC LIMIT ?"
        )
        raw = await self.fetch(sql, [prefix, prefix + "\U0010ffff", *bounds, *params, limit], deadline)
        return self.rows(raw, marker)

    async def instance_vocab(self, index: FtsIndex) -> str:
        """A per-connection fts5vocab table listing every (term, message) of `index`."""
        name = f"temp.{index.table}_instances"
        if name not in self._vocabs:
            await self.fetch(
                f"CREATE VIRTUAL TABLE IF NOT EXISTS {name} USING fts5vocab(main, {index.table}, 'instance')",
                (),
            )
            self._vocabs.add(name)
        return name

    async def substring_scan(
        self,
        needles: Sequence[str],
        filters: SearchFilters,
        limit: int,
        bounds: tuple[int, int],
        deadline: float,
        marker: Highlighter,
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
        low, top = await self.clamp(bounds)
        size = FIRST_CHUNK * 2
        while top >= low and len(found.rows) < limit:
            bottom = max(low, top - size + 1)
            sql = (
                f"SELECT m.id, 0.0, m.session_id, m.role, m.timestamp, m.tool_name, m.content "
                f"FROM {source}{sessions} WHERE {key} BETWEEN ? AND ? AND ({likes}){where} "
                f"ORDER BY {key} DESC LIMIT ?"
            )
            try:
                raw = await self.fetch(
                    sql, [bottom, top, *patterns, *params, limit - len(found.rows)], deadline
                )
            except Interrupted:
                found.partial = True
                break
            found.rows.extend(self.rows(raw, marker))
            top, size = bottom - 1, size * 2
        return found

    async def clamp(self, bounds: tuple[int, int]) -> tuple[int, int]:
        """Bounds whose top is no higher than the newest message id (windows start there)."""
        rows = await self.fetch("SELECT max(id) FROM messages", ())
        return bounds[0], min(bounds[1], int(rows[0][0] or 0))

    async def bounds(self, filters: SearchFilters) -> tuple[int, int] | None:
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
        values = list((await self.fetch(f"SELECT {', '.join(parts)}", params))[0])
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
    text = plain(row[6])
    if not text.strip() and len(row) > 7 and row[7]:
        return str(row[7])
    return text
