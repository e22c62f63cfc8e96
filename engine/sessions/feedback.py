"""A question's second pass: the rare words of its best hits, searched on their own.

Some questions join two messages that share no word with each other beyond a name: "what does
the friend Maya met at the pottery class do for a living?" finds the message telling of the
meeting ("...someone called Ines, we swapped numbers"), but the answer ("Ines works as a nurse
now") holds only the name. So the words of the best few hits that are rare in all history (a
name, a place, a product: few messages hold them, more than the hit itself) are searched in a
second pass, and both lists are fused by reciprocal rank, the first's hits winning ties: a
message found by both rises, and the second's best join the first's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from engine.sessions.fts import FtsIndex, FtsQueries, SearchHit, plain
from engine.sessions.query import STOPWORDS, ParsedQuery, quote
from engine.sessions.snippets import rough_stem

_WORD = re.compile(r"[^\W_]{3,}")
MAX_CANDIDATES = 24  # words of the best hits whose matches are counted
MAX_WORDS = 6  # rare words searched in the second pass
RRF_K = 60
KEEP = 3  # the first pass's best hits keep their places: a second pass may drift from the question


def candidates(texts: Sequence[str], query: ParsedQuery) -> list[str]:
    """Words of `texts` worth counting: not stopwords, numbers, nor the question's own words."""
    asked = {rough_stem(w) for term in query.terms for w in term.text.split()}
    out: dict[str, None] = {}
    for text in texts:
        for word in _WORD.findall(text.lower()):
            if word in STOPWORDS or word.isdigit() or rough_stem(word) in asked:
                continue
            out[word] = None
            if len(out) >= MAX_CANDIDATES:
                return list(out)
    return list(out)


def rare_words(q: FtsQueries, index: FtsIndex, words: Sequence[str], cap: int, deadline: float) -> list[str]:
    """The `words` found in more than one message and at most `cap` (in the order given)."""
    if not words or cap < 2:
        return []
    table = index.table
    one = f"SELECT ?, count(*) FROM (SELECT 1 FROM {table} WHERE {table} MATCH ? LIMIT ?)"
    params: list[object] = []
    for i, word in enumerate(words):
        params.extend((i, quote(word), cap + 1))
    rows = q.fetch(" UNION ALL ".join([one] * len(words)), params, deadline)
    counts = {int(i): int(n) for i, n in rows}
    return [w for i, w in enumerate(words) if 1 < counts.get(i, 0) <= cap][:MAX_WORDS]


def texts_of(q: FtsQueries, message_ids: Sequence[int]) -> list[str]:
    """The plain text of these messages, in the order given."""
    if not message_ids:
        return []
    marks = ",".join("?" * len(message_ids))
    rows = q.fetch(f"SELECT id, content FROM messages WHERE id IN ({marks})", list(message_ids))
    by_id = {int(i): plain(c) if c is not None else "" for i, c in rows}
    return [by_id.get(i, "") for i in message_ids]


def fuse(first: Sequence[SearchHit], second: Sequence[SearchHit], limit: int) -> list[SearchHit]:
    """The first list's best `KEEP` hits, then the rest of both fused by reciprocal rank.

    A message in both keeps the first list's hit (its snippet). The scores stay the first list's,
    rank for rank, so they remain comparable with other searches' (conversations are ranked by
    their hits' scores).
    """
    kept = list(first[:KEEP])
    held = {hit.message_id for hit in kept}
    scores: dict[int, float] = {}
    rows: dict[int, SearchHit] = {}
    for hits in (first, second):
        for rank, hit in enumerate(hits):
            if hit.message_id in held:
                continue
            scores[hit.message_id] = scores.get(hit.message_id, 0.0) + 1.0 / (RRF_K + rank + 1)
            rows.setdefault(hit.message_id, hit)
    ordered = kept + [rows[m] for m in sorted(scores, key=lambda m: -scores[m])]
    ordered = ordered[:limit]
    floor = first[-1].score if first else 0.0
    return [
        hit._replace(score=first[rank].score if rank < len(first) else floor)
        for rank, hit in enumerate(ordered)
    ]
