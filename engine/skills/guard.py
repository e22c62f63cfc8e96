"""The skills guard: scans a whole skill folder and decides, by trust level, whether it may be installed.

Content: the shared threat scanner (prompt injection in the prose the model reads) plus the skill
patterns in `guard_rules` (shell, code, credentials). Structure: too many files, oversized files,
executables, symlinks out of the folder, exec bits on non-scripts. Verdict: any critical finding →
dangerous, any high → caution, else safe. Speed comes from scanning each file once per trigger word
with `str.find` and running a rule's regex only on lines that hold one of its triggers.
"""

from __future__ import annotations

import fnmatch
import hashlib
import os
import re
import stat
import time
from bisect import bisect_right
from collections import OrderedDict
from dataclasses import asdict, dataclass, field
from itertools import accumulate
from pathlib import Path
from typing import Any

from engine import threats
from engine.skills.guard_rules import CRITICAL, HIGH, LOW, MEDIUM, RULES, Rule

SAFE, CAUTION, DANGEROUS = "safe", "caution", "dangerous"
TRUST_LEVELS = ("builtin", "trusted", "community", "agent-created")
ALLOW, BLOCK, ASK = "allow", "block", "ask"
POLICY: dict[str, dict[str, str]] = {
    "builtin": {SAFE: ALLOW, CAUTION: ALLOW, DANGEROUS: ALLOW},
    "trusted": {SAFE: ALLOW, CAUTION: ALLOW, DANGEROUS: BLOCK},
    "community": {SAFE: ALLOW, CAUTION: BLOCK, DANGEROUS: BLOCK},
    "agent-created": {SAFE: ALLOW, CAUTION: ALLOW, DANGEROUS: ASK},
}
SEVERITY_RANK = {CRITICAL: 0, HIGH: 1, MEDIUM: 2, LOW: 3}

SCRIPT_EXTS = frozenset(
    {
        ".sh",
        ".bash",
        ".zsh",
        ".fish",
        ".ksh",
        ".py",
        ".rb",
        ".pl",
        ".js",
        ".mjs",
        ".cjs",
        ".ts",
        ".ps1",
        ".psm1",
        ".bat",
        ".cmd",
        ".php",
        ".lua",
        ".r",
        ".command",
        ".tcl",
        ".applescript",
        ".scpt",
    }
)
BINARY_EXEC_EXTS = frozenset(
    {".exe", ".dll", ".so", ".dylib", ".bin", ".dat", ".com", ".msi", ".dmg", ".app", ".deb", ".rpm"}
)
TEXT_EXTS = SCRIPT_EXTS | frozenset(
    {
        ".md",
        ".markdown",
        ".mdx",
        ".txt",
        ".rst",
        ".yaml",
        ".yml",
        ".json",
        ".jsonl",
        ".toml",
        ".ini",
        ".cfg",
        ".conf",
        ".env",
        ".html",
        ".htm",
        ".css",
        ".scss",
        ".xml",
        ".svg",
        ".csv",
        ".tsv",
        ".tex",
        ".sql",
        ".go",
        ".rs",
        ".java",
        ".kt",
        ".swift",
        ".c",
        ".h",
        ".cpp",
        ".hpp",
        ".cs",
        ".jsx",
        ".tsx",
        ".vue",
        ".svelte",
        ".ipynb",
        ".mk",
        ".dockerfile",
        ".service",
        ".plist",
        ".desktop",
        ".tmpl",
        ".j2",
        ".jinja",
        ".hbs",
    }
)
PROSE_EXTS = frozenset({".md", ".markdown", ".mdx", ".txt", ".rst"})
IGNORE_FILES = (".skillignore", ".clawhubignore")
SKIPPED_DIRS = frozenset({".git", "node_modules", "__pycache__", ".venv", "venv"})
SCAN_MAX_BYTES = 8 * 1024 * 1024  # text files beyond this are reported as oversized, not read
WALK_MAX_ENTRIES = 20_000
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


@dataclass(frozen=True)
class GuardLimits:
    max_files: int = 50
    max_total_bytes: int = 1024 * 1024
    max_file_bytes: int = 256 * 1024
    shared_scan_chars: int = 16 * 1024

    @classmethod
    def from_config(cls, skills: Any) -> GuardLimits:
        return cls(
            int(skills.guard_max_files),
            int(skills.guard_max_total_kb) * 1024,
            int(skills.guard_max_file_kb) * 1024,
            int(skills.guard_shared_scan_kb) * 1024,
        )


