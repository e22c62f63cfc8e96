"""The guard's content scanner: skill patterns on every line, the shared threat scanner on prose.

Speed comes from scanning each file once per trigger word: the words of every trigger are looked up
in the file's distinct tokens, only triggers that pass are located with `str.find`, and a rule's
regex runs only on the lines holding one of its triggers. `scan_text(prefilter=False)` is the slow
reference (every rule on every line) the tests compare against.
"""

from __future__ import annotations

import hashlib
import re
from bisect import bisect_right
from collections import OrderedDict
from dataclasses import dataclass
from itertools import accumulate

from engine.skills.guard_code import hidden_code_findings
from engine.skills.guard_rules import CRITICAL, HIGH, LOW, MEDIUM, RULES, Rule
from engine.threats import scan as threats
from engine.threats.intents import INTENT_MESSAGES, intent_findings

SEVERITY_RANK = {CRITICAL: 0, HIGH: 1, MEDIUM: 2, LOW: 3}
MATCH_CHARS = 120
CONTINUATION_LINES = 5


@dataclass(frozen=True)
class GuardFinding:
    """One thing the guard saw: which rule, how bad, where, and the text that matched."""

    rule: str
    category: str
    severity: str
    file: str
    line: int
    match: str
    description: str = ""


def _trigger_table(rules: tuple[Rule, ...]) -> list[tuple[str, tuple[str, ...], tuple[int, ...]]]:
    table: dict[str, list[int]] = {}
    for i, rule in enumerate(rules):
        for trigger in rule.triggers:
            table.setdefault(trigger.lower(), []).append(i)
    return [(t, tuple(t.split()) or (t,), tuple(ids)) for t, ids in table.items()]


_TABLE = _trigger_table(RULES)


Triggers = list[tuple[str, tuple[str, ...], tuple[int, ...]]]


def present_triggers(texts: list[str]) -> Triggers:
    """The triggers whose words occur somewhere in these texts (one check for a whole skill folder).

    Each trigger's words are looked up in the texts' distinct whitespace-separated tokens: a much
    smaller text than the files, so 100+ lookups stay cheap.
    """
    tokens: set[str] = set()
    for text in texts:
        tokens.update(text.lower().split())
    vocabulary = "\n".join(tokens)
    return [entry for entry in _TABLE if all(word in vocabulary for word in entry[1])]


def _candidates(lower: str, starts: list[int], triggers: Triggers | None = None) -> dict[int, set[int]]:
    """Line number → rules worth running there: each present trigger located with `str.find`."""
    if triggers is None:
        triggers = present_triggers([lower])
    found: dict[int, set[int]] = {}
    end = len(lower)
    last = len(starts) - 1
    for trigger, _words, ids in triggers:
        pos = lower.find(trigger)
        while pos != -1:
            line = bisect_right(starts, pos) - 1
            bucket = found.get(line)
            if bucket is None:
                found[line] = set(ids)
            else:
                bucket.update(ids)
            pos = lower.find(trigger, starts[line + 1] if line < last else end)
    return found


def _logical_line(lines: list[str], index: int) -> str:
    """A line plus its backslash continuations, so a command split over lines is judged whole."""
    text = lines[index]
    joined = 0
    while text.endswith("\\") and index + joined + 1 < len(lines) and joined < CONTINUATION_LINES:
        joined += 1
        text = text[:-1] + " " + lines[index + joined].strip()
    return text


