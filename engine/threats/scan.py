"""One content scanner for memory writes, context files and skills: injection, exfiltration, persistence.

The text is read in several views so that disguises do not help an attacker: NFKC-normalised with
format characters removed; folded (look-alike letters from other scripts mapped to Latin, accents and
leetspeak digits removed, letter-spaced words joined); and decoded (base64, hex, percent and
`\\u` escapes, ROT13 and reversed text when the text asks for them, Unicode tag characters). Scopes are
cumulative, `all` ⊂ `context` ⊂ `strict`: memory and skills use `strict`, context files `context`.
"""

from __future__ import annotations

import bisect
import functools
import re
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from engine.threats.i18n import I18N_PATTERNS
from engine.threats.normalise import hidden_characters, normalise, skeleton_word
from engine.threats.patterns import PATTERNS, SCOPE_LEVEL, Pattern

Scope = Literal["all", "context", "strict"]

MATCH_MAX = 120
DECODE_DEPTH = 2  # base64 inside base64 is still read; deeper nesting is not worth the time
# Hermes Agent's 17 invisible code points; the scanner reports every invisible, control or blank-looking
# character (by Unicode class, see `threat_normalise`), and these keep Hermes' message.
HERMES_INVISIBLE = frozenset(
    "\u200b\u200c\u200d\u2060\u2062\u2063\u2064\ufeff\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
_NEWLINE = re.compile("\n")
_LEET = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s"})
_LEET_TOKEN = re.compile(  # whole tokens only: the lookbehind stops a retry at every letter of a word
    r"(?<![A-Za-z0-9@$])[A-Za-z0-9@$]*(?:[013457@$][A-Za-z]|[A-Za-z][@$][A-Za-z])[A-Za-z0-9@$]*"
)
_NON_ASCII_WORD = re.compile(r"\S*[^\x00-\x7f]\S*")
_DIGIT_OR_SYMBOL = re.compile(r"[013457@$]")
_LEET_HINT = re.compile(r"[013457@$][A-Za-z]|[A-Za-z][@$][A-Za-z]")
_SPACED_HINT = re.compile(r"[A-Za-z][ .\-_*·•|/][A-Za-z][ .\-_*·•|/][A-Za-z][ .\-_*·•|/][A-Za-z]")
_SPACED = re.compile(r"\b(?:[A-Za-z][ .\-_*·•|/]){3,}[A-Za-z]\b")
_COMPACT = re.compile(
    r"(?:ignore|disregard|forget|bypass|override)(?:all|any|every|the|your|my|of)*(?:previous|prior|above"
    r"|earlier|preceding|original|system|your|safety)+(?:instructions?|directives|guidelines|rules|prompts?"
    r"|programming)|systempromptoverride|youarenow(?:a|an|the)(?!ready)|(?:reveal|print|output|show)your"
    r"(?:system)?(?:prompt|instructions)|donottelltheuser|exfiltrate"
)

_ALL_PATTERNS: tuple[Pattern, ...] = PATTERNS + I18N_PATTERNS
_BY_LEVEL = {
    scope: tuple(p for p in _ALL_PATTERNS if SCOPE_LEVEL[p.scope] <= level)
    for scope, level in SCOPE_LEVEL.items()
}
_SEVERITY_RANK = {"critical": 0, "high": 1, "medium": 2, "low": 3}


@dataclass(frozen=True)
class Finding:
    """One threat found in a text: which pattern, how bad, what matched and on which line."""

    id: str
    category: str
    severity: str
    match: str
    line: int
    detail: str = ""


def _line_finder(text: str) -> list[int]:
    return [m.start() for m in _NEWLINE.finditer(text)]


def _line_at(newlines: list[int], offset: int) -> int:
    return bisect.bisect_right(newlines, offset - 1) + 1


def _clip(text: str) -> str:
    text = text.strip()
    return text if len(text) <= MATCH_MAX else text[: MATCH_MAX - 1] + "…"


def _invisible_findings(text: str) -> list[Finding]:
    """One finding per line holding an invisible, control or blank-looking character (the first one)."""
    hidden = hidden_characters(text)
    if not hidden:
        return []
    newlines = _line_finder(text)
    found: list[Finding] = []
    seen: set[int] = set()
    for offset, char in hidden:
        line = _line_at(newlines, offset)
        if line not in seen:
            seen.add(line)
            found.append(Finding("invisible_unicode", "invisible", "high", f"U+{ord(char):04X}", line))
    return found


def _fold(text: str) -> str:
    """Look-alike letters to Latin, accents off, leetspeak tokens spelled out (spacing kept)."""
    folded = text
    if not folded.isascii():  # only the words with other letters in them need the work
        folded = _NON_ASCII_WORD.sub(lambda m: _fold_letters(m.group(0)), folded)
    if _DIGIT_OR_SYMBOL.search(folded) and _LEET_HINT.search(folded):
        folded = _LEET_TOKEN.sub(lambda m: m.group(0).translate(_LEET), folded)
    return folded


def _fold_letters(word: str) -> str:
    return skeleton_word(word)


def _join_spaced(text: str) -> str:
    """`i.g.n.o.r.e` and `i g n o r e` become `ignore`; word gaps of two or more spaces survive."""
    if not _SPACED_HINT.search(text):
        return text
    return _SPACED.sub(lambda m: re.sub(r"[ .\-_*·•|/]", "", m.group(0)), text)


def _need_key(need: str) -> str:
    """The substring a `needs` entry stands for: itself, or for a phrase its longest word.

    Regexes allow any whitespace between words (`you\\s+are`), so a phrase is tested by one word.
    """
    words = need.lower().split()
    return max(words, key=len) if words else need


_SPANNING = frozenset({"html_comment_injection", "hidden_div", "chat_template_tokens"})
GRAM = 3  # keys are looked up by their first three characters, then confirmed as substrings


@dataclass(frozen=True, eq=False)
class _Prefilter:
    """Which patterns can possibly match, decided by which `needs` substrings occur in the text.

    A pattern is a candidate when a key of each of its groups occurs in the lowercased text. On a
    long text the keys are found once over the whole of it (one substring search per key, then
    `find` from one occurrence to the next piece) and shared out to the pieces that hold them,
    instead of testing every key against every piece.
    """

    by_gram: dict[tuple[str, ...], tuple[str, ...]]  # first three characters -> keys starting with them
    grams: frozenset[tuple[str, ...]]
    short: tuple[str, ...]  # keys shorter than three characters, tested directly
    first_group: dict[str, frozenset[int]]  # key -> indexes of patterns whose first group holds it
    rest: tuple[tuple[frozenset[str], ...], ...]  # per pattern, the groups after the first
    always: frozenset[int]  # patterns without needs
    everywhere: frozenset[str]  # keys that are the empty string: present in any text
    spanning_keys: frozenset[str]  # the keys of the patterns that also run over a whole long text

    @classmethod
    def build(cls, patterns: tuple[Pattern, ...]) -> _Prefilter:
        keys: set[str] = set()
        first: dict[str, set[int]] = {}
        rest = []
        always = set()
        spanning: set[str] = set()
        for index, pattern in enumerate(patterns):
            groups = [frozenset(_need_key(need) for need in group) for group in pattern.needs]
            for group in groups:
                keys |= group
                if pattern.id in _SPANNING:
                    spanning |= group
            if not groups:
                always.add(index)
            else:
                for key in groups[0]:
                    first.setdefault(key, set()).add(index)
            rest.append(tuple(groups[1:]))
        by_gram: dict[tuple[str, ...], list[str]] = {}
        for key in keys:
            if len(key) >= GRAM:
                by_gram.setdefault(tuple(key[:GRAM]), []).append(key)
        return cls(
            {gram: tuple(found) for gram, found in by_gram.items()},
            frozenset(by_gram),
            tuple(sorted(k for k in keys if 0 < len(k) < GRAM)),
            {key: frozenset(found) for key, found in first.items()},
            tuple(rest),
            frozenset(always),
            frozenset(k for k in keys if not k),
            frozenset(spanning),
        )

    def present(self, lower: str) -> set[str]:
        """Every key that occurs in the lowercased text: its trigrams pick the few keys worth testing."""
        grams = self.grams.intersection(zip(lower, lower[1:], lower[2:], strict=False))  # in C, no loop
        found = {key for gram in grams for key in self.by_gram[gram] if len(key) == GRAM or key in lower}
        found.update(filter(lower.__contains__, self.short))
        found.update(self.everywhere)
        return found

    def candidates(self, lower: str) -> list[int]:
        """Indexes, in table order, of the patterns worth running on this lowercased text."""
        return self.candidates_of(self.present(lower))

    def candidates_of(self, present: set[str]) -> list[int]:
        """Indexes, in table order, of the patterns whose every group has a key in `present`."""
        first = self.first_group
        chosen = self.always.union(*[first[key] for key in present if key in first])
        picked = []
        for index in chosen:
            for group in self.rest[index]:
                if present.isdisjoint(group):
                    break
            else:
                picked.append(index)
        picked.sort()
        return picked

    def present_by_piece(
        self, lower: str, starts: list[int], ends: list[int]
    ) -> tuple[set[str], list[set[str]]]:
        """The keys of the whole text, and those of each piece `lower[starts[i]:ends[i]]`.

        One pass of the key trie finds the longest key starting at each position (its prefixes that
        are keys start there too). Pieces are in order and overlap by at most one line, so an
        occurrence lies in the piece whose start is the last before it, and perhaps the one before.
        """
        by_piece: list[set[str]] = [set(self.everywhere) for _ in starts]
        prefixes = self.prefixes
        for m in self.trie.finditer(lower):
            pos = m.start()
            index = bisect.bisect_right(starts, pos) - 1
            for key in prefixes[m.group(1)]:
                end = pos + len(key)
                step = index
                while step >= 0 and ends[step] >= end:
                    by_piece[step].add(key)
                    step -= 1
        return by_piece

    @functools.cached_property
    def trie(self) -> re.Pattern[str]:
        """A regex finding, at every position, the longest key that starts there (a lookahead, so
        occurrences may overlap); the alternatives form a trie, so each position costs a few steps."""
        return re.compile("(?=(" + _trie_regex(self.all_keys()) + "))")

    @functools.cached_property
    def prefixes(self) -> dict[str, tuple[str, ...]]:
        """Each key -> the keys that are prefixes of it, itself included."""
        keys = set(self.all_keys())
        return {key: tuple(key[:n] for n in range(1, len(key) + 1) if key[:n] in keys) for key in keys}

    def all_keys(self) -> list[str]:
        return sorted({k for found in self.by_gram.values() for k in found} | set(self.short))


def _trie_regex(words: list[str]) -> str:
    """An alternation of `words` laid out as a trie: `(?:a(?:b|c)?|d)` for a, ab, ac, d."""
    root: dict[str, Any] = {}
    for word in words:
        node = root
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}

    def build(node: dict[str, Any]) -> str:
        branches = [re.escape(ch) + build(child) for ch, child in sorted(node.items()) if ch]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        if "" in node:
            return f"(?:{body})?"
        return body

    return build(root)


