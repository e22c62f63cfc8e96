"""Turning whatever a user or a model types into a query FTS5 accepts.

Nothing typed is passed to FTS5 as syntax: the text is split into terms here, and every term
reaches FTS5 as a double-quoted string, so quotes, hyphens, dots, `*`, `:`, `^`, parentheses,
stray `AND`/`OR`/`NOT` and punctuation can never make the query invalid. Two modes:

- a question or a bag of words (the normal case, "When did Dana start the pottery class?"):
  stopwords are dropped and the remaining terms are joined with OR, so bm25 ranks messages by
  how many rare terms they hold; the porter tokenizer of the index matches word stems;
- explicit operators in capitals (`docker AND compose NOT swarm`): kept as typed, with dangling
  ones dropped and `AND` between bare neighbours.

In both modes `"quoted words"` are exact phrases, dotted, hyphenated and underscored names
(`node.js`, `docker-compose`) are phrases of their parts, and a trailing `*` asks for a prefix.
Terms holding CJK (or other unspaced scripts) are flagged: they are searched as substrings in
the trigram index, because the word index keeps an unbroken CJK run as one token.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

MAX_QUERY_CHARS = 2048
MAX_TERMS = 24
# Unquoted CJK runs longer than this are split into overlapping 3-character pieces in question
# mode, so a whole CJK sentence finds messages sharing its words instead of requiring all of it.
LONG_CJK_RUN = 5

# Code point ranges searched through the trigram index: kana, CJK ideographs (with extension A
# and compatibility forms), hangul, and the Thai/Lao/Khmer/Myanmar scripts written without spaces.
CJK_RANGES: tuple[tuple[int, int], ...] = (
    (0x0E00, 0x0EFF),
    (0x1000, 0x109F),
    (0x1780, 0x17FF),
    (0x3040, 0x30FF),
    (0x3400, 0x4DBF),
    (0x4E00, 0x9FFF),
    (0xAC00, 0xD7AF),
    (0xF900, 0xFAFF),
    (0xFF66, 0xFF9F),
)
_CJK_CLASS = "".join(f"{chr(lo)}-{chr(hi)}" for lo, hi in CJK_RANGES)
CJK_RE = re.compile(f"[{_CJK_CLASS}]")

# A token is a run of letters, marks and digits, as SQLite's unicode61 tokenizer sees it.
_TOKEN_RE = re.compile(r"[^\W_]+", re.UNICODE)
_QUOTES = str.maketrans({"“": '"', "”": '"', "„": '"', "‟": '"', "«": '"', "»": '"', "＂": '"'})
_APOSTROPHES = re.compile(r"(?<=\w)['’]s\b", re.IGNORECASE)
_OPERATORS = frozenset({"AND", "OR", "NOT"})

_STOPWORD_TEXT = """
a about above after again against all am an and any are aren as at be because been before being
below between both but by can cannot could couldn did didn do does doesn doing don down during each
few for from further had hadn has hasn have haven having he her here hers herself him himself his
how i if in into is isn it its itself just let ll me might more most must mustn my myself no nor not
now of off on once only or other ought our ours ourselves out over own re same shall shan she should
shouldn so some such than that the their theirs them themselves then there these they this those
through to too under until up upon us ve very was wasn we were weren what when where which while who
whom whose why will with won would wouldn you your yours yourself yourselves also ago anyone
anything around back did does done ever get gets getting got know like make many much never please
really recall recently remember said say says see seem something tell thing things think time told
try want was way well went whatever whenever yet yes ok okay hi hello thanks s t d m o y
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())


def is_cjk(text: str) -> bool:
    """True when `text` holds a character of a script written without spaces between words."""
    return CJK_RE.search(text) is not None


def quote(text: str) -> str:
    """`text` as an FTS5 string literal: double quotes around it, inner quotes doubled."""
    return '"' + text.replace('"', '""') + '"'


@dataclass(frozen=True)
class Term:
    """One searchable unit: a word, a phrase of adjacent words, or a CJK substring."""

    text: str  # the words separated by spaces, lowercased; or the CJK substring as typed
    phrase: bool = False  # several words that must be adjacent
    prefix: bool = False
    quoted: bool = False
    cjk: bool = False

    def fts(self) -> str:
        """The term in FTS5 syntax; always valid, whatever characters it holds."""
        if not self.prefix:
            return quote(self.text)
        # The porter tokenizer stems a prefix too ("deploy" -> "deploi"), which would miss
        # "deployment" (stem "deploy"): a prefix of five letters or more loses its last one.
        text = self.text
        if len(text) >= 5 and not self.cjk and text[-1].isalpha():
            text = text[:-1]
        return quote(text) + " *"


