"""Which FTS5 queries a search runs, rare words first, so its cost follows the answer, not the store.

Ranking every fact that holds any query word reads the whole store when the words are common (at
100,000 facts that is hundreds of milliseconds). Instead: each word's document frequency comes from
an `fts5vocab` view of `facts_fts` (a temporary table: the file is not changed), words no fact holds
are dropped, and the queries go from narrow to broad: all the words together (AND), then without the
most common word, and so on down to the rarest word alone; only when that still finds too few does
an OR run, over the rarest words whose frequencies add up to at most `or_cap` documents. Each step
stops as soon as enough candidates are in hand.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator

from engine.providers.facts.text import match_all, match_any

_TOKENS = re.compile(r"\w+")
_VOCAB = "CREATE VIRTUAL TABLE IF NOT EXISTS temp.facts_fts_vocab USING fts5vocab(main, facts_fts, row)"


class TermFrequencies:
    """Document frequencies of words in `facts_fts`, cached until the connection writes again."""

    def __init__(self) -> None:
        self._cache: dict[str, int] = {}
        self._changes = -1

    def of(self, conn: sqlite3.Connection, word: str) -> int:
        """Facts holding `word` (for a word the tokenizer splits, its rarest part: an upper bound)."""
        if conn.total_changes != self._changes:
            self._cache.clear()
            self._changes = conn.total_changes
        if word not in self._cache:
            conn.execute(_VOCAB)  # once per connection in effect: it exists afterwards
            counts = [self._term(conn, token) for token in _TOKENS.findall(word)]
            self._cache[word] = min(counts) if counts else 0
        return self._cache[word]

    @staticmethod
    def _term(conn: sqlite3.Connection, token: str) -> int:
        row = conn.execute("SELECT doc FROM temp.facts_fts_vocab WHERE term = ?", (token,)).fetchone()
        return int(row[0]) if row is not None else 0


def rarest_first(
    conn: sqlite3.Connection, words: list[str], frequencies: TermFrequencies
) -> list[tuple[str, int]]:
    """The words some fact holds, with their frequencies, rarest first."""
    counted = [(word, frequencies.of(conn, word)) for word in words]
    return sorted((pair for pair in counted if pair[1] > 0), key=lambda pair: pair[1])


def match_plans(counted: list[tuple[str, int]], or_cap: int) -> Iterator[tuple[str, float]]:
    """MATCH expressions from narrowest to broadest, each with the share of the words it requires."""
    words = [word for word, _ in counted]
    for size in range(len(words), 0, -1):
        yield match_all(words[:size]), size / len(words)
    if len(words) > 1:
        chosen, total = [], 0
        for word, frequency in counted:
            if chosen and total + frequency > or_cap:
                break
            chosen.append(word)
            total += frequency
        if len(chosen) > 1:
            yield match_any(chosen), 1 / len(words)
