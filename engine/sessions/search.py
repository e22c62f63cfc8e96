"""Full-text search over messages, planned so that no query pays for what it cannot use.

FTS5's bm25 costs about 3 µs per matching row plus a pass over every query term's whole
posting list (for the IDF), so ranking a word found in 70 % of 100k messages takes 60-80 ms.
The planner therefore first counts, per term, at most `search_rank_rows + 1` of its newest matches
(cheap whatever the term), and then:

- ranks exactly by bm25 when the rarest terms ("anchors") match few enough messages, with the
  broader terms added to the ranking expression but not to the matched set;
- otherwise ranks the newest matches only (a rowid window holding about `search_rank_rows`);
- treats words found in more than `search_common_share` of the messages as stopwords for ranking,
  and when only such words remain lists the newest messages holding them;
- searches CJK through the trigram index (2-character terms via the trigram vocabulary, 1-character
  ones by a newest-first scan of the CJK messages only);
- stops at `search_budget_ms`, returning the newest matches found so far marked `partial`.
"""

from __future__ import annotations

import re
import sqlite3
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import aiosqlite

from engine.sessions.query import ParsedQuery, Term, is_cjk, quote
from engine.sessions.records import content_text, decode_content

SNIPPET_OPEN, SNIPPET_CLOSE, SNIPPET_ELLIPSIS = ">>>", "<<<", "..."
SNIPPET_TOKENS = 24  # words of context in an FTS5 snippet
SNIPPET_CHARS = 70  # characters either side of a CJK hit in our own snippet
MAX_EXPANSION = 512  # trigrams a 2-character CJK term may expand to before we scan instead
RRF_K = 60  # reciprocal-rank fusion constant when word and CJK results are merged


@dataclass(frozen=True)
class FtsIndex:
    """An FTS5 table we can search, and what it holds."""

    table: str
    trigram: bool
    covers_all: bool  # every message is in it (else: only messages holding CJK)
    has_text: bool  # snippet() can read the text back
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


@dataclass(frozen=True)
class SearchHit:
    """One matching message: where it is, a snippet with `>>>hits<<<`, and its score."""

    message_id: int
    session_id: str
    role: str
    timestamp: float
    snippet: str
    score: float
    tool_name: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "message_id": self.message_id,
            "session_id": self.session_id,
            "role": self.role,
            "timestamp": self.timestamp,
            "snippet": self.snippet,
            "score": round(self.score, 4),
            "tool_name": self.tool_name,
        }


@dataclass(frozen=True)
class SearchResult:
    """Ranked hits; `partial` when the time budget ended before all history was searched."""

    query: ParsedQuery
    hits: tuple[SearchHit, ...]
    partial: bool = False
    plan: tuple[str, ...] = ()


@dataclass
class _Unit:
    """One searchable piece of a query on one index: an FTS5 expression and what it found."""

    expr: str
    label: str
    needles: tuple[str, ...]  # literal strings to mark in our own snippets
    count: int = 0
    newest_floor: int = 0  # rowid of the (rank_rows+1)-th newest match, when there are that many
    estimate: float = 0.0


@dataclass
class _Row:
    rowid: int
    score: float
    session_id: str
    role: str
    timestamp: float
    tool_name: str | None


@dataclass
class _Outcome:
    rows: list[_Row] = field(default_factory=list)
    partial: bool = False
    plan: list[str] = field(default_factory=list)


class _Interrupted(Exception):
    pass