@dataclass(frozen=True)
class Decision:
    action: str  # allow | block | ask
    reason: str

    @property
    def label(self) -> str:
        return {ALLOW: "ALLOWED", BLOCK: "BLOCKED", ASK: "NEEDS CONFIRMATION"}[self.action]


def verdict_of(findings: list[GuardFinding]) -> str:
    severities = {f.severity for f in findings}
    if CRITICAL in severities:
        return DANGEROUS
    if HIGH in severities:
        return CAUTION
    return SAFE


def decide(verdict: str, trust: str, force: bool = False) -> Decision:
    """Hermes' install policy; `force` lifts a block, except a dangerous verdict from outside sources."""
    if trust not in POLICY:
        raise ValueError(f"unknown trust level {trust!r}; use one of {', '.join(TRUST_LEVELS)}")
    action = POLICY[trust][verdict]
    if action == ALLOW:
        return Decision(ALLOW, f"{verdict} verdict, allowed for {trust} skills")
    if force and not (verdict == DANGEROUS and trust in ("community", "trusted")):
        return Decision(ALLOW, f"{verdict} verdict for a {trust} skill, allowed by --force")
    if action == ASK:
        return Decision(ASK, f"{verdict} verdict for an {trust} skill needs the user's confirmation")
    if verdict == DANGEROUS:
        return Decision(
            BLOCK, f"{verdict} verdict for a {trust} skill; --force does not override a dangerous verdict."
        )
    return Decision(BLOCK, f"{verdict} verdict for a {trust} skill (--force installs it anyway)")


@dataclass
class GuardReport:
    """Everything the guard found in one folder, with its verdict and the policy's decision."""

    name: str
    source: str
    trust: str
    findings: list[GuardFinding] = field(default_factory=list)
    files_scanned: int = 0
    lines_scanned: int = 0
    elapsed_ms: float = 0.0
    content_hash: str = ""
    prose_chars: int = 0  # prose in Markdown/text files
    shared_chars: int = 0  # of which the shared threat scanner read this much

    @property
    def verdict(self) -> str:
        return verdict_of(self.findings)

    def decision(self, force: bool = False) -> Decision:
        return decide(self.verdict, self.trust, force)

    def sorted_findings(self) -> list[GuardFinding]:
        return sorted(self.findings, key=lambda f: (SEVERITY_RANK[f.severity], f.file, f.line, f.rule))

    def format(self, force: bool = False) -> str:
        """Hermes' report: a header with the verdict, one line per finding, then the decision."""
        lines = [f"Scan: {self.name} ({self.source}/{self.trust})  Verdict: {self.verdict.upper()}"]
        for f in self.sorted_findings():
            where = f"{f.file}:{f.line}" if f.line else f.file
            lines.append(f'  {f.severity.upper()} {f.category} {where} "{f.match[:60]}"')
        if self.shared_chars < self.prose_chars:
            lines.append(
                f"  note: the shared threat scanner read {self.shared_chars:,} of {self.prose_chars:,} "
                "characters of prose (skills.guard_shared_scan_kb); the skill patterns read every line"
            )
        decision = self.decision(force)
        lines.append(f"Decision: {decision.label} — {decision.reason}")
        return "\n".join(lines)

    def as_dict(self, force: bool = False) -> dict[str, Any]:
        decision = self.decision(force)
        return {
            "name": self.name,
            "source": self.source,
            "trust": self.trust,
            "verdict": self.verdict,
            "decision": decision.action,
            "reason": decision.reason,
            "content_hash": self.content_hash,
            "files_scanned": self.files_scanned,
            "lines_scanned": self.lines_scanned,
            "prose_chars": self.prose_chars,
            "shared_chars": self.shared_chars,
            "elapsed_ms": round(self.elapsed_ms, 2),
            "findings": [asdict(f) for f in self.sorted_findings()],
        }


# -- content scanning ------------------------------------------------------------------------------


def _trigger_table(rules: tuple[Rule, ...]) -> list[tuple[str, tuple[str, ...], tuple[int, ...]]]:
    table: dict[str, list[int]] = {}
    for i, rule in enumerate(rules):
        for trigger in rule.triggers:
            table.setdefault(trigger.lower(), []).append(i)
    return [(t, tuple(t.split()) or (t,), tuple(ids)) for t, ids in table.items()]


_TABLE = _trigger_table(RULES)


