"""Keeping our search indexes in few pieces, a little at a time, when a store closes.

Each committed message adds a small b-tree ("segment") to an FTS5 index; FTS5 merges them as they
pile up but leaves about a dozen on a database grown message by message, and every search term is
looked up in each of them: on 100,000 messages a search's statements cost about twice what they
cost on an index merged into one. FTS5's incremental `merge` command merges in steps of a
bounded number of pages, each its own transaction, so `tidy` spends a fixed budget at close and
carries on where it stopped the next time.

What it merges: with FTS5's `usermerge` at 2, a step merges any two pieces that FTS5 keeps on the
same level, which leaves at most one piece per level (three to six on a year of messages) for a
few milliseconds a close. Merging everything into one piece rewrites the whole index (about a
second per 100,000 messages), so that round starts only when an index has more than
`max_segments` pieces; once started, it is carried on by later closes until it ends.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from engine.sessions.text import tolerant_text

OUR_INDEXES = ("hws_fts", "hws_fts_cjk")


@dataclass
class Tidied:
    """What one `tidy` did: merge steps run, segments left per index, and whether work remains."""

    steps: int = 0
    segments: dict[str, int] | None = None
    unfinished: bool = False
    seconds: float = 0.0


def segments(conn: sqlite3.Connection, table: str) -> int:
    """How many b-trees the FTS5 index `table` is made of (each has entries in `<table>_idx`)."""
    return int(conn.execute(f"SELECT count(DISTINCT segid) FROM {table}_idx").fetchone()[0])


def _step(conn: sqlite3.Connection, table: str, pages: int) -> int:
    """One merge step of at most |pages| pages; the rows it changed (under 2: nothing to merge)."""
    before = conn.total_changes
    conn.execute(f"INSERT INTO {table}({table}, rank) VALUES ('merge', ?)", (pages,))
    return conn.total_changes - before


def tidy(
    conn: sqlite3.Connection,
    budget_s: float,
    *,
    max_segments: int,
    pages: int,
    tables: Sequence[str] = OUR_INDEXES,
    clock: Callable[[], float] = time.monotonic,
) -> Tidied:
    """Merge steps on `tables` until each is in at most `max_segments` pieces or `budget_s` is spent.

    A step is not begun when the longest one so far would end past the budget, so a tidy overruns
    it only by a step longer than any before it, or by the first step (or two) each index gets in
    any case. Runs outside any transaction of the caller's (each step commits on its own), so an
    interrupted tidy leaves a consistent index, merely less merged.
    """
    start = clock()
    done = Tidied(segments={})
    longest = 0.0

    def step(table: str, pages: int) -> int:
        nonlocal longest
        began = clock()
        changed = _step(conn, table, pages)
        longest = max(longest, clock() - began)
        done.steps += 1
        return changed

    def over_budget() -> bool:  # would one more step, as long as the longest so far, end past it?
        return clock() - start + longest > budget_s

    for table in tables:  # each gets a step at least, so no index waits behind another forever
        conn.execute(f"INSERT INTO {table}({table}, rank) VALUES ('usermerge', 2)")
        # A merge started by an earlier tidy is carried on first, then pairs of pieces on one
        # level; a merge of everything starts only when that leaves too many pieces.
        merging, whole, first = True, False, True
        while merging:
            merging = step(table, pages) >= 2
            if not merging and not whole and segments(conn, table) > max_segments:
                if not first and over_budget():  # right after a first step it begins even so, or
                    break  # a small budget would never begin it
                step(table, -pages)  # every piece to one level, and the merge of them begins
                merging = whole = True
            first = False
            if over_budget():
                break
        left = segments(conn, table)
        done.segments[table] = left
        done.unfinished |= merging or left > max_segments
    done.seconds = clock() - start
    return done


def tidy_file(path: str, budget_s: float, *, max_segments: int, pages: int, busy_timeout_ms: int) -> Tidied:
    """`tidy` on a connection of its own (used after the store's own connection has closed)."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.text_factory = tolerant_text
    try:
        conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
        done = tidy(conn, budget_s, max_segments=max_segments, pages=pages)
        conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
        return done
    finally:
        conn.close()
