"""Words of a query: its significant words, FTS5 expressions matching any or all of them, word sets."""

from __future__ import annotations

_EDGES = ".,;:!?\"'()[]{}#@<>"
_FTS_OPERATORS = str.maketrans("", "", '"()*^:-+')
# Function words: they match nearly every fact and say nothing about which one is wanted.
# fmt: off
_STOPWORDS = frozenset(
    [
        "a", "about", "above", "after", "again", "all", "am", "an", "and", "any", "are", "as", "at",
        "be", "because", "been", "before", "being", "below", "between", "both", "but", "by", "can",
        "could", "did", "do", "does", "doing", "don", "down", "during", "each", "few", "for", "from",
        "further", "had", "has", "have", "having", "he", "her", "here", "hers", "herself", "him",
        "himself", "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself", "just", "me",
        "more", "most", "my", "myself", "no", "nor", "not", "now", "of", "off", "on", "once", "only",
        "or", "other", "our", "ours", "ourselves", "out", "over", "own", "same", "she", "should", "so",
        "some", "such", "than", "that", "the", "their", "theirs", "them", "themselves", "then", "there",
        "these", "they", "this", "those", "through", "to", "too", "under", "until", "up", "very", "was",
        "we", "were", "what", "when", "where", "which", "while", "who", "whom", "why", "will", "with",
        "would", "you", "your", "yours", "yourself", "yourselves",
    ]
)
# fmt: on


def significant_words(text: str) -> list[str]:
    """The words of `text` worth searching for, lower case, each once, FTS5 operators removed."""
    seen: dict[str, None] = {}
    for raw in text.lower().split():
        word = raw.strip(_EDGES).translate(_FTS_OPERATORS)
        if len(word) >= 2 and word not in _STOPWORDS:
            seen[word] = None
    return list(seen)


def fts_query(text: str) -> str:
    """An FTS5 MATCH expression: the significant words, each quoted, joined with OR ("" if none)."""
    return match_any(significant_words(text))


def match_any(words: list[str]) -> str:
    return " OR ".join(f'"{word}"' for word in words)


def match_all(words: list[str]) -> str:
    return " AND ".join(f'"{word}"' for word in words)


def word_set(text: str) -> set[str]:
    """The lower-cased words of `text`, outer punctuation stripped (for overlap scores)."""
    return {w for w in (raw.strip(_EDGES) for raw in text.lower().split()) if w}
