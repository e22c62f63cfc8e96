"""What the side-by-side editor checks before a save, with the line of each problem.

Memory files: the character limit (and which entry takes the file over it) and the threat scan of
each entry. SOUL.md: the context-file scan that would block it from the prompt. SKILL.md: valid
frontmatter (YAML errors at their line), the name, the size, and the skills guard. Support files:
the size, YAML syntax for .yaml files, and the guard. Any file: merge markers left from a conflict.
A blocking problem refuses the save; the others are shown and allowed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import yaml

from engine.memory.format import DELIMITER, char_count, percent
from engine.threats.scan import message_for, scan

MARKER = re.compile(r"^(<{7} |={7}$|>{7} )")
YAML_SUFFIXES = (".yaml", ".yml")


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a buffer: its 1-based line (0 for the whole file) and a sentence."""

    line: int
    message: str
    blocking: bool = True

    def text(self) -> str:
        return f"line {self.line}: {self.message}" if self.line else self.message


@dataclass(frozen=True)
class EntryUsage:
    """One memory entry: its number, the line it starts on, and its length in characters."""

    number: int
    line: int
    chars: int


@dataclass(frozen=True)
class MemoryUsage:
    """A memory buffer measured the way the store counts it (entries joined by the delimiter)."""

    total: int
    limit: int
    entries: tuple[EntryUsage, ...]
    crossing: int = 0  # the entry that takes the total past the limit (0: within it)

    @property
    def over(self) -> bool:
        return self.total > self.limit

    @property
    def fraction(self) -> float:
        return self.total / self.limit if self.limit else 0.0

    def longest(self) -> EntryUsage | None:
        return max(self.entries, key=lambda e: e.chars, default=None)

    def text(self) -> str:
        count = len(self.entries)
        head = f"{self.total:,}/{self.limit:,} chars ({percent(self.total, self.limit)}%)"
        tail = f" · {count} entr{'y' if count == 1 else 'ies'}"
        if self.over:
            return f"{head} · {self.total - self.limit:,} over{tail}"
        return head + tail


@dataclass(frozen=True)
class CheckResult:
    problems: tuple[Problem, ...] = ()
    usage: MemoryUsage | None = None
    notes: tuple[str, ...] = field(default=())

    @property
    def blocking(self) -> tuple[Problem, ...]:
        return tuple(p for p in self.problems if p.blocking)

    @property
    def ok(self) -> bool:
        return not self.blocking

    def reason(self) -> str:
        """The sentence that refuses the save (the first blocking problem, and how many more)."""
        blocking = self.blocking
        if not blocking:
            return ""
        more = (
            f" ({len(blocking) - 1} more problem{'s' if len(blocking) > 2 else ''})"
            if len(blocking) > 1
            else ""
        )
        return blocking[0].text() + more


def marker_problems(text: str) -> list[Problem]:
    """Merge markers still in the buffer (from "merge by hand"), one problem per marker line."""
    problems = []
    for number, line in enumerate(text.split("\n"), start=1):
        if MARKER.match(line):
            problems.append(
                Problem(
                    number, "a merge marker is still here; keep the lines you want and delete the markers."
                )
            )
    return problems


def split_entries(text: str) -> list[tuple[int, str]]:
    """(line, entry) for every non-empty entry, as the store will read them, duplicates kept."""
    found: list[tuple[int, str]] = []
    line = 1
    for part in text.split(DELIMITER):
        stripped = part.strip()
        if stripped:
            lead = part[: len(part) - len(part.lstrip())]
            found.append((line + lead.count("\n"), stripped))
        line += part.count("\n") + 2  # the delimiter's own line and the line break that ends it
    return found


def memory_usage(text: str, limit: int) -> MemoryUsage:
    """The buffer's size against the limit, entry by entry (duplicates count once, as on disk)."""
    seen: set[str] = set()
    entries: list[EntryUsage] = []
    kept: list[str] = []
    crossing = 0
    for number, (line, entry) in enumerate(split_entries(text), start=1):
        if entry in seen:
            continue
        seen.add(entry)
        kept.append(entry)
        entries.append(EntryUsage(number, line, len(entry)))
        if not crossing and char_count(kept) > limit:
            crossing = number
    return MemoryUsage(char_count(kept), limit, tuple(entries), crossing)


def check_memory(text: str, filename: str, limit: int) -> CheckResult:
    usage = memory_usage(text, limit)
    problems: list[Problem] = []
    if usage.over:
        at = next(e for e in usage.entries if e.number == usage.crossing)
        longest = usage.longest()
        detail = f"entry {at.number} ({at.chars:,} chars) takes it past the limit"
        if longest is not None and longest.number != at.number:
            detail += (
                f"; the longest is entry {longest.number} on line {longest.line} ({longest.chars:,} chars)"
            )
        problems.append(
            Problem(
                at.line,
                f"{filename} would be {usage.total:,}/{limit:,} chars, "
                f"{usage.total - limit:,} over: {detail}.",
            )
        )
    seen: dict[str, int] = {}
    for number, (line, entry) in enumerate(split_entries(text), start=1):
        if entry in seen:
            problems.append(
                Problem(
                    line, f"entry {number} repeats entry {seen[entry]}; only one is kept.", blocking=False
                )
            )
            continue
        seen[entry] = number
        for finding in scan(entry, "strict")[:1]:
            problems.append(Problem(line + finding.line - 1, f"entry {number}: {message_for(finding)}"))
    problems += marker_problems(text)
    return CheckResult(tuple(sorted(problems, key=lambda p: p.line)), usage)


