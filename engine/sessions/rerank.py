"""Reordering a question's candidates by how much of the question each one holds.

FTS5's bm25 divides a word's weight by the message's length, so in a chat a short aside that
repeats two of the question's common words ("a pottery class sounds fun") outranks the longer
message that tells of the event and holds the rare word that makes it unique (the town, the
name). The planner therefore reads a wider pool of bm25's best, and this scores each by the
summed rarity (IDF) of the distinct question terms it holds, plus a bonus when two of them stand
close together; bm25's order only breaks ties. Words are matched by a rough stem, as snippets are.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Mapping, Sequence

from engine.sessions.fts import SearchHit
from engine.sessions.query import Term
from engine.sessions.snippets import rough_stem

NEAR_WORDS = 4  # two question terms at most this many words apart count as close together
NEAR_SHARE = 0.25  # the bonus for a close pair, as a share of the rarer term's weight
BM25_SHARE = 0.02  # how much bm25's own order (by rank) weighs against the terms held


class Reranker:
    """Scores candidate messages of one question; built once per search."""

    def __init__(self, terms: Sequence[Term], counts: Mapping[str, float], total: int) -> None:
        # (first stem, the whole term's pattern or None for one word, weight)
        self.terms: list[tuple[str, re.Pattern[str] | None, float]] = []
        for term in terms:
            if term.cjk:
                continue
            stems = [rough_stem(w) for w in term.text.split()]
            pattern = None
            if len(stems) > 1:
                pattern = re.compile(r"(?<!\w)" + r"\W+".join(re.escape(stem) + r"\w*" for stem in stems))
            self.terms.append((stems[0], pattern, idf(counts.get(term.text, 1.0), total)))
        self.scale = sum(weight for _stem, _pattern, weight in self.terms)

    @property
    def useful(self) -> bool:
        return len(self.terms) >= 2

    def score(self, text: str) -> float:
        """Summed weight of the terms `text` holds, plus the bonus of close pairs."""
        lowered = text.lower()
        held = 0.0
        places: list[tuple[int, float]] = []
        for stem, pattern, weight in self.terms:
            at = _word_start(lowered, stem) if pattern is None else _search(pattern, lowered)
            if at < 0:
                continue
            held += weight
            places.append((lowered.count(" ", 0, at), weight))
        places.sort()
        for (a, wa), (b, wb) in itertools.pairwise(places):
            if b - a <= NEAR_WORDS:
                held += NEAR_SHARE * min(wa, wb)
        return held

    def order(self, rows: Sequence[SearchHit]) -> list[SearchHit]:
        """`rows` (best first by bm25) reordered by the question terms each holds."""
        top = max(1, len(rows))
        scored = [
            (self.score(row.snippet) + BM25_SHARE * (top - rank) / top * self.scale, rank, row)
            for rank, row in enumerate(rows)
        ]
        scored.sort(key=lambda item: (-item[0], item[1]))
        return [row._replace(score=score) for score, _rank, row in scored]


def idf(count: float, total: int) -> float:
    """bm25's inverse document frequency of a term found in `count` of `total` messages."""
    return math.log(1.0 + (max(total, 1) - count + 0.5) / (count + 0.5))


def _word_start(text: str, stem: str) -> int:
    """Where `stem` first begins a word of `text`, or -1."""
    at = text.find(stem)
    while at > 0 and text[at - 1].isalnum():
        at = text.find(stem, at + 1)
    return at


def _search(pattern: re.Pattern[str], text: str) -> int:
    match = pattern.search(text)
    return -1 if match is None else match.start()
