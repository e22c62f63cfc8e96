"""Token counts that work offline: exact (cl100k via toktok, loaded lazily) and a fast estimate."""

from __future__ import annotations

import functools
import threading
from collections.abc import Sequence

ENCODING = "cl100k_base"

_LOADING = threading.Lock()


@functools.cache
def _counter() -> object | None:
    """toktok with the vocabulary loaded: once per process, by one thread while the others wait.

    Loading it takes about 100 ms and holds the interpreter all along (no other thread runs, the
    workstation's screen included); two threads counting for the first time at once each loaded it.
    """
    with _LOADING:
        try:
            import toktok
        except ImportError:  # the estimate below is close enough to keep everything working
            return None
        toktok.batch_count([""], ENCODING)
        return toktok


def estimate(text: str) -> int:
    """A cheap size estimate, the same rough rule Hermes uses: (chars + 3) // 4."""
    return (len(text) + 3) // 4


def count(text: str) -> int:
    """Exact tokens of `text` in the cl100k encoding (the first call loads the vocabulary)."""
    if not text:
        return 0
    toktok = _counter()
    if toktok is None:
        return estimate(text)
    return int(toktok.batch_count([text], ENCODING)[0])  # type: ignore[attr-defined]


def count_many(texts: Sequence[str]) -> list[int]:
    """Exact tokens of each text, counted in one batch."""
    toktok = _counter()
    if toktok is None:
        return [estimate(t) for t in texts]
    return [int(n) for n in toktok.batch_count(list(texts), ENCODING)]  # type: ignore[attr-defined]


def truncate(text: str, max_tokens: int) -> str:
    """The longest prefix of `text` that fits in `max_tokens`."""
    if max_tokens <= 0:
        return ""
    toktok = _counter()
    if toktok is None:
        return text[: max_tokens * 4]
    cut, _total = toktok.truncate(text, max_tokens, ENCODING)  # type: ignore[attr-defined]
    return str(cut)