def scan_text(
    text: str, file: str = "SKILL.md", prefilter: bool = True, triggers: Triggers | None = None
) -> list[GuardFinding]:
    """Run the skill patterns over one text; one finding per category and line (the most severe).

    `triggers` (from `present_triggers` over a folder) saves each file its own vocabulary check;
    `prefilter=False` runs every rule on every line: the slow reference the tests compare against.
    """
    if not text:
        return []
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    if prefilter:
        lower = text.lower()
        lower_lines = lines
        if len(lower) != len(text):  # a few characters change length when lowered; keep lines aligned
            lower_lines = [line.lower() for line in lines]
            lower = "\n".join(lower_lines)
        starts = list(accumulate(map((1).__add__, map(len, lower_lines[:-1])), initial=0))
        plan = _candidates(lower, starts, triggers)
        for index in [i for i in plan if i and lines[i - 1].endswith("\\")]:
            back = index - 1  # a continuation: the command it belongs to starts on an earlier line
            while back > 0 and index - back < CONTINUATION_LINES and lines[back - 1].endswith("\\"):
                back -= 1
            for earlier in range(back, index):
                plan.setdefault(earlier, set()).update(plan[index])
    else:
        everything = set(range(len(RULES)))
        plan = {i: everything for i in range(len(lines))}
    findings: list[GuardFinding] = []
    rules = RULES
    for index in sorted(plan):
        line = lines[index]
        if line.endswith("\\"):
            line = _logical_line(lines, index)
        low: str | None = None
        strongest: dict[str, tuple[int, int, GuardFinding]] = {}
        for rule_index in plan[index]:
            rule = rules[rule_index]
            if rule.needs is not None:
                if low is None:
                    low = line.lower()
                if rule.needs.search(low) is None:
                    continue
            if rule.pattern.search(line) is None:
                continue
            finding = _apply(rule, line, file, index + 1)
            if finding is None:
                continue
            key = (SEVERITY_RANK[finding.severity], rule_index)
            held = strongest.get(finding.category)
            if held is None or key < held[:2]:
                strongest[finding.category] = (*key, finding)
        findings += (held[2] for held in sorted(strongest.values(), key=lambda held: held[1]))
    return findings


def _apply(rule: Rule, line: str, file: str, line_no: int) -> GuardFinding | None:
    """Vet a rule that matched `line`: its `also`, `unless` and `judge` decide whether it counts."""
    if rule.also and not all(a.search(line) for a in rule.also):
        return None
    if rule.unless is not None and rule.unless.search(line):
        return None
    for count, match in enumerate(rule.pattern.finditer(line)):
        if count >= 4:
            return None
        severity = rule.judge(line, match) if rule.judge else rule.severity
        if severity is None:
            continue
        shown = line[match.start() :].strip()[:MATCH_CHARS] or line.strip()[:MATCH_CHARS]
        return GuardFinding(rule.id, rule.category, severity, file, line_no, shown, rule.description)
    return None


_SHARED_CATEGORY = {
    "injection": "injection",
    "role_hijack": "injection",
    "invisible": "injection",
    "exfiltration": "exfiltration",
    "c2": "network",
    "persistence": "persistence",
    "secrets": "credential_exposure",
    "obfuscation": "obfuscation",
    "execution": "execution",
}
_CODE_INTENTS = frozenset({"exfiltration", "persistence"})  # what code may intend; injection is prose's
_FENCE = re.compile(r"^ {0,3}(```|~~~)")
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_SHARED_CACHE: OrderedDict[str, tuple[tuple[str, str, str, int, str], ...]] = OrderedDict()
SHARED_CACHE_SIZE = 4096
SHARED_CHUNK_LINES = 80


def prose_lines(text: str) -> list[str]:
    """The prose of a Markdown text, line for line: code blocks, indented code and `code spans` blanked.

    Code is judged by the skill patterns, which know shell and Python; the shared scanner is meant
    for the sentences the model reads as instructions.
    """
    out: list[str] = []
    fence: str | None = None
    for line in text.split("\n"):
        mark = _FENCE.match(line)
        if fence is not None:
            if mark and mark.group(1) == fence:
                fence = None
            out.append("")
        elif mark:
            fence = mark.group(1)
            out.append("")
        elif line.startswith(("    ", "\t")):
            out.append("")
        else:
            out.append(_INLINE_CODE.sub("", line) if "`" in line else line)
    return out


def _shared_chunk(chunk: str) -> tuple[tuple[str, str, str, int, str], ...]:
    key = hashlib.sha256(chunk.encode("utf-8", "surrogatepass")).hexdigest()
    hit = _SHARED_CACHE.get(key)
    if hit is not None:
        _SHARED_CACHE.move_to_end(key)
        return hit
    judged = threats.assess(chunk, "context", intents=True)
    found = tuple(
        (f.id, f.category, f.severity, f.line, f.match) for f in (*judged.findings, *judged.uncertain)
    )
    _SHARED_CACHE[key] = found
    while len(_SHARED_CACHE) > SHARED_CACHE_SIZE:
        _SHARED_CACHE.popitem(last=False)
    return found