def _candidates(lower: str, starts: list[int]) -> dict[int, set[int]]:
    """Line number → rules worth running there.

    Two sweeps: first each trigger's words are looked up in the file's distinct whitespace-separated
    tokens (a small text, so 100+ lookups are cheap); only triggers that pass are then located in
    the whole file with `str.find`, one line at a time.
    """
    vocabulary = "\n".join(set(lower.split()))
    found: dict[int, set[int]] = {}
    end = len(lower)
    last = len(starts) - 1
    for trigger, words, ids in _TABLE:
        if not all(word in vocabulary for word in words):
            continue
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


def scan_text(text: str, file: str = "SKILL.md", prefilter: bool = True) -> list[GuardFinding]:
    """Run the skill patterns over one text; one finding per category and line (the most severe).

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
        plan = _candidates(lower, starts)
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
}
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
    found = tuple((f.id, f.category, f.severity, f.line, f.match) for f in threats.scan(chunk, "context"))
    _SHARED_CACHE[key] = found
    while len(_SHARED_CACHE) > SHARED_CACHE_SIZE:
        _SHARED_CACHE.popitem(last=False)
    return found


def shared_findings(text: str, file: str, budget: int) -> tuple[list[GuardFinding], int, int]:
    """The shared threat scanner over the prose of `text`, at most `budget` characters of it.

    Returns the findings, the characters read and the characters of prose there were. Chunks of a
    few paragraphs are cached by content, so re-scanning a skill after a small edit only pays for
    the paragraphs that changed.
    """
    lines = prose_lines(text)
    out: list[GuardFinding] = []
    used = 0
    start = 0
    while start < len(lines) and used < budget:
        end = min(len(lines), start + SHARED_CHUNK_LINES)
        while end < len(lines) and lines[end - 1].strip():  # end chunks on a paragraph break
            end += 1
        chunk = "\n".join(lines[start:end])
        if used + len(chunk) > budget:
            chunk = chunk[: budget - used]
        used += len(chunk)
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
    return out, used, sum(map(len, lines)) + len(lines) - 1


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


# -- whole folders ---------------------------------------------------------------------------------


def _ignore_patterns(folder: Path) -> list[str]:
    patterns: list[str] = []
    for name in IGNORE_FILES:
        try:
            text = (folder / name).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        patterns += [p.strip().lstrip("/") for p in text.splitlines() if p.strip() and not p.startswith("#")]
    return patterns


def _ignored(rel: str, patterns: list[str]) -> bool:
    name = rel.rsplit("/", 1)[-1]
    for pattern in patterns:
        bare = pattern.rstrip("/")
        if fnmatch.fnmatch(rel, bare) or fnmatch.fnmatch(name, bare) or rel.startswith(bare + "/"):
            return True
    return False


def _is_script(path: Path, ext: str) -> bool:
    if ext in SCRIPT_EXTS:
        return True
    try:
        with open(path, "rb") as handle:
            return handle.read(2) == b"#!"
    except OSError:
        return False


def _looks_text(path: Path, ext: str) -> bool:
    if ext in TEXT_EXTS:
        return True
    if ext and ext not in (".cfg", ""):
        pass
    try:
        with open(path, "rb") as handle:
            head = handle.read(4096)
    except OSError:
        return False
    if b"\x00" in head:
        return False
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.start >= len(head) - 3
    return True


def scan_folder(
    folder: Path,
    name: str | None = None,
    source: str = "local",
    trust: str = "community",
    limits: GuardLimits | None = None,
) -> GuardReport:
    """Scan every file of a skill folder: structure first, then the content of each text file."""
    started = time.perf_counter()
    limits = limits or GuardLimits()
    folder = Path(folder)
    report = GuardReport(name or folder.name, source, trust)
    base = folder.resolve()
    patterns = _ignore_patterns(folder)
    hasher = hashlib.sha256()
    total_bytes = 0
    file_count = 0
    entries = 0
    prose: list[tuple[str, str]] = []

    def structural(rule: str, category: str, severity: str, rel: str, text: str, why: str) -> None:
        report.findings.append(GuardFinding(rule, category, severity, rel, 0, text[:MATCH_CHARS], why))

    if not (folder / "SKILL.md").is_file():
        structural(
            "missing_skill_md", "structure", MEDIUM, "SKILL.md", "no SKILL.md", "the folder has no SKILL.md"
        )
    for current, dirs, files in os.walk(folder, followlinks=False):
        here = Path(current)
        kept = []
        for d in sorted(dirs):
            rel = (here / d).relative_to(folder).as_posix()
            if (here / d).is_symlink():
                files.append(d)  # judged below like any other symlink
            elif d not in SKIPPED_DIRS:
                kept.append(d)
        dirs[:] = kept
        for filename in sorted(files):
            entries += 1
            if entries > WALK_MAX_ENTRIES:
                structural(
                    "too_many_files",
                    "structure",
                    HIGH,
                    ".",
                    f"over {WALK_MAX_ENTRIES:,} entries",
                    "the folder is far too large to be a skill; the rest was not scanned",
                )
                return _finish(report, hasher, started)
            path = here / filename
            rel = path.relative_to(folder).as_posix()
            try:
                info = os.lstat(path)
            except OSError:
                continue
            if stat.S_ISLNK(info.st_mode):
                target = os.readlink(path)
                hasher.update(rel.encode() + b"\0" + target.encode())
                resolved = path.resolve()
                if not (resolved == base or resolved.is_relative_to(base)):
                    structural(
                        "symlink_escape",
                        "traversal",
                        CRITICAL,
                        rel,
                        f"-> {target}",
                        "a symlink that points outside the skill's folder",
                    )
                elif not resolved.exists():
                    structural("broken_symlink", "structure", MEDIUM, rel, f"-> {target}", "a broken symlink")
                continue
            if not stat.S_ISREG(info.st_mode):
                continue
            file_count += 1
            total_bytes += info.st_size
            ext = path.suffix.lower()
            if filename == "Dockerfile" or filename == "Makefile":
                ext = ".mk"
            if ext in BINARY_EXEC_EXTS:
                structural(
                    "binary_executable",
                    "execution",
                    CRITICAL,
                    rel,
                    f"{info.st_size:,} bytes",
                    "a compiled program or installer inside a skill",
                )
            if info.st_size > limits.max_file_bytes:
                structural(
                    "oversized_file",
                    "structure",
                    MEDIUM,
                    rel,
                    f"{info.st_size:,} bytes",
                    f"a file over {limits.max_file_bytes // 1024:,} KiB",
                )
            if info.st_mode & 0o111 and not _is_script(path, ext):
                structural(
                    "exec_bit_non_script",
                    "execution",
                    MEDIUM,
                    rel,
                    oct(info.st_mode & 0o777),
                    "an executable bit on a file that is not a script",
                )
            try:
                data = path.read_bytes() if info.st_size <= SCAN_MAX_BYTES else b""
            except OSError:
                data = b""
            hasher.update(rel.encode() + b"\0" + data)
            if not data or ext in BINARY_EXEC_EXTS:
                continue
            if (
                rel != "SKILL.md"
                and _ignored(rel, patterns)
                and not (ext in SCRIPT_EXTS or info.st_mode & 0o111)
            ):
                continue  # .skillignore may skip data files, never SKILL.md, scripts or executables
            if not _looks_text(path, ext):
                continue
            text = data.decode("utf-8", errors="replace")
            report.files_scanned += 1
            report.lines_scanned += text.count("\n") + 1
            report.findings += scan_text(text, rel)
            report.findings += invisible_findings(text, rel)
            if ext in PROSE_EXTS:
                prose.append((rel, text))
    prose.sort(key=lambda item: (item[0] != "SKILL.md", len(item[1])))  # SKILL.md first, then short files
    budget = limits.shared_scan_chars
    for rel, text in prose:
        found, used, total = shared_findings(text, rel, max(budget, 0))
        report.findings += found
        report.shared_chars += used
        report.prose_chars += total
        budget -= used
    if file_count > limits.max_files:
        structural(
            "too_many_files",
            "structure",
            MEDIUM,
            ".",
            f"{file_count} files",
            f"more than {limits.max_files} files",
        )
    if total_bytes > limits.max_total_bytes:
        structural(
            "oversized_skill",
            "structure",
            HIGH,
            ".",
            f"{total_bytes:,} bytes",
            f"more than {limits.max_total_bytes // 1024:,} KiB in all",
        )
    return _finish(report, hasher, started)


def _finish(report: GuardReport, hasher: Any, started: float) -> GuardReport:
    report.content_hash = "sha256:" + hasher.hexdigest()[:16]
    report.elapsed_ms = (time.perf_counter() - started) * 1000
    return report


def content_hash(folder: Path) -> str:
    """Hermes' skill fingerprint: sha256 over (relative path, NUL, bytes) of each file, 16 hex digits."""
    return scan_folder(folder).content_hash
