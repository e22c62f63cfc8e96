"""A synthetic `state.db` of the shape issue 4 measures: sessions of messages of ~300 characters.

Words follow a Zipf law over a 30,000-word made-up vocabulary (so a few words are in most
messages and most words are rare, as in real text); 5 % of the messages carry planted CJK text
drawn from 400 made-up Chinese words. The same seed gives the same database.
"""

from __future__ import annotations

import bisect
import itertools
import random
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from engine.config import defaults
from engine.sessions import upkeep

_SYLLABLE_TEXT = "ka to ri mel van dor sil pra nu ex qua lin bo ter zen mo ga fi ros tel un am ber co dy ish"
_SYLLABLES = _SYLLABLE_TEXT.split()
HANZI = (
    "的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之过家学对可她里后小么心多天而"
    "能好都然没日于起还发成事只作当想看文无开手十用主行方又如前所本见经头面公同三已老从动两长知民样现分将外但身些与高意"
    "进把法此实回二理美点月明其种声全工己话儿者向情部正名定女问力机给等几很业最间新什打便位因重被走电四第门相次东政海口"
    "使教西再平真听世气信北少关并内加化由却代军产入先山五太水万市眼体别处总才场师书比住员九笑性通目华报立马命张活难神数"
)


@dataclass
class Corpus:
    """The generator's vocabulary, so benchmarks can pick rare, medium and common words."""

    words: list[str]
    cjk_words: list[str]


def make_corpus(seed: int = 7) -> Corpus:
    rng = random.Random(seed)
    words: set[str] = set()
    while len(words) < 30_000:
        words.add("".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 4))))
    ordered = sorted(words)
    rng.shuffle(ordered)
    cjk = ["".join(rng.choice(HANZI) for _ in range(rng.randint(2, 4))) for _ in range(400)]
    return Corpus(words=ordered, cjk_words=cjk)


def messages(corpus: Corpus, count: int, seed: int = 11, cjk_share: float = 0.05) -> Iterator[str]:
    """`count` message texts of 200-400 characters."""
    rng = random.Random(seed)
    cumulative = list(itertools.accumulate(1.0 / (i + 1) for i in range(len(corpus.words))))
    total = cumulative[-1]
    cjk_cum = list(itertools.accumulate(1.0 / (i + 1) ** 0.8 for i in range(len(corpus.cjk_words))))
    cjk_total = cjk_cum[-1]
    for _ in range(count):
        target = rng.randint(200, 400)
        parts: list[str] = []
        length = 0
        while length < target:
            word = corpus.words[bisect.bisect(cumulative, rng.random() * total)]
            parts.append(word)
            length += len(word) + 1
        if rng.random() < cjk_share:
            run = "".join(
                corpus.cjk_words[bisect.bisect(cjk_cum, rng.random() * cjk_total)]
                for _ in range(rng.randint(1, 4))
            )
            parts.insert(rng.randint(0, len(parts)), run + "。")
        yield " ".join(parts)


def fill(
    path: Path,
    sessions: int,
    per_session: int,
    corpus: Corpus,
    seed: int = 11,
    upkeep_ms: list[float] | None = None,
) -> int:
    """Add `sessions` x `per_session` messages to a created store, one transaction per message.

    One commit per message is how the store writes, and it shapes the FTS index (one segment per
    commit, merged as it grows), so the figures are those of a database grown message by message.
    After each session the index upkeep a closing store runs is run with the default settings, as
    when `hws run` closes the store after its session; its times go to `upkeep_ms`.
    """
    settings = defaults().sessions
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA synchronous = NORMAL")
    texts = messages(corpus, sessions * per_session, seed=seed)
    start = time.time() - sessions * 3600
    written = 0
    try:
        for s in range(sessions):
            began = start + s * 3600
            session_id = f"{time.strftime('%Y%m%d_%H%M%S', time.localtime(began))}_{s:06x}"
            conn.execute(
                "INSERT INTO sessions (id, source, started_at, ended_at, end_reason, title, message_count) "
                "VALUES (?, 'cli', ?, ?, 'user_exit', ?, ?)",
                (session_id, began, began + 1800, f"Session {s}", per_session),
            )
            for m in range(per_session):
                conn.execute(
                    "INSERT INTO messages (session_id, role, content, timestamp) VALUES (?, ?, ?, ?)",
                    (session_id, "user" if m % 2 == 0 else "assistant", next(texts), began + m * 30),
                )
                written += 1
            began_upkeep = time.perf_counter()
            upkeep.tidy(
                conn,
                float(settings["index_upkeep_ms"]) / 1000,
                max_segments=int(settings["index_max_segments"]),
                pages=int(settings["index_merge_pages"]),
            )
            if upkeep_ms is not None:
                upkeep_ms.append((time.perf_counter() - began_upkeep) * 1000)
    finally:
        conn.close()
    return written
