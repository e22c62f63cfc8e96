"""Plain-text claims: cut prose into sentences, reduce them to content words, and compare them.

Shared by the identity view (SOUL.md against the AI peer, USER.md against the user peer) and the
local Honcho test server's deriver. Deliberately simple and deterministic: no model, no network.
"""

from __future__ import annotations

import re

_STOP_TEXT = """
a an the and or but if then so of to in on at by for with from as is are was were be been being
it its this that these those there here you your yours i me my we our us he she they them their his
her do does did doing have has had having can could will would shall should may might must not no
never dont doesnt didnt isnt arent wont cant just very also more most much many any some all each
what which who whom when where why how than too about into over under again only own same such
user users assistant agent hermes peer person use uses used using
"""
_NEGATION_TEXT = "no not never dont doesnt didnt isnt arent wont cant avoid avoids without nothing"
STOPWORDS = frozenset(_STOP_TEXT.split())
NEGATIONS = frozenset(_NEGATION_TEXT.split())
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[]?[A-Z0-9])")
_WORD = re.compile(r"[a-z0-9]+(?:[-'][a-z0-9]+)*")
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_MARKUP = re.compile(r"[*_`>#]+")


def sentences(text: str) -> list[str]:
    """Sentences of prose or markdown: headings dropped, bullets and numbered items kept as one each."""
    out: list[str] = []
    paragraph: list[str] = []

    def flush() -> None:
        if paragraph:
            joined = " ".join(paragraph)
            out.extend(part.strip() for part in _SENTENCE_END.split(joined) if part.strip())
            paragraph.clear()

    for raw in text.splitlines():
        line = raw.strip()
        label = line.endswith(":") and len(line.split()) <= 8  # "Explicit observations about ana:"
        if not line or line.startswith("#") or label or set(line) <= set("-=═*_§"):
            flush()
            continue
        if _BULLET.match(line):
            flush()
            paragraph.append(_BULLET.sub("", line))
            continue
        paragraph.append(line)
    flush()
    cleaned = (_MARKUP.sub("", sentence).strip() for sentence in out)
    return [sentence for sentence in cleaned if len(content_words(sentence)) >= 1]


def sections(text: str) -> list[tuple[str, str]]:
    """Markdown cut at its headings: (heading text, body) pairs; text before any heading has ""."""
    out: list[tuple[str, list[str]]] = [("", [])]
    for line in text.splitlines():
        if line.lstrip().startswith("#"):
            out.append((line.strip().lstrip("#").strip(), []))
        else:
            out[-1][1].append(line)
    return [(heading, "\n".join(body)) for heading, body in out if heading or any(b.strip() for b in body)]


def without_evidence(text: str) -> str:
    """A claim without its parenthesised evidence ("(in 3 of 5 messages)")."""
    return re.sub(r"\s*\([^)]*\)", "", text).strip()


def _stem(word: str) -> str:
    for suffix, keep in (("ies", "y"), ("ing", ""), ("ed", ""), ("s", "")):
        if word.endswith(suffix) and not word.endswith("ss") and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)] + keep
    return word


def words(text: str) -> list[str]:
    """Lower-case words with apostrophes folded ("don't" becomes "dont")."""
    return [w.replace("'", "") for w in _WORD.findall(text.lower().replace("’", "'"))]


def content_words(text: str) -> frozenset[str]:
    """The stemmed words that carry meaning: stopwords and negations removed."""
    return frozenset(
        _stem(w) for w in words(text) if w not in STOPWORDS and w not in NEGATIONS and len(w) > 1
    )


def negated(text: str) -> bool:
    """True when the sentence says something is not so, or is to be avoided."""
    return any(w in NEGATIONS for w in words(text))


_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9.'’-]*[A-Za-z0-9]|[A-Za-z0-9]")


def specifics(text: str) -> frozenset[str]:
    """Names and numbers in a sentence (`Lisbon`, `3.11`, `Go`), lower-cased: what makes it particular.

    A capitalised word counts unless it opens the sentence or is a stopword ("I"); any token with a
    digit counts. Two claims about the same thing that name different specifics disagree.
    """
    found: set[str] = set()
    for index, match in enumerate(_TOKEN.finditer(text)):
        token = match.group().replace("’", "'")
        lowered = token.lower().replace("'", "")
        named = index > 0 and token[0].isupper() and lowered not in STOPWORDS | NEGATIONS
        if named or any(ch.isdigit() for ch in token):
            found.add(lowered)
    return frozenset(found)


def different_specifics(a: str, b: str) -> bool:
    """True when each sentence names something the other does not (Lisbon against Porto)."""
    left, right = specifics(a), specifics(b)
    return bool(left - right) and bool(right - left)


def overlap(a: str, b: str) -> float:
    """Share of the smaller sentence's content words that the other one also has (0..1)."""
    left, right = content_words(a), content_words(b)
    if not left or not right:
        return 0.0
    return len(left & right) / min(len(left), len(right))


def rank_by_overlap(query: str, candidates: list[str]) -> list[tuple[float, str]]:
    """Candidates sorted by how many of the query's content words they share, best first."""
    wanted = content_words(query)
    scored = []
    for index, candidate in enumerate(candidates):
        have = content_words(candidate)
        score = len(wanted & have) / len(wanted) if wanted and have else 0.0
        scored.append((score, -index, candidate))
    scored.sort(reverse=True)
    return [(score, candidate) for score, _, candidate in scored]