def check_soul(text: str, prompt_limit: int) -> CheckResult:
    problems = [
        Problem(
            f.line,
            f"the prompt would block SOUL.md for this ({f.id}: {f.match!r}); rewrite it.",
        )
        for f in scan(text, "context")
    ]
    if len(text.strip()) > prompt_limit:
        problems.append(
            Problem(
                0,
                f"SOUL.md is {len(text.strip()):,} chars; the prompt keeps {prompt_limit:,} "
                "(the start and the end).",
                blocking=False,
            )
        )
    if not text.strip():
        problems.append(
            Problem(0, "SOUL.md is empty; sessions will use the built-in persona.", blocking=False)
        )
    problems += marker_problems(text)
    return CheckResult(tuple(sorted(problems, key=lambda p: p.line)))


def yaml_problem(yaml_text: str, first_line: int = 1) -> Problem | None:
    """A YAML syntax error at its line (`first_line`: where `yaml_text` starts in the file)."""
    try:
        yaml.safe_load(yaml_text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = first_line + mark.line if mark is not None else first_line
        problem = getattr(exc, "problem", None) or "invalid YAML"
        return Problem(line, f"YAML error: {problem}.")
    except RecursionError:
        return Problem(first_line, "YAML error: nested too deeply.")
    return None


def check_skill_md(text: str, skill_name: str, max_chars: int, disk_text: str | None) -> CheckResult:
    from engine.skills import frontmatter as fm

    text = fm.normalise_text(text)
    problems: list[Problem] = []
    try:
        split = fm.split_frontmatter(text)
    except fm.FrontmatterError as exc:
        split = None
        problems.append(Problem(exc.line, f"{exc.reason}; SKILL.md must keep its frontmatter."))
    found_yaml = split is not None and yaml_problem(split[0], 2)
    if found_yaml:
        problems.append(found_yaml)
    if not problems:
        reason = fm.content_error(text)
        if reason:
            problems.append(Problem(1 if split is None else 0, reason))
        else:
            declared = fm.frontmatter_name(text)
            if declared != skill_name:
                problems.append(
                    Problem(
                        _key_line(text, "name"),
                        f"the frontmatter names '{declared}'; it must stay '{skill_name}', the skill's name.",
                    )
                )
    if len(text) > max_chars:
        problems.append(Problem(0, f"SKILL.md is {len(text):,} chars; the limit is {max_chars:,}."))
    problems += guard_problems(text, "SKILL.md", disk_text)
    problems += marker_problems(text)
    return CheckResult(tuple(sorted(problems, key=lambda p: p.line)))


def check_support_file(text: str, rel: str, max_bytes: int, disk_text: str | None) -> CheckResult:
    problems: list[Problem] = []
    size = len(text.encode("utf-8"))
    if size > max_bytes:
        problems.append(
            Problem(0, f"{rel} is {size:,} bytes; the limit for a support file is {max_bytes:,}.")
        )
    if rel.lower().endswith(YAML_SUFFIXES):
        found = yaml_problem(text)
        if found:
            problems.append(found)
    problems += guard_problems(text, rel, disk_text)
    problems += marker_problems(text)
    return CheckResult(tuple(sorted(problems, key=lambda p: p.line)))


def guard_problems(text: str, rel: str, disk_text: str | None, budget: int = 16 * 1024) -> list[Problem]:
    """The skills guard on one file: new critical findings block, new high ones warn."""
    from engine.skills.guard import CRITICAL, invisible_findings, scan_text, shared_findings
    from engine.skills.guard_rules import HIGH

    def findings(content: str) -> list:  # type: ignore[type-arg]
        found = scan_text(content, rel) + invisible_findings(content, rel)
        if rel.lower().endswith((".md", ".markdown", ".txt", ".rst", ".mdx")):
            found += shared_findings(content, rel, budget)[0]
        return found

    before = {(f.rule, f.match) for f in findings(disk_text)} if disk_text else set()
    problems = []
    for finding in findings(text):
        if finding.severity not in (CRITICAL, HIGH) or (finding.rule, finding.match) in before:
            continue
        blocking = finding.severity == CRITICAL
        verdict = "the skills guard blocks this" if blocking else "the skills guard warns"
        problems.append(
            Problem(
                finding.line, f"{verdict}: {finding.description or finding.rule} ({finding.rule}).", blocking
            )
        )
    return problems


def _key_line(text: str, key: str) -> int:
    for number, line in enumerate(text.split("\n"), start=1):
        if line.startswith(f"{key}:"):
            return number
    return 1
