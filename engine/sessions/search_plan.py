"""Search planning: which FTS5 queries to run so that no search pays for what it cannot use.

FTS5's bm25 costs about 3 µs per matching row plus one pass over every query phrase's whole
posting list (for the IDF), so ranking a word found in 70 % of 100k messages takes 60-80 ms, and
ranking a phrase of two such words scans both lists. The planner first samples, in one statement,
at most `search_window_rows + 1` of the newest matches of each word (cheap whatever the word),
which tells how many it matches (exactly, or estimated from their density), then:

- ranks exactly by bm25 when the rarest words ("anchors") match about `search_rank_rows`
  messages or fewer in all, adding the broader words to the ranking expression but not to the
  matched set;
- otherwise ranks by bm25 only the newest matches (the id window holding the sampled ones);
- treats words found in more than `search_common_share` of the messages as stopwords for ranking,
  and lists the newest messages holding them when nothing else is left;
- finds phrases with no rare word newest first, window by window;
- searches CJK through the trigram index (1- and 2-character terms through its vocabulary);
- stops at `search_budget_ms`, returning the newest matches found so far, marked `partial`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from engine.sessions import feedback
from engine.sessions.dates import month_named
from engine.sessions.fts import (
    FIRST_CHUNK,
    Found,
    FtsIndex,
    FtsQueries,
    Interrupted,
    SearchFilters,
    SearchHit,
    clock,
)
from engine.sessions.opening import read_only_uri
from engine.sessions.query import ParsedQuery, Term, parse, quote
from engine.sessions.rerank import Reranker
from engine.sessions.search_thread import SearchThread
from engine.sessions.snippets import Highlighter
from engine.sessions.text import tolerant_text

RRF_K = 60  # reciprocal-rank fusion constant for merging separately ranked lists
UNBOUNDED = (0, 2**62)
PLAN_SHARE = 0.6  # share of the time budget for counting and ranking; the rest for fallbacks
RETRY_BUDGET_FACTOR = 10  # a search that found nothing within its budget tries again with this much more
PROGRESS_STEPS = 20000  # SQLite VM steps between checks of a search's deadline
PHRASE_CHUNK_MATCHES = 500  # matches of its rarest word per window when a phrase is read newest first


@dataclass(frozen=True)
class SearchResult:
    """Ranked hits; `partial` when the time budget ended before all history was searched."""

    query: ParsedQuery
    hits: tuple[SearchHit, ...]
    partial: bool = False
    plan: tuple[str, ...] = ()


@dataclass
class _Unit:
    """One piece of a query on one index, and what counting its newest matches told us."""

    expr: str
    label: str
    words: tuple[str, ...] = ()  # the words of a multi-word phrase (counted on their own first)
    count: int = 0
    floor: int = 0  # id of the oldest of the sampled newest matches
    window_floor: int = 0  # id of the oldest of the newest `search_window_rows` matches
    estimate: float = 0.0  # matches in the whole range, extrapolated when the count was capped


@dataclass
class _Budget:
    plan: float
    final: float
    wanted: int = 0  # hits the caller asked for: fewer makes a plan add the newest of the rest


class Searcher:
    """Plans and runs searches on the store's connection."""

    def __init__(
        self,
        path: Path,
        *,
        words: FtsIndex | None,
        cjk: FtsIndex | None,
        message_columns: set[str],
        settings: Mapping[str, Any],
    ) -> None:
        self.path = path
        self.words = words
        self.cjk = cjk
        self.columns = message_columns
        self.rank_rows = int(settings["search_rank_rows"])
        self.window_rows = min(self.rank_rows, int(settings["search_window_rows"]))
        self.common_share = float(settings["search_common_share"])
        self.budget_s = float(settings["search_budget_ms"]) / 1000
        self.rerank_pool = int(settings["search_rerank_pool"])
        self.feedback_hits = int(settings["search_feedback_hits"])
        self.feedback_rare = int(settings["search_feedback_rare"])
        self.feedback_share = float(settings["search_feedback_share"])
        self.retry_budget_s = self.budget_s * RETRY_BUDGET_FACTOR
        self.busy_timeout_ms = int(settings["busy_timeout_ms"])
        self._thread = SearchThread()
        self._q: FtsQueries | None = None  # created in the search thread, used only there

    async def search(self, query: ParsedQuery, filters: SearchFilters, limit: int) -> SearchResult:
        """The best `limit` messages for `query` under `filters`.

        The whole plan (counts, ranking, fills) runs in one hop to the search thread, on a
        read-only connection of its own: WAL lets it read while the store's connection writes.
        """
        return await self._thread.run(self._search, query, filters, limit)

    async def close(self) -> None:
        await self._thread.stop(last=self._disconnect)

    @property
    def q(self) -> FtsQueries:
        if self._q is None:
            conn = sqlite3.connect(read_only_uri(self.path), uri=True, isolation_level=None)
            conn.text_factory = tolerant_text
            conn.execute(f"PRAGMA busy_timeout = {self.busy_timeout_ms}")
            conn.execute("SELECT 1 FROM messages LIMIT 0")  # reads the schema now, not on the clock
            self._q = FtsQueries(conn, self.columns)
            conn.set_progress_handler(self._q.progress_check, PROGRESS_STEPS)
        return self._q

    def _disconnect(self) -> None:
        if self._q is not None:
            self._q.conn.close()
            self._q = None

    def _search(self, query: ParsedQuery, filters: SearchFilters, limit: int) -> SearchResult:
        if query.empty or limit <= 0:
            return SearchResult(query=query, hits=())
        self.q  # noqa: B018 - the connection is opened before the clock starts
        result = self._search_within(query, filters, limit, self.budget_s)
        if result.partial and not result.hits:
            # The budget ran out before anything was found (a cold cache, a loaded machine): an
            # empty answer would read as "no such conversation", so try once more with a longer one.
            result = self._search_within(query, filters, limit, self.retry_budget_s)
        result = self._dated(query, filters, limit, result)
        return self._feedback(query, filters, limit, result)

    def _feedback(
        self, query: ParsedQuery, filters: SearchFilters, limit: int, result: SearchResult
    ) -> SearchResult:
        """A question's best hits lend their rare words (names, places) to a second pass."""
        index = self.words
        if (
            index is None
            or self.feedback_hits <= 0
            or query.boolean
            or len([t for t in query.terms if not t.cjk]) < 2
            or not result.hits
        ):
            return result
        start = clock()
        try:
            texts = feedback.texts_of(self.q, [h.message_id for h in result.hits[: self.feedback_hits]])
            words = feedback.candidates(texts, query)
            total = self.q.fetch("SELECT max(id) FROM messages", ())[0][0] or 0
            cap = min(self.feedback_rare, int(self.feedback_share * total))
            rare = feedback.rare_words(self.q, index, words, cap, start + self.budget_s)
        except Interrupted:
            return result
        if not rare:
            return result
        second = self._search_within(parse(" ".join(rare)), filters, limit, self.budget_s - (clock() - start))
        if not second.hits:
            return result
        hits = tuple(feedback.fuse(result.hits, second.hits, limit))
        plan = (*result.plan, f"second pass with words of the best hits: {', '.join(rare)}")
        return replace(result, hits=hits, plan=plan, partial=result.partial or second.partial)

    def _dated(
        self, query: ParsedQuery, filters: SearchFilters, limit: int, result: SearchResult
    ) -> SearchResult:
        """A question naming a month ("in May 2023") puts the matches of that month first."""
        span = None if query.boolean or filters.narrows_ids else month_named(query.raw)
        if span is None:
            return result
        within = replace(filters, since=span[0], until=span[1])
        dated = self._search_within(query, within, limit, self.budget_s)
        if not dated.hits:
            return result
        seen = {h.message_id for h in dated.hits}
        rest = tuple(h for h in result.hits if h.message_id not in seen)
        # Scores stay in the order of the hits, the month's above the rest (conversations are
        # ranked by their hits' scores).
        lift = max(0.0, max((h.score for h in rest), default=0.0) - min(h.score for h in dated.hits))
        hits = tuple(h._replace(score=h.score + lift) for h in dated.hits) + rest
        plan = (*result.plan, f"matches dated {time_label(span[0])} first: {len(dated.hits)}")
        return replace(result, hits=hits[:limit], plan=plan, partial=result.partial or dated.partial)

    def _search_within(
        self, query: ParsedQuery, filters: SearchFilters, limit: int, budget_s: float
    ) -> SearchResult:
        start = clock()
        budget = _Budget(plan=start + budget_s * PLAN_SHARE, final=start + budget_s, wanted=limit)
        bounds: tuple[int, int] | None = UNBOUNDED
        if filters.narrows_ids:
            bounds = self.q.bounds(filters)
            if bounds is None:
                return SearchResult(query=query, hits=(), plan=("no messages in the filtered range",))
        parts: list[Found] = []
        for index, units, needles in self._split(query):
            if index is not None and units:
                part = self._search_index(
                    index, units, query, filters, self._pool(query, limit), bounds, budget
                )
                parts.append(self._reranked(query, part, limit))
            if needles:
                parts.append(self.q.substring_scan(needles, filters, limit, bounds, budget.final))
        chosen = _fuse([p.rows for p in parts if p.rows], limit)
        snippet = Highlighter(query.terms).snippet  # until now a hit's snippet held its whole text
        rewound = self.q.rewound([h[0] for h in chosen])
        hits = tuple(
            SearchHit(h[0], h[1], h[2], h[3], snippet(h[4]), h[5], h[6], h[0] in rewound) for h in chosen
        )
        plan = tuple(step for p in parts for step in p.plan)
        return SearchResult(query=query, hits=hits, partial=any(p.partial for p in parts), plan=plan)

    def _pool(self, query: ParsedQuery, limit: int) -> int:
        """How many of bm25's best to read: more when a question's terms will reorder them."""
        words = [t for t in query.terms if not t.cjk]
        return limit if query.boolean or len(words) < 2 else max(limit, self.rerank_pool)

    @staticmethod
    def _reranked(query: ParsedQuery, part: Found, limit: int) -> Found:
        if query.boolean or not part.counts or len(part.rows) <= 1:
            return part
        reranker = Reranker(query.terms, part.counts, part.total)
        if reranker.useful:
            part.rows = reranker.order(part.rows)[:limit]
            part.plan.append(f"reordered {len(part.rows)} by the rarity of the question terms each holds")
        return part

    # -- splitting a query over the indexes

    def _split(self, query: ParsedQuery) -> list[tuple[FtsIndex | None, list[_Unit], list[str]]]:
        """(index, units, substring needles) groups: the word index, the CJK index, plain scans."""
        words = [t for t in query.terms if not t.cjk]
        cjk = [t for t in query.terms if t.cjk]
        if query.boolean and not cjk and self.words is not None:
            return [(self.words, [_Unit(query.expression(), "boolean")], [])]
        if query.boolean and query.all_and and self.cjk is not None and all(len(t.text) >= 3 for t in cjk):
            # Every term is required and one is CJK, so every match is in the trigram index.
            usable = [t for t in query.terms if len(t.text) >= 3]
            return [(self.cjk, [_Unit(" AND ".join(quote(t.text) for t in usable), "boolean")], [])]
        groups: list[tuple[FtsIndex | None, list[_Unit], list[str]]] = []
        if words:
            if self.words is not None:
                groups.append((self.words, [self._word_unit(t) for t in words], []))
            else:
                groups.append((None, [], [t.text for t in words]))
        if cjk:
            if self.cjk is not None:
                groups.append((self.cjk, [_Unit(quote(t.text), t.text) for t in cjk], []))
            else:
                groups.append((None, [], [t.text for t in cjk]))
        return groups

    @staticmethod
    def _word_unit(term: Term) -> _Unit:
        parts = tuple(term.text.split()) if term.phrase and not term.prefix else ()
        return _Unit(term.fts(), term.text, words=parts)

    # -- one index

    def _search_index(
        self,
        index: FtsIndex,
        units: list[_Unit],
        query: ParsedQuery,
        filters: SearchFilters,
        limit: int,
        bounds: tuple[int, int],
        budget: _Budget,
    ) -> Found:
        found = Found()
        short = [u for u in units if index.trigram and len(u.label) <= 2]
        ready = [u for u in units if u not in short]
        if short:
            found.add(self._short_cjk(index, short, filters, limit, bounds, budget))
        if not ready:
            return found
        if query.boolean:
            expr = ready[0].expr
            found.add(self.q.newest_in_chunks(index, expr, filters, limit, bounds, budget.final))
            found.plan.append(f"{index.table}: boolean query, newest matches first")
            return found
        try:
            ranked = self._rank(index, ready, filters, limit, bounds, budget)
        except Interrupted:
            ranked = None
        if ranked is None:
            expr = " OR ".join(f"({u.expr})" for u in ready)
            found.add(self.q.newest_in_chunks(index, expr, filters, limit, bounds, budget.final))
            found.plan.append(f"{index.table}: over the planning budget, newest matches first")
            return found
        found.add(ranked)
        return found

    def _short_cjk(
        self,
        index: FtsIndex,
        units: list[_Unit],
        filters: SearchFilters,
        limit: int,
        bounds: tuple[int, int],
        budget: _Budget,
    ) -> Found:
        found = Found()
        lists = []
        for unit in units:
            try:
                rows = self.q.short_cjk(index, unit.label, filters, limit, bounds, budget.final)
                found.plan.append(f"{index.table}: newest occurrences of {unit.label} (trigram vocabulary)")
            except Interrupted:
                scan = self.q.substring_scan(
                    [unit.label], filters, limit, bounds, budget.final, index.docsize
                )
                found.partial |= scan.partial
                found.plan.extend(scan.plan)
                rows = scan.rows
            lists.append(rows)
        found.rows = _fuse([rows for rows in lists if rows], limit)
        return found

    def _count(self, index: FtsIndex, units: list[_Unit], bounds: tuple[int, int], deadline: float) -> int:
        """Sample each unit's newest matches (at most window_rows + 1); returns the highest message id.

        Fewer than that are all its matches. Otherwise the id span they cover gives both the window
        to rank when the unit is not rare, and an estimate of all its matches (their density times
        the searched span), which decides whether it is rare enough to rank all of them.
        """
        table = index.table
        one = (
            f"SELECT ?, count(*), min(rowid), (SELECT max(id) FROM messages) FROM "
            f"(SELECT rowid FROM {table} WHERE {table} MATCH ? AND rowid BETWEEN ? AND ? "
            f"ORDER BY rowid DESC LIMIT ?)"
        )
        sample = self.window_rows + 1
        params: list[Any] = []
        for i, unit in enumerate(units):
            params.extend((i, unit.expr, *bounds, sample))
        top = 0
        rows = self.q.fetch(" UNION ALL ".join([one] * len(units)), params, deadline)
        for i, count, floor, highest in rows:
            units[i].count, units[i].floor = int(count), int(floor or 0)
            top = int(highest or 0)
        high = min(bounds[1], top)
        span = max(1, high - bounds[0] + 1)
        for unit in units:
            if unit.count < sample:
                unit.estimate = float(unit.count)
                unit.window_floor = bounds[0]
            else:
                unit.estimate = unit.count * span / max(1, high - unit.floor + 1)
                unit.window_floor = unit.floor
        return high

    def _rank(
        self,
        index: FtsIndex,
        units: list[_Unit],
        filters: SearchFilters,
        limit: int,
        bounds: tuple[int, int],
        budget: _Budget,
    ) -> Found:
        """Count the units, rank what is cheap to rank, and find phrases of common words newest first."""
        table = index.table
        # A phrase is counted through its words first: a phrase of common words costs a full scan.
        singles = {u.expr: u for u in units if not u.words}
        for unit in units:
            for word in unit.words:
                singles.setdefault(quote(word), _Unit(quote(word), word))
        high = self._count(index, list(singles.values()), bounds, budget.plan)
        bounds = (bounds[0], high)
        counts = {u.label: u.estimate for u in singles.values()}
        common_at = max(self.rank_rows, self.common_share * max(1, high - bounds[0] + 1))
        # A phrase costs a walk of its rarest word's postings (to count, and again for bm25's IDF),
        # so only phrases with a rare word are ranked; the others are read newest first, in
        # windows sized to hold a bounded number of that word's matches.
        phrases = [u for u in units if u.words]
        rarest = {id(u): min(singles[quote(w)].estimate for w in u.words) for u in phrases}
        costly = [u for u in phrases if rarest[id(u)] > self.rank_rows]
        cheap = [u for u in phrases if u not in costly]
        if cheap:
            self._count(index, cheap, bounds, budget.plan)
        found = Found(total=max(1, high - bounds[0] + 1))
        found.counts = (
            counts | {u.label: u.estimate for u in cheap} | {u.label: rarest[id(u)] for u in costly}
        )
        rankable = [u for u in units if not u.words] + cheap
        if rankable:
            found.add(self._rank_units(index, rankable, common_at, filters, limit, bounds, budget))
        if costly:
            expr = " OR ".join(f"({u.expr})" for u in costly)
            span = max(1, high - bounds[0] + 1)
            density = max(rarest[id(u)] for u in costly) / span
            chunk = max(FIRST_CHUNK, int(PHRASE_CHUNK_MATCHES / max(density, 1e-9)))
            newest = self.q.newest_in_chunks(index, expr, filters, limit, bounds, budget.final, chunk=chunk)
            names = ", ".join(u.label for u in costly)
            found.plan.append(f"{table}: phrase of frequent words ({names}), newest matches first")
            found.partial |= newest.partial
            found.rows = _fuse([r for r in (found.rows, newest.rows) if r], limit)
        return found

    def _rank_units(
        self,
        index: FtsIndex,
        units: list[_Unit],
        common_at: float,
        filters: SearchFilters,
        limit: int,
        bounds: tuple[int, int],
        budget: _Budget,
    ) -> Found:
        table = index.table
        live = [u for u in units if u.count]
        if not live:
            return Found(plan=[f"{table}: no match"])
        useful = sorted((u for u in live if u.estimate <= common_at), key=lambda u: u.estimate)
        common = [u for u in live if u.estimate > common_at]
        anchors: list[_Unit] = []
        total = 0.0
        for unit in useful:
            if total + unit.estimate > self.rank_rows:
                break
            anchors.append(unit)
            total += unit.estimate
        boosters = useful[len(anchors) :]
        ignored = f"; too common to rank: {', '.join(u.label for u in common)}" if common else ""
        found = Found()
        if anchors:
            core = " OR ".join(f"({u.expr})" for u in anchors)
            expr = core
            if boosters:
                expr = f"({core}) AND ({core} OR {' OR '.join(f'({u.expr})' for u in boosters)})"
            found.rows = self.q.bm25(index, expr, filters, limit, bounds, budget.plan)
            names = ", ".join(u.label for u in anchors)
            found.plan.append(f"{table}: bm25 over every match of {names}{ignored}")
        elif useful:
            floor = max(u.window_floor for u in useful)
            expr = " OR ".join(f"({u.expr})" for u in useful)
            found.rows = self.q.bm25(index, expr, filters, limit, (floor, bounds[1]), budget.plan)
            found.plan.append(f"{table}: bm25 over the newest matches (from message {floor}){ignored}")
        else:
            expr = " AND ".join(f"({u.expr})" for u in common)
            found.rows = self.q.newest(index, expr, filters, limit, bounds, budget.plan)
            found.plan.append(f"{table}: only common terms, newest matches first")
        short = len(found.rows) < min(limit, budget.wanted or limit)
        if short and (boosters or common or not anchors) and len(live) + bool(anchors) > 1:
            # Too few hits (filters, or terms outside the ranked set): add the newest of the rest.
            seen = {r.message_id for r in found.rows}
            expr = " OR ".join(f"({u.expr})" for u in live)
            try:
                more = self.q.newest(index, expr, filters, budget.wanted + len(seen), bounds, budget.final)
            except Interrupted:
                found.partial = True
                return found
            extra = [r for r in more if r.message_id not in seen][: budget.wanted - len(found.rows)]
            if extra:
                found.rows.extend(extra)
                found.plan.append(f"{table}: {len(extra)} more from the newest matches of any term")
        return found


def time_label(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp).strftime("%B %Y")


def _fuse(lists: list[list[SearchHit]], limit: int) -> list[SearchHit]:
    """One list as it is; several fused by reciprocal rank, so a message found by both ranks first."""
    if not lists:
        return []
    if len(lists) == 1:
        return lists[0][:limit]
    fused: dict[int, tuple[float, SearchHit]] = {}
    for rows in lists:
        for rank, row in enumerate(rows):
            score = 1.0 / (RRF_K + rank + 1)
            previous = fused.get(row.message_id)
            fused[row.message_id] = ((previous[0] if previous else 0.0) + score, row)
    ordered = sorted(fused.values(), key=lambda pair: -pair[0])
    return [row._replace(score=score) for score, row in ordered[:limit]]
