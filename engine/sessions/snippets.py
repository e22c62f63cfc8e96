"""Snippets: a short window of a message around the first hit, each hit marked `>>>like this<<<`.

Made in Python from the message text rather than by FTS5's `snippet()`, which re-tokenizes every
returned message inside SQLite (about 15 µs each, the largest cost of a cheap search). Words are
matched by a rough stem (`started` and `starts` for `start`), close to what the porter index
matched; CJK terms as plain substrings.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from engine.sessions.query import Term

OPEN, CLOSE, ELLIPSIS = ">>>", "<<<", "..."
WIDTH = 80  # characters either side of the first hit
_SUFFIXES = ("ations", "ation", "ings", "ing", "ies", "ied", "es", "ed", "ly", "s", "e", "y")


def rough_stem(word: str) -> str:
    """`word` without one common English suffix, keeping at least four letters."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


class Highlighter:
    """Marks a query's terms in message text; built once per search."""

    def __init__(self, terms: Sequence[Term]) -> None:
        parts: list[str] = []
        for term in terms:
            if term.cjk:
                parts.append(re.escape(term.text))
                continue
            words = term.text.split()
            if not words:
                continue
            patterns = [re.escape(rough_stem(w)) + r"\w*" for w in words]
            parts.append(r"\b" + r"\W+".join(patterns))
        parts.sort(key=len, reverse=True)
        self.pattern = re.compile("|".join(parts), re.IGNORECASE) if parts else None

    def snippet(self, text: str, width: int = WIDTH) -> str:
        """A window of `text` around the first hit (or its start), hits marked, whitespace collapsed."""
        first = self.pattern.search(text) if self.pattern else None
        if first is None:
            head = text[: 2 * width]
            return " ".join(head.split()) + (ELLIPSIS if len(text) > len(head) else "")
        start, end = max(0, first.start() - width), min(len(text), first.end() + width)
        if start:
            space = text.find(" ", start, first.start())
            start = space + 1 if space >= 0 else start
        if end < len(text):
            space = text.rfind(" ", first.end(), end)
            end = space if space >= 0 else end
        window = text[start:end]
        assert self.pattern is not None
        marked = self.pattern.sub(lambda m: f"{OPEN}{m.group(0)}{CLOSE}", window)
        return (ELLIPSIS if start else "") + " ".join(marked.split()) + (ELLIPSIS if end < len(text) else "")
