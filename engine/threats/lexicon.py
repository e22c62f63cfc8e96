"""The vocabularies of `threat_vocab`, compiled for fast look-up: which concepts each word of a text holds.

A text is split into words once; each word is looked up whole, then by its prefixes (for stems such
as `instruct*`), and the phrases that start with it are checked where it stands. Words of scripts
written without spaces (Chinese, Japanese, Korean, Devanagari) are found by one regex over the text,
run only when the text holds such letters. Hebrew and Arabic words are also looked up without the
one-letter prefixes those languages attach (`ה`, `ו`, `ל`, `ال`, …). Entries of three letters or fewer
are matched with their accents (`tự`, `tú`, `tu` are different words), the others without.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from engine.threats.normalise import fold_for_matching, keep_accents
from engine.threats.vocab import VOCABULARY

SHORT_ENTRY = 3
_WORD = re.compile(r"\w+")
_UNSPACED = re.compile("[\u0900-\u097f\u1100-\u11ff\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]")
_HEBREW_PREFIXES = frozenset("ובהלמשכ")
_ARABIC_PREFIXES = ("وال", "بال", "لل", "ال", "و", "ب", "ل", "ف", "ك")
_GAP = r"(?:\s+\S+){0,6}?\s+"
_SPACES = re.compile(r"\s+")

Hit = tuple[str, int, int]  # (concept, start, end)


@dataclass
class _Table:
    exact: dict[str, set[str]] = field(default_factory=dict)
    stems: dict[str, set[str]] = field(default_factory=dict)
    phrases: dict[str, list[tuple[str, str]]] = field(default_factory=dict)  # first word -> (concept, regex)
    stem_phrases: dict[str, list[tuple[str, str]]] = field(default_factory=dict)


@dataclass(frozen=True)
class Lexicon:
    """Every concept's entries from every language, ready to look words up in."""

    exact: dict[str, frozenset[str]]
    stems: dict[str, frozenset[str]]
    phrases: dict[str, tuple[tuple[str, re.Pattern[str]], ...]]
    stem_phrases: dict[str, tuple[tuple[str, re.Pattern[str]], ...]]
    stem_lengths: tuple[int, ...]  # the lengths stems and stem phrases have, longest first
    short: dict[str, frozenset[str]]  # short words, with their accents
    unspaced: re.Pattern[str] | None
    unspaced_concepts: dict[str, frozenset[str]]

    def hits(self, view: str, accented: str) -> list[Hit]:
        """(concept, start, end) of every entry in `view` (folded); `accented` is the same text, aligned,
        with its accents (for the short entries)."""
        found: list[Hit] = []
        for m in _WORD.finditer(view):
            start, end = m.span()
            word = m.group()
            self._word(view, word, start, end, found)
            if end - start <= SHORT_ENTRY:
                for concept in self.short.get(accented[start:end], ()):
                    found.append((concept, start, end))
            if word[0] >= "\u0590":
                for skip, rest in _without_prefix(word):
                    self._word(view, rest, start + skip, end, found)
                    for concept in self.short.get(accented[start + skip : end], ()):
                        found.append((concept, start + skip, end))
        if self.unspaced is not None and _UNSPACED.search(view):
            for m in self.unspaced.finditer(view):
                for concept in self.unspaced_concepts.get(_SPACES.sub("", m.group()), ()):
                    found.append((concept, m.start(), m.end()))
        return found

    def _word(self, view: str, word: str, start: int, end: int, found: list[Hit]) -> None:
        for concept in self.exact.get(word, ()):
            found.append((concept, start, end))
        for concept, regex in self.phrases.get(word, ()):
            m = regex.match(view, start)
            if m:
                found.append((concept, start, m.end()))
        size = len(word)
        for length in self.stem_lengths:
            if length > size:
                continue
            prefix = word[:length]
            for concept in self.stems.get(prefix, ()):
                found.append((concept, start, end))
            for concept, regex in self.stem_phrases.get(prefix, ()):
                m = regex.match(view, start)
                if m:
                    found.append((concept, start, m.end()))


def _without_prefix(word: str) -> list[tuple[int, str]]:
    """The word without each one-letter prefix (Hebrew, up to three) or article (Arabic) it may carry."""
    out = []
    if "\u0590" <= word[0] <= "\u05ff":
        for skip in range(1, min(3, len(word) - 2) + 1):
            if word[skip - 1] not in _HEBREW_PREFIXES:
                break
            out.append((skip, word[skip:]))
    elif "\u0600" <= word[0] <= "\u06ff":
        for prefix in _ARABIC_PREFIXES:
            if word.startswith(prefix) and len(word) > len(prefix) + 2:
                out.append((len(prefix), word[len(prefix) :]))
    return out


def _phrase_regex(entry: str) -> str:
    parts: list[str] = []
    words = entry.split()
    for index, word in enumerate(words):
        if word == "...":
            parts.append(_GAP)
            continue
        if index and words[index - 1] != "...":
            parts.append(r"\s+")
        parts.append(re.escape(word.rstrip("*")) + (r"\w*" if word.endswith("*") else ""))
    regex = "".join(parts)
    return regex if entry.endswith("*") else regex + r"(?!\w)"


def _add(table: _Table, concept: str, entry: str) -> None:
    first = entry.split()[0]
    key_match = _WORD.match(first)
    if key_match is None:
        return
    key = key_match.group()
    single = " " not in entry and key_match.end() == len(first.rstrip("*"))
    if single and not first.endswith("*"):
        table.exact.setdefault(key, set()).add(concept)
    elif single:
        table.stems.setdefault(key, set()).add(concept)
    elif key_match.end() < len(first.rstrip("*")) or not first.endswith("*"):
        table.phrases.setdefault(key, []).append((concept, _phrase_regex(entry)))
    else:  # a phrase whose first word is a stem
        table.stem_phrases.setdefault(key, []).append((concept, _phrase_regex(entry)))


@functools.cache
def lexicon() -> Lexicon:
    """The compiled vocabularies (built on first use: importing the scanner stays cheap)."""
    table = _Table()
    short: dict[str, set[str]] = {}
    unspaced: dict[str, set[str]] = {}
    for concepts in VOCABULARY.values():
        for concept, entries in concepts.items():
            for raw in entries.split("|"):
                raw = raw.strip()
                entry = fold_for_matching(raw)
                if not entry:
                    continue
                if _UNSPACED.search(entry):
                    unspaced.setdefault(entry, set()).add(concept)
                elif len(entry) <= SHORT_ENTRY and _WORD.fullmatch(entry):
                    short.setdefault(keep_accents(raw), set()).add(concept)
                else:
                    _add(table, concept, entry)
    pattern = None
    if unspaced:
        alternatives = sorted(unspaced, key=len, reverse=True)
        pattern = re.compile("|".join(re.escape(a).replace(r"\ ", r"\s*") for a in alternatives))
    return Lexicon(
        {k: frozenset(v) for k, v in table.exact.items()},
        {k: frozenset(v) for k, v in table.stems.items()},
        {k: tuple((c, re.compile(r)) for c, r in v) for k, v in table.phrases.items()},
        {k: tuple((c, re.compile(r)) for c, r in v) for k, v in table.stem_phrases.items()},
        tuple(sorted({len(k) for k in (*table.stems, *table.stem_phrases)}, reverse=True)),
        {k: frozenset(v) for k, v in short.items()},
        pattern,
        {_SPACES.sub("", k): frozenset(v) for k, v in unspaced.items()},
    )