class Searcher:
    """Runs searches on one aiosqlite connection; the store owns both."""

    def __init__(
        self,
        conn: aiosqlite.Connection,
        *,
        words: FtsIndex | None,
        cjk: FtsIndex | None,
        message_columns: set[str],
        settings: Mapping[str, Any],
    ) -> None:
        self.conn = conn
        self.words = words
        self.cjk = cjk
        self.columns = message_columns
        self.rank_rows = int(settings["search_rank_rows"])
        self.common_share = float(settings["search_common_share"])
        self.budget_s = float(settings["search_budget_ms"]) / 1000
        self.deadline: float | None = None
        self._vocab_ready = False

    # -- the deadline, checked by SQLite's progress handler in the connection's thread

    def progress_check(self) -> int:
        deadline = self.deadline
        return 1 if deadline is not None and time.perf_counter() > deadline else 0

    async def _fetch(self, sql: str, params: Sequence[Any], deadline: float | None) -> list[Any]:
        if deadline is not None and time.perf_counter() > deadline:
            raise _Interrupted
        self.deadline = deadline
        try:
            return list(await self.conn.execute_fetchall(sql, params))
        except sqlite3.OperationalError as exc:
            if "interrupt" in str(exc).lower():
                raise _Interrupted from exc
            raise
        finally:
            self.deadline = None

    # -- entry point

    async def search(self, query: ParsedQuery, filters: SearchFilters, limit: int) -> SearchResult:
        """The best `limit` messages for `query` under `filters`."""
        if query.empty or limit <= 0:
            return SearchResult(query=query, hits=())
        start = time.perf_counter()
        plan_deadline = start + self.budget_s * 0.6
        final_deadline = start + self.budget_s
        lo, hi = await self._bounds(filters)
        if hi < lo:
            return SearchResult(query=query, hits=(), plan=("no messages in range",))
        outcomes: list[_Outcome] = []
        snippet_units: dict[str, list[_Unit]] = {}
        for index, units, boolean, likes in self._split(query):
            if index is not None and units:
                snippet_units[index.table] = units
                outcomes.append(
                    await self._search_index(
                        index, units, boolean, filters, limit, lo, hi, plan_deadline, final_deadline
                    )
                )
            if likes:
                outcomes.append(await self._like_scan(likes, filters, limit, lo, hi, final_deadline))
        rows = _merge([o.rows for o in outcomes], limit)
        hits = await self._with_snippets(rows, snippet_units, query)
        return SearchResult(
            query=query,
            hits=tuple(hits),
            partial=any(o.partial for o in outcomes),
            plan=tuple(step for o in outcomes for step in o.plan),
        )

    # -- splitting a query over the indexes

    def _split(self, query: ParsedQuery) -> list[tuple[FtsIndex | None, list[_Unit], bool, list[str]]]:
        """(index, units, boolean, like-needles) groups: words, CJK, and what only a scan can find."""
        words = [t for t in query.terms if not t.cjk]
        cjk = [t for t in query.terms if t.cjk]
        if query.boolean and not cjk and self.words:
            expr = query.expression()
            return [(self.words, [_Unit(expr, "boolean", tuple(t.text for t in words))], True, [])]
        if query.boolean and query.all_and and self.cjk and all(len(t.text) >= 3 for t in cjk):
            # Every term is required and one is CJK, so every match is in the trigram index.
            usable = [t for t in query.terms if len(t.text) >= 3]
            expr = " AND ".join(quote(t.text) for t in usable)
            return [(self.cjk, [_Unit(expr, "boolean", tuple(t.text for t in usable))], True, [])]
        groups: list[tuple[FtsIndex | None, list[_Unit], bool, list[str]]] = []
        if words:
            if self.words:
                groups.append((self.words, [_Unit(t.fts(), t.text, (t.text,)) for t in words], False, []))
            else:
                groups.append((None, [], False, [t.text for t in words]))
        if cjk:
            units: list[_Unit] = []
            likes: list[str] = []
            for term in cjk:
                unit = self._cjk_unit(term)
                if unit is None:
                    likes.append(term.text)
                else:
                    units.append(unit)
            groups.append((self.cjk, units, False, likes))
        return groups

    def _cjk_unit(self, term: Term) -> _Unit | None:
        if self.cjk is None or len(term.text) < 2:
            return None
        if len(term.text) >= 3:
            return _Unit(quote(term.text), term.text, (term.text,))
        return _Unit("", term.text, (term.text,))  # expanded from the vocabulary in _search_index

    async def _expand(self, unit: _Unit, index: FtsIndex) -> bool:
        """Turn a 2-character unit into an OR of the trigrams that start with it."""
        if not self._vocab_ready:
            await self.conn.execute(
                f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.{index.table}_vocab "
                f"USING fts5vocab(main, {index.table}, 'row')"
            )
            self._vocab_ready = True
        prefix = unit.label.lower()
        rows = await self.conn.execute_fetchall(
            f"SELECT term FROM temp.{index.table}_vocab WHERE term >= ? AND term < ? LIMIT ?",
            (prefix, prefix + "\U0010ffff", MAX_EXPANSION + 1),
        )
        terms = [r[0] for r in rows]
        if len(terms) > MAX_EXPANSION:
            return False
        unit.expr = "(" + " OR ".join(quote(t) for t in terms) + ")" if terms else ""
        return True

    # -- one index

    async def _search_index(
        self,
        index: FtsIndex,
        units: list[_Unit],
        boolean: bool,
        filters: SearchFilters,
        limit: int,
        lo: int,
        hi: int,
        plan_deadline: float,
        final_deadline: float,
    ) -> _Outcome:
        outcome = _Outcome()
        likes: list[str] = []
        ready: list[_Unit] = []
        for unit in units:
            if unit.expr or await self._expand(unit, index):
                if unit.expr:
                    ready.append(unit)
            else:
                likes.append(unit.label)
        if likes:
            scan = await self._like_scan(likes, filters, limit, lo, hi, final_deadline)
            outcome.rows.extend(scan.rows)
            outcome.partial |= scan.partial
            outcome.plan.extend(scan.plan)
        if not ready:
            return outcome
        try:
            await self._probe(index, ready, lo, hi, plan_deadline)
            rows, plan = await self._ranked(index, ready, boolean, filters, limit, lo, hi, plan_deadline)
        except _Interrupted:
            rows, plan = None, None
        if rows is None:
            expr = " OR ".join(f"({u.expr})" for u in ready) if not boolean else ready[0].expr
            scan = await self._newest_in_chunks(index, expr, filters, limit, lo, hi, final_deadline)
            outcome.rows.extend(scan.rows)
            outcome.partial |= scan.partial
            outcome.plan.append(f"{index.table}: over budget, newest matches first")
            return outcome
        outcome.plan.extend(plan)
        if len(rows) < limit and not boolean:
            found = {r.rowid for r in rows}
            expr = " OR ".join(f"({u.expr})" for u in ready if u.count)
            if expr:
                try:
                    extra = await self._newest(
                        index, expr, filters, limit + len(found), lo, hi, final_deadline
                    )
                    rows.extend(r for r in extra if r.rowid not in found)
                    outcome.plan.append(f"{index.table}: filled with newest matches")
                except _Interrupted:
                    outcome.partial = True
        outcome.rows.extend(rows[:limit])
        return outcome

    async def _probe(self, index: FtsIndex, units: list[_Unit], lo: int, hi: int, deadline: float) -> None:
        """Count up to rank_rows+1 newest matches of each unit, noting the oldest of them."""
        table = index.table
        one = (
            f"SELECT ?, count(*), min(rowid) FROM (SELECT rowid FROM {table} WHERE {table} MATCH ? "
            f"AND rowid BETWEEN ? AND ? ORDER BY rowid DESC LIMIT ?)"
        )
        sql = " UNION ALL ".join([one] * len(units))
        params: list[Any] = []
        for i, unit in enumerate(units):
            params.extend((i, unit.expr, lo, hi, self.rank_rows + 1))
        span = hi - lo + 1
        for i, count, floor in await self._fetch(sql, params, deadline):
            unit = units[i]
            unit.count = int(count)
            unit.newest_floor = int(floor or lo)
            if unit.count <= self.rank_rows:
                unit.estimate = float(unit.count)
            else:
                unit.estimate = unit.count * span / max(1, hi - unit.newest_floor + 1)

    async def _ranked(
        self,
        index: FtsIndex,
        units: list[_Unit],
        boolean: bool,
        filters: SearchFilters,
        limit: int,
        lo: int,
        hi: int,
        deadline: float,
    ) -> tuple[list[_Row], list[str]]:
        table = index.table
        live = [u for u in units if u.count]
        if not live:
            return [], [f"{table}: no match"]
        span = hi - lo + 1
        common_at = max(self.rank_rows, self.common_share * span)
        if boolean:
            unit = live[0]
            if unit.count <= self.rank_rows:
                rows = await self._bm25(index, unit.expr, filters, limit, lo, hi, deadline)
                return rows, [f"{table}: bm25 over all {unit.count} matches"]
            rows = await self._newest(index, unit.expr, filters, limit, lo, hi, deadline)
            return rows, [f"{table}: newest of ~{unit.estimate:.0f} matches"]
        useful = sorted((u for u in live if u.estimate <= common_at), key=lambda u: u.estimate)
        common = [u for u in live if u.estimate > common_at]
        anchors: list[_Unit] = []
        total = 0
        for unit in useful:
            if total + unit.count > self.rank_rows:
                break
            anchors.append(unit)
            total += unit.count
        boosters = useful[len(anchors) :]
        dropped = f"; ignored as too common: {', '.join(u.label for u in common)}" if common else ""
        if anchors:
            core = " OR ".join(f"({u.expr})" for u in anchors)
            expr = core
            if boosters:
                expr = f"({core}) AND ({core} OR {' OR '.join(f'({u.expr})' for u in boosters)})"
            rows = await self._bm25(index, expr, filters, limit, lo, hi, deadline)
            labels = ", ".join(u.label for u in anchors)
            return rows, [f"{table}: bm25 over all matches of {labels}{dropped}"]
        if useful:
            floor = max(u.newest_floor for u in useful)
            expr = " OR ".join(f"({u.expr})" for u in useful)
            rows = await self._bm25(index, expr, filters, limit, floor, hi, deadline)
            return rows, [f"{table}: bm25 over the newest matches (from message {floor}){dropped}"]
        expr_all = " AND ".join(f"({u.expr})" for u in common)
        rows = await self._newest(index, expr_all, filters, limit, lo, hi, deadline)
        if len(common) > 1 and len(rows) < limit:
            found = {r.rowid for r in rows}
            expr_any = " OR ".join(f"({u.expr})" for u in common)
            more = await self._newest(index, expr_any, filters, limit + len(found), lo, hi, deadline)
            rows.extend(r for r in more if r.rowid not in found)
        return rows[:limit], [f"{table}: only common words, newest matches first"]

    # -- the queries

    def _filter_sql(self, filters: SearchFilters, alias: str = "m") -> tuple[str, list[Any], bool]:
        """WHERE conditions on the message (and its session); True when `sessions` must be joined."""
        conds: list[str] = []
        params: list[Any] = []
        if "active" in self.columns:
            if "compacted" in self.columns:
                # Compaction-archived messages stay searchable; only /undo'ne ones are hidden.
                conds.append(f"({alias}.active = 1 OR {alias}.compacted = 1)")
            else:
                conds.append(f"{alias}.active = 1")
        if filters.roles:
            conds.append(f"{alias}.role IN ({','.join('?' * len(filters.roles))})")
            params.extend(filters.roles)
        if filters.since is not None:
            conds.append(f"{alias}.timestamp >= ?")
            params.append(filters.since)
        if filters.until is not None:
            conds.append(f"{alias}.timestamp <= ?")
            params.append(filters.until)
        if filters.session_ids:
            conds.append(f"{alias}.session_id IN ({','.join('?' * len(filters.session_ids))})")
            params.extend(filters.session_ids)
        if filters.exclude_session_ids:
            conds.append(f"{alias}.session_id NOT IN ({','.join('?' * len(filters.exclude_session_ids))})")
            params.extend(filters.exclude_session_ids)
        join = False
        if filters.sources:
            conds.append(f"s.source IN ({','.join('?' * len(filters.sources))})")
            params.extend(filters.sources)
            join = True
        if filters.exclude_sources:
            conds.append(f"COALESCE(s.source, '') NOT IN ({','.join('?' * len(filters.exclude_sources))})")
            params.extend(filters.exclude_sources)
            join = True
        return (" AND " + " AND ".join(conds)) if conds else "", params, join

    def _select(self, index: FtsIndex, score: str, filters: SearchFilters) -> tuple[str, list[Any]]:
        table = index.table
        where, params, join = self._filter_sql(filters)
        sessions = " JOIN sessions s ON s.id = m.session_id" if join else ""
        sql = (
            f"SELECT {table}.rowid, {score}, m.session_id, m.role, m.timestamp, m.tool_name "
            f"FROM {table} JOIN messages m ON m.id = {table}.rowid{sessions} "
            f"WHERE {table} MATCH ? AND {table}.rowid BETWEEN ? AND ?{where}"
        )
        return sql, params

    async def _bm25(
        self,
        index: FtsIndex,
        expr: str,
        filters: SearchFilters,
        limit: int,
        lo: int,
        hi: int,
        deadline: float | None,
    ) -> list[_Row]:
        sql, params = self._select(index, f"-{index.table}.rank", filters)
        sql += f" ORDER BY {index.table}.rank LIMIT ?"
        rows = await self._fetch(sql, [expr, lo, hi, *params, limit], deadline)
        return [_Row(r[0], float(r[1]), r[2], r[3], r[4], r[5]) for r in rows]

    async def _newest(
        self,
        index: FtsIndex,
        expr: str,
        filters: SearchFilters,
        limit: int,
        lo: int,
        hi: int,
        deadline: float | None,
    ) -> list[_Row]:
        sql, params = self._select(index, "0.0", filters)
        sql += f" ORDER BY {index.table}.rowid DESC LIMIT ?"
        rows = await self._fetch(sql, [expr, lo, hi, *params, limit], deadline)
        return [_Row(r[0], 0.0, r[2], r[3], r[4], r[5]) for r in rows]

    async def _newest_in_chunks(
        self,
        index: FtsIndex,
        expr: str,
        filters: SearchFilters,
        limit: int,
        lo: int,
        hi: int,
        deadline: float,
    ) -> _Outcome:
        """Newest matches, one rowid window at a time, so a budget cut keeps what was found."""
        outcome = _Outcome()
        top, size = hi, 4096
        while top >= lo and len(outcome.rows) < limit:
            bottom = max(lo, top - size + 1)
            try:
                outcome.rows.extend(
                    await self._newest(index, expr, filters, limit - len(outcome.rows), bottom, top, deadline)
                )
            except _Interrupted:
                outcome.partial = True
                break
            top, size = bottom - 1, size * 2
        return outcome

    async def _like_scan(
        self,
        needles: list[str],
        filters: SearchFilters,
        limit: int,
        lo: int,
        hi: int,
        deadline: float,
    ) -> _Outcome:
        """Newest messages containing any needle, scanning only CJK messages when we can."""
        where, params, join = self._filter_sql(filters)
        sessions = " JOIN sessions s ON s.id = m.session_id" if join else ""
        likes = " OR ".join("m.content LIKE ? ESCAPE '\\'" for _ in needles)
        like_params = ["%" + re.sub(r"([\\%_])", r"\\\1", n) + "%" for n in needles]
        cjk_only = self.cjk is not None and self.cjk.docsize and all(is_cjk(n) for n in needles)
        if cjk_only:
            source = f"{self.cjk.docsize} d JOIN messages m ON m.id = d.id"  # type: ignore[union-attr]
            key = "d.id"
        else:
            source, key = "messages m", "m.id"
        outcome = _Outcome(plan=[f"substring scan for {', '.join(needles)}"])
        top, size = hi, 8192
        while top >= lo and len(outcome.rows) < limit:
            bottom = max(lo, top - size + 1)
            sql = (
                f"SELECT m.id, 0.0, m.session_id, m.role, m.timestamp, m.tool_name FROM {source}{sessions} "
                f"WHERE {key} BETWEEN ? AND ? AND ({likes}){where} ORDER BY {key} DESC LIMIT ?"
            )
            try:
                rows = await self._fetch(
                    sql, [bottom, top, *like_params, *params, limit - len(outcome.rows)], deadline
                )
            except _Interrupted:
                outcome.partial = True
                break
            outcome.rows.extend(_Row(r[0], 0.0, r[2], r[3], r[4], r[5]) for r in rows)
            top, size = bottom - 1, size * 2
        return outcome

    async def _bounds(self, filters: SearchFilters) -> tuple[int, int]:
        """The message id range the filters allow (dates and sessions), from indexes only."""
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
        row = (await self.conn.execute_fetchall(f"SELECT {', '.join(parts)}", params))[0]
        values = list(row)
        top = values.pop(0)
        if top is None:
            return 1, 0
        lo, hi = 0, int(top)
        if filters.since is not None:
            first = values.pop(0)
            if first is None:
                return 1, 0
            lo = max(lo, int(first))
        if filters.until is not None:
            last = values.pop(0)
            if last is None:
                return 1, 0
            hi = min(hi, int(last))
        if filters.session_ids:
            first, last = values.pop(0), values.pop(0)
            if first is None:
                return 1, 0
            lo, hi = max(lo, int(first)), min(hi, int(last))
        return lo, hi

    # -- snippets

    async def _with_snippets(
        self, rows: list[_Row], units: dict[str, list[_Unit]], query: ParsedQuery
    ) -> list[SearchHit]:
        if not rows:
            return []
        snippets: dict[int, str] = {}
        words = self.words
        if words is not None and words.has_text and words.table in units:
            expr = (
                query.expression()
                if query.boolean and not any(t.cjk for t in query.terms)
                else (" OR ".join(f"({u.expr})" for u in units[words.table] if u.expr))
            )
            one = (
                f"SELECT rowid, snippet({words.table}, -1, ?, ?, ?, {SNIPPET_TOKENS}) FROM {words.table} "
                f"WHERE {words.table} MATCH ? AND rowid = ?"
            )
            sql = " UNION ALL ".join([one] * len(rows))
            params: list[Any] = []
            for row in rows:
                params.extend((SNIPPET_OPEN, SNIPPET_CLOSE, SNIPPET_ELLIPSIS, expr, row.rowid))
            try:
                for rowid, text in await self.conn.execute_fetchall(sql, params):
                    if text and SNIPPET_OPEN in text:
                        snippets[rowid] = text
            except sqlite3.OperationalError:
                pass  # a snippet is a nicety; the text-based one below stands in
        missing = [r.rowid for r in rows if r.rowid not in snippets]
        if missing:
            needles = [t.text for t in query.terms]
            marks = ",".join("?" * len(missing))
            for rowid, content in await self.conn.execute_fetchall(
                f"SELECT id, content FROM messages WHERE id IN ({marks})", missing
            ):
                snippets[rowid] = text_snippet(_plain(content), needles)
        return [
            SearchHit(
                r.rowid, r.session_id, r.role, r.timestamp, snippets.get(r.rowid, ""), r.score, r.tool_name
            )
            for r in rows
        ]