_PREFILTERS: dict[str, _Prefilter] = {}


def _prefilter(scope: str) -> _Prefilter:
    """The prefilter of a scope, built on first use (keeps `import engine.threats.scan` cheap)."""
    found = _PREFILTERS.get(scope)
    if found is None:
        found = _PREFILTERS[scope] = _Prefilter.build(_BY_LEVEL[scope])
    return found


CHUNK_CHARS = 256  # longer texts are scanned a paragraph-sized piece at a time (few keys per piece)
_FIRST_PATTERN = {p.id: id(p) for p in reversed(_ALL_PATTERNS)}


def _run_patterns(
    view: str, scope: str, only: frozenset[str] | None = None, picked: list[int] | None = None
) -> list[Finding]:
    patterns = _BY_LEVEL[scope]
    newlines: list[int] | None = None
    found: list[Finding] = []
    if picked is None:
        picked = _prefilter(scope).candidates(view.lower())
    for index in picked:
        pattern = patterns[index]
        if only is not None and pattern.id not in only:
            continue
        m = pattern.regex.search(view)
        if m is None:
            continue
        if newlines is None:
            newlines = _line_finder(view)
        found.append(
            Finding(
                pattern.id,
                pattern.category,
                pattern.severity,
                _clip(m.group(0)),
                _line_at(newlines, m.start()),
            )
        )
    return found