@dataclass(frozen=True)
class ParsedQuery:
    """The terms of a query and how they combine; `expression()` gives the FTS5 text."""

    raw: str
    terms: tuple[Term, ...]
    operators: tuple[str, ...] = ()  # boolean mode: the operator before each term after the first
    boolean: bool = False
    dropped: tuple[str, ...] = field(default=())  # stopwords left out in question mode

    @property
    def empty(self) -> bool:
        return not self.terms

    def expression(self, terms: tuple[Term, ...] | None = None) -> str:
        """FTS5 text for `terms` (default: all): joined by OR, or by the typed operators."""
        chosen = self.terms if terms is None else terms
        if not chosen:
            return ""
        if not self.boolean or terms is not None:
            return " OR ".join(t.fts() for t in chosen)
        parts = [chosen[0].fts()]
        for op, term in zip(self.operators, chosen[1:], strict=True):
            parts.append(f"{op} {term.fts()}")
        return " ".join(parts)

    @property
    def all_and(self) -> bool:
        """Boolean mode with AND only: every term is required."""
        return self.boolean and all(op == "AND" for op in self.operators)


def normalise(text: str) -> str:
    """NFKC (full-width forms to plain ones), curly quotes to straight, control characters out."""
    text = text[:MAX_QUERY_CHARS]
    if text.isascii() and text.isprintable():
        return text
    text = unicodedata.normalize("NFKC", text).translate(_QUOTES)
    return "".join(ch if ch.isprintable() else " " for ch in text)


def _word_terms(chunk: str, quoted: bool) -> list[Term]:
    """Terms from one whitespace-free chunk (or one quoted phrase when `quoted`)."""
    prefix = False
    if not quoted:
        stripped = chunk.rstrip(".,;:!?)]}'\"")
        prefix = stripped.endswith("*") and bool(_TOKEN_RE.search(stripped))
    if is_cjk(chunk):
        if quoted:
            text = " ".join(chunk.split())
            return [Term(text=text, phrase=True, quoted=True, cjk=True)] if text else []
        # Unquoted: each run of letters/digits holding CJK is a substring term; other runs are words.
        out = []
        for token in _TOKEN_RE.findall(chunk):
            token = token.lower()
            out.append(Term(text=token, cjk=is_cjk(token)))
        return out
    chunk = _APOSTROPHES.sub("", chunk)
    tokens = [t.lower() for t in _TOKEN_RE.findall(chunk)]
    if not tokens:
        return []
    return [Term(text=" ".join(tokens), phrase=len(tokens) > 1, prefix=prefix, quoted=quoted)]


def _split_long_cjk(term: Term) -> list[Term]:
    """An unquoted CJK run past LONG_CJK_RUN characters becomes its overlapping 3-grams."""
    if term.quoted or not term.cjk or len(term.text) <= LONG_CJK_RUN:
        return [term]
    pieces = [term.text[i : i + 3] for i in range(len(term.text) - 2)]
    return [Term(text=p, cjk=True) for p in dict.fromkeys(pieces)]


def parse(text: str) -> ParsedQuery:
    """Parse free text into terms; the result always yields a valid FTS5 expression (or none)."""
    raw = text
    text = normalise(text or "")
    items: list[Term | str] = []
    # Balanced quotes make phrases; a lone quote left over is ignored like other punctuation.
    pieces = re.split(r'("[^"]*")', text)
    for piece in pieces:
        if len(piece) >= 2 and piece.startswith('"') and piece.endswith('"'):
            items.extend(_word_terms(piece[1:-1], quoted=True))
            continue
        for chunk in piece.replace('"', " ").split():
            if chunk in _OPERATORS:
                items.append(chunk)
            else:
                items.extend(_word_terms(chunk, quoted=False))
    if any(isinstance(item, str) for item in items):
        return _boolean(raw, items)
    return _question(raw, [item for item in items if isinstance(item, Term)])


def _question(raw: str, terms: list[Term]) -> ParsedQuery:
    kept: list[Term] = []
    dropped: list[str] = []
    for term in terms:
        droppable = not term.quoted and not term.phrase and not term.prefix and not term.cjk
        if droppable and (term.text in STOPWORDS or (len(term.text) == 1 and not term.text.isdigit())):
            dropped.append(term.text)
        else:
            kept.extend(_split_long_cjk(term))
    if not kept:  # a query made only of stopwords still searches for them
        kept = [t for t in terms if t.text]
        dropped = []
    unique = tuple(dict.fromkeys(kept))[:MAX_TERMS]
    return ParsedQuery(raw=raw, terms=unique, dropped=tuple(dropped))


def _boolean(raw: str, items: list[Term | str]) -> ParsedQuery:
    terms: list[Term] = []
    operators: list[str] = []
    pending: str | None = None
    for item in items:
        if isinstance(item, str):
            if terms:  # an operator before any term is dangling; a later one replaces an earlier one
                pending = item
            continue
        if terms:
            operators.append(pending or "AND")
        terms.append(item)
        pending = None
    terms, operators = terms[:MAX_TERMS], operators[: max(0, MAX_TERMS - 1)]
    if len(terms) <= 1 or all(op == "OR" for op in operators):
        return _question(raw, terms) if len(terms) > 1 else ParsedQuery(raw=raw, terms=tuple(terms))
    return ParsedQuery(raw=raw, terms=tuple(terms), operators=tuple(operators), boolean=True)