def _plain(content: Any) -> str:
    return content_text(decode_content(content))


def _merge(lists: list[list[_Row]], limit: int) -> list[_Row]:
    """One list as it is; several fused by reciprocal rank, so a message found by both ranks first."""
    lists = [rows for rows in lists if rows]
    if not lists:
        return []
    if len(lists) == 1:
        return lists[0][:limit]
    fused: dict[int, tuple[float, _Row]] = {}
    for rows in lists:
        for rank, row in enumerate(rows):
            score = 1.0 / (RRF_K + rank + 1)
            previous = fused.get(row.rowid)
            fused[row.rowid] = ((previous[0] if previous else 0.0) + score, row)
    ordered = sorted(fused.values(), key=lambda pair: -pair[0])
    return [replace(row, score=score) for score, row in ordered[:limit]]


def text_snippet(text: str, needles: Sequence[str], width: int = SNIPPET_CHARS) -> str:
    """A window of `text` around the first needle found, each needle marked `>>>like this<<<`."""
    lowered = text.lower()
    positions = [(lowered.find(n.lower()), n) for n in needles if n]
    positions = [(p, n) for p, n in positions if p >= 0]
    if not positions:
        short = text[: 2 * width]
        return short + (SNIPPET_ELLIPSIS if len(text) > len(short) else "")
    first = min(p for p, _ in positions)
    start, end = max(0, first - width), min(len(text), first + width)
    window = text[start:end]
    pattern = re.compile("|".join(re.escape(n) for _, n in sorted(positions, key=lambda x: -len(x[1]))), re.I)
    marked = pattern.sub(lambda m: f"{SNIPPET_OPEN}{m.group(0)}{SNIPPET_CLOSE}", window)
    return (SNIPPET_ELLIPSIS if start else "") + marked + (SNIPPET_ELLIPSIS if end < len(text) else "")
