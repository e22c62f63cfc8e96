"""Snippets: a short window of a message around the first hit, each hit marked `>>>like this<<<`.

Made in Python from the message text rather than by FTS5's `snippet()`, which re-tokenizes every
returned message inside SQLite (about 15 µs each, the largest cost of a cheap search). Words are
matched by a rough stem (`started` and `starts` for `start`), close to what the porter index
matched; CJK terms as plain substrings.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from engine.sessions.query import Term, is_cjk

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
        anchors: list[str] = []
        for term in terms:
            if term.cjk:
                parts.append(re.escape(term.text.lower()))
                anchors.append(term.text.lower())
                continue
            stems = [rough_stem(w) for w in term.text.split()]
            if stems:
                parts.append(r"\W+".join(re.escape(stem) + r"\w*" for stem in stems))
                anchors.append(stems[0])
        parts.sort(key=len, reverse=True)
        # Matched case-sensitively on lowercased text and without `\b` (both would cost the regex
        # its fast literal-prefix scan); a word match not at the start of a word is skipped instead.
        self.pattern = re.compile("|".join(parts)) if parts else None
        # Plain substrings found with str.find first: far faster than any regex on a whole message,
        # which then only runs on the short window around the first of them.
        self.anchors = tuple(dict.fromkeys(anchors))

    def snippet(self, text: str, width: int = WIDTH) -> str:
        """A window of `text` around the first hit (or its start), hits marked, whitespace collapsed."""
        lowered = text.lower()
        if len(lowered) != len(text):  # a few characters lowercase to two; keep offsets aligned
            lowered = "".join(ch.lower()[0] for ch in text)
        first = -1
        for anchor in self.anchors:
            at = lowered.find(anchor)
            if at >= 0 and (at < first or first < 0):
                first = at
        size = len(text)
        if first < 0 or self.pattern is None:
            head = text[: 2 * width]
            return _collapse(head) + (ELLIPSIS if size > len(head) else "")
        start, end = first - width, first + width
        if start > 0:
            space = text.find(" ", start, first)
            start = space + 1 if space >= 0 else start
        else:
            start = 0
        if end < size:
            space = text.rfind(" ", first, end)
            end = space if space > first else end
        else:
            end = size
        marked = _collapse(self._mark(text, lowered, start, end))
        return (ELLIPSIS if start else "") + marked + (ELLIPSIS if end < size else "")

    def _mark(self, text: str, lowered: str, start: int, end: int) -> str:
        assert self.pattern is not None
        pieces: list[str] = []
        last = start
        for match in self.pattern.finditer(lowered, start, end):
            at, stop = match.span()
            if at and lowered[at - 1].isalnum() and not is_cjk(lowered[at]):
                continue  # inside a word: "class" in "subclass"
            pieces += (text[last:at], OPEN, text[at:stop], CLOSE)
            last = stop
        if not pieces:
            return text[start:end]
        pieces.append(text[last:end])
        return "".join(pieces)


def _collapse(text: str) -> str:
    """`text` with each run of whitespace made one space, and none at either end."""
    if "  " in text or "\n" in text or not text.isprintable():
        # isprintable() is False for every whitespace character but the plain space.
        return " ".join(text.split())
    return text.strip()