def _chunks(view: str) -> list[tuple[int, int, int]]:
    """(first line number - 1, start, end) of pieces of about CHUNK_CHARS, cut at blank lines, else at lines.

    A piece cut inside a paragraph starts with the last line of the piece before, so a phrase broken
    over that line break is still seen whole.
    """
    pieces: list[tuple[int, int, int]] = []
    start_line = 0
    first = 0  # offset of the piece's first line
    count = 0  # lines in the current piece
    last_start = 0  # offset of the current piece's last line
    size = 0
    offset = 0
    for line_number, line in enumerate(view.split("\n")):
        boundary = not line.strip() or size + len(line) > CHUNK_CHARS
        if count and boundary and (size > CHUNK_CHARS // 4 or size + len(line) > CHUNK_CHARS):
            pieces.append((start_line, first, offset - 1))
            if line.strip():  # cut inside a paragraph: overlap by one line
                first, count, size, start_line = last_start, 1, offset - last_start, line_number - 1
            else:
                first, count, size, start_line = offset, 0, 0, line_number
        if not count:
            first = offset
        last_start = offset
        count += 1
        size += len(line) + 1
        offset += len(line) + 1
    if count:
        pieces.append((start_line, first, offset - 1))
    return pieces


def _run_in_chunks(view: str, scope: str, skip: frozenset[str] = frozenset()) -> list[Finding]:
    """Patterns over a long text, a paragraph-sized piece at a time.

    On a whole skill nearly every pattern's needs occur somewhere, so the prefilter stops helping
    and each regex walks the full text; per piece, only the few that can match run. Patterns that
    span lines (HTML comments, hidden divs, chat-template tokens) also run over the whole text.
    Pieces whose text is in `skip` (already scanned in another view) are left out.
    """
    if len(view) <= CHUNK_CHARS:
        return _run_patterns(view, scope)
    prefilter = _prefilter(scope)
    pieces = [(offset, start, end) for offset, start, end in _chunks(view) if view[start:end] not in skip]
    lower = view.lower()
    if not skip and len(lower) == len(view):
        by_piece = prefilter.present_by_piece(lower, [p[1] for p in pieces], [p[2] for p in pieces])
    else:  # a few pieces left, or lowercasing changed the length (e.g. U+0130): look per piece
        by_piece = [prefilter.present(view[start:end].lower()) for _, start, end in pieces]
    found: list[Finding] = []
    for (offset, start, end), keys in zip(pieces, by_piece, strict=True):
        picked = prefilter.candidates_of(keys)
        if picked:
            piece = view[start:end]
            found += [replace(f, line=f.line + offset) for f in _run_patterns(piece, scope, picked=picked)]
    spanning = prefilter.candidates_of({key for key in prefilter.spanning_keys if key in lower})
    found += _run_patterns(view, scope, only=_SPANNING, picked=spanning)
    order = {id(p): n for n, p in enumerate(_BY_LEVEL[scope])}
    return sorted(found, key=lambda f: (order.get(_FIRST_PATTERN[f.id], 0), f.line))


def _pieces(view: str) -> frozenset[str]:
    """The texts of a long view's pieces (a folded view keeps the lines of the plain one)."""
    if len(view) <= CHUNK_CHARS:
        return frozenset()
    return frozenset(view[start:end] for _, start, end in _chunks(view))


def _compact_findings(view: str) -> list[Finding]:
    """Letter-spaced phrases (`i g n o r e a l l ...`) lose their word gaps; look for them squeezed."""
    found = []
    for number, line in enumerate(view.split("\n"), start=1):
        if not _SPACED_HINT.search(line):
            continue
        squeezed = re.sub(r"[^a-z]", "", line.lower())
        m = _COMPACT.search(squeezed)
        if m:
            found.append(
                Finding("prompt_injection", "injection", "critical", _clip(line), number, "letter-spaced")
            )
    return found


def _scan(text: str, scope: str, depth: int, intents: bool) -> tuple[list[Finding], list[Finding]]:
    """(certain findings, uncertain ones) of `text` and of every decoded layer inside it."""
    if scope not in SCOPE_LEVEL:
        raise ValueError(f"Unknown scan scope {scope!r}; use 'all', 'context' or 'strict'.")
    findings = _invisible_findings(text)
    uncertain: list[Finding] = []
    view = normalise(text)
    plain = _run_in_chunks(view, scope)
    findings += plain
    letters = _fold(view)
    folded = _join_spaced(letters)
    if folded != view:
        known = {f.id for f in plain}
        skip = _pieces(view)  # pieces the folding left alone were scanned already
        disguised = [f for f in _run_in_chunks(folded, scope, skip) if f.id not in known]
        disguised += [f for f in _compact_findings(letters) if f.id not in known]
        findings += disguised
        if disguised:
            first = disguised[0]
            findings.append(
                Finding(
                    "confusable_letters",
                    "obfuscation",
                    first.severity,
                    first.match,
                    first.line,
                    f"look-alike letters, accents, leetspeak or letter spacing hide '{first.id}'",
                )
            )
    if intents:  # what a pattern already reported on a line is not reported again as an intent
        from engine.threats.intents import intent_findings  # imported on first use: `hws` starts faster

        seen = {(f.category, f.line) for f in findings}
        for found in intent_findings(text):
            if (found.category, found.line) in seen:
                continue
            finding = Finding(found.id, found.category, found.severity, found.match, found.line, found.detail)
            (findings if found.certain else uncertain).append(finding)
    if depth < DECODE_DEPTH:
        from engine.threats.decode import hidden_payloads

        for kind, encoded, decoded, line in hidden_payloads(text, view):
            inner, inner_uncertain = _scan(decoded, scope, depth + 1, intents)
            inner = [f for f in inner if f.category != "obfuscation" or f.id == "encoded_payload"]
            if inner:
                worst = min(inner, key=lambda f: _SEVERITY_RANK.get(f.severity, 9))
                findings.append(
                    Finding(
                        "encoded_payload",
                        "obfuscation",
                        worst.severity,
                        _clip(encoded),
                        line,
                        f"{kind} hides '{worst.id}': {_clip(worst.match)[:60]}",
                    )
                )
            elif inner_uncertain:
                first = inner_uncertain[0]
                uncertain.append(
                    Finding(
                        "encoded_payload",
                        "obfuscation",
                        "medium",
                        _clip(encoded),
                        line,
                        f"{kind} hides '{first.id}'",
                    )
                )
    return _dedupe(findings), _dedupe(uncertain)


def _dedupe(findings: list[Finding]) -> list[Finding]:
    seen: set[tuple[str, int]] = set()
    unique = []
    for finding in findings:
        key = (finding.id, finding.line)
        if key not in seen:
            seen.add(key)
            unique.append(finding)
    return unique


@dataclass(frozen=True)
class Assessment:
    """What the scanner settled (`findings`: refuse) and what it could not (`uncertain`: ask someone)."""

    findings: list[Finding] = field(default_factory=list)
    uncertain: list[Finding] = field(default_factory=list)


def assess(text: str, scope: Scope = "strict", intents: bool | None = None) -> Assessment:
    """The patterns and, at the strict scope (or when asked), the intents: settled and unsettled findings."""
    findings, uncertain = _scan(text, scope, 0, scope == "strict" if intents is None else intents)
    return Assessment(findings, [] if findings else uncertain)


def scan(text: str, scope: Scope = "strict", intents: bool | None = None) -> list[Finding]:
    """Every threat in `text` at this scope: invisible characters first, then patterns in table order.

    Intents (what the text asks the agent to do, in any of the vocabularies' languages) are read at
    the strict scope, or at any scope with `intents=True`.
    """
    return assess(text, scope, intents).findings


def pattern_ids(text: str, scope: Scope = "strict") -> list[str]:
    """The distinct pattern ids found, in order (Hermes' `scan_for_threats` result shape)."""
    return list(dict.fromkeys(f.id for f in scan(text, scope)))


def message_for(finding: Finding) -> str:
    """Hermes' sentence for a blocked write."""
    if finding.id == "invisible_unicode":
        return f"Blocked: content contains invisible unicode character {finding.match} (possible injection)."
    from engine.threats.intents import INTENT_MESSAGES

    if finding.id in INTENT_MESSAGES:
        return (
            f"Blocked: content matches threat pattern '{finding.id}' ({INTENT_MESSAGES[finding.id]}). "
            "Content is injected into the system prompt and must not contain injection or exfiltration "
            "payloads."
        )
    return (
        f"Blocked: content matches threat pattern '{finding.id}'. Content is injected into the system prompt "
        "and must not contain injection or exfiltration payloads."
    )


def first_threat_message(text: str, scope: Scope = "strict") -> str | None:
    """The sentence that refuses `text`, or None when it is clean."""
    findings = scan(text, scope)
    return message_for(findings[0]) if findings else None