def shared_findings(text: str, file: str, budget: int) -> tuple[list[GuardFinding], int]:
    """The shared threat scanner over the prose of `text`, at most `budget` characters of it.

    Returns the findings and how many characters of `text` it covered. Chunks of a few paragraphs
    are cached by content, so re-scanning a skill after a small edit only pays for the paragraphs
    that changed.
    """
    if budget <= 0:
        return [], 0
    raw = text.split("\n")
    lines = prose_lines(text)
    out: list[GuardFinding] = []
    used = 0
    covered = 0
    start = 0
    while start < len(lines) and used < budget:
        end = min(len(lines), start + SHARED_CHUNK_LINES)
        while end < len(lines) and lines[end - 1].strip():  # end chunks on a paragraph break
            end += 1
        chunk = "\n".join(lines[start:end])
        if used + len(chunk) > budget:
            chunk = chunk[: budget - used]
            end = start + chunk.count("\n") + 1
        used += len(chunk)
        covered += sum(map(len, raw[start:end])) + (end - start)
        if chunk.strip():
            for rule, category, severity, line, match in _shared_chunk(chunk):
                if rule == "invisible_unicode":
                    continue  # judged by `invisible_findings` on every file, emoji-aware
                out.append(
                    GuardFinding(
                        f"threats.{rule}",
                        _SHARED_CATEGORY.get(category, "injection"),
                        severity,
                        file,
                        start + line,
                        match[:MATCH_CHARS],
                        "flagged by the shared threat scanner",
                    )
                )
        start = end
    return out, min(covered, len(text))


def _emoji_joiner(line: str, index: int) -> bool:
    """A zero-width joiner inside an emoji sequence (👩‍💻) is how emoji are spelled, not a hidden payload."""
    if line[index] != "\u200d" or index == 0 or index + 1 >= len(line):
        return False
    before, after = line[index - 1], line[index + 1]
    return (ord(before) >= 0x2190 or before == "\ufe0f") and ord(after) >= 0x2190


def invisible_findings(text: str, file: str) -> list[GuardFinding]:
    """Invisible and bidirectional-control characters anywhere, code included (trojan-source)."""
    if text.isascii():
        return []
    out = []
    for number, line in enumerate(text.removeprefix("\ufeff").split("\n"), start=1):
        if not line.isascii():
            hit = next(
                (
                    ch
                    for i, ch in enumerate(line)
                    if ch in threats.HERMES_INVISIBLE and not _emoji_joiner(line, i)
                ),
                None,
            )
            if hit is not None:
                out.append(
                    GuardFinding(
                        "invisible_unicode",
                        "injection",
                        HIGH,
                        file,
                        number,
                        f"U+{ord(hit):04X}",
                        "an invisible or direction-changing character",
                    )
                )
    return out


def _judge(text: str, file: str) -> list[tuple[str, str, str]]:
    return [(f.severity, f.rule, f.description) for f in scan_text(text, file)]


def hidden_findings(text: str, file: str) -> list[GuardFinding]:
    """What a file hides: commands rebuilt from pieces, decoded payloads, secrets carried into requests."""
    found = []
    for severity, line, rule, shown, why in hidden_code_findings(text, file, _judge):
        category = "exfiltration" if rule == "secret_in_request" else "obfuscation"
        found.append(GuardFinding(rule, category, severity, file, line, shown[:MATCH_CHARS], why))
    return found


def code_intent_findings(text: str, file: str, budget: int) -> tuple[list[GuardFinding], int]:
    """Exfiltration and persistence intents over a whole file, code included, up to `budget` characters
    (uncertain ones of any kind come as medium findings: they leave the verdict alone)."""
    if budget <= 0 or not text:
        return [], 0
    chunk = text[:budget]
    found = [
        GuardFinding(
            f"intents.{f.id}",
            _SHARED_CATEGORY.get(f.category, "injection"),
            f.severity,
            file,
            f.line,
            f.match[:MATCH_CHARS],
            INTENT_MESSAGES.get(f.id, "an intent the shared scanner reads"),
        )
        for f in intent_findings(chunk)
        if f.category in _CODE_INTENTS or not f.certain
    ]
    return found, len(chunk)
