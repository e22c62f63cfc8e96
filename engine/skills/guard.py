"""The skills guard: scans a whole skill folder and decides, by trust level, whether it may be installed.

Content: the shared threat scanner (prompt injection in the prose the model reads) plus the skill
patterns in `guard_rules` (shell, code, credentials). Structure: too many files, oversized files,
executables, symlinks out of the folder, exec bits on non-scripts. Verdict: any critical finding →
dangerous, any high → caution, else safe. The line-by-line scanning lives in `guard_content`.
"""

from __future__ import annotations

import errno
import fnmatch
import os
import stat
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from engine.skills import frontmatter as fm
from engine.skills.fingerprint import content_hash
from engine.skills.guard_content import (
    MATCH_CHARS,
    SEVERITY_RANK,
    GuardFinding,
    code_intent_findings,
    hidden_findings,
    invisible_findings,
    present_triggers,
    scan_text,
    shared_findings,
)
from engine.skills.guard_rules import CRITICAL, HIGH, MEDIUM
from engine.text.printable import has_unsafe, printable

__all__ = ["GuardFinding", "invisible_findings", "scan_text", "shared_findings"]

SAFE, CAUTION, DANGEROUS = "safe", "caution", "dangerous"
TRUST_LEVELS = ("builtin", "trusted", "community", "agent-created")
ALLOW, BLOCK, ASK = "allow", "block", "ask"
POLICY: dict[str, dict[str, str]] = {
    "builtin": {SAFE: ALLOW, CAUTION: ALLOW, DANGEROUS: ALLOW},
    "trusted": {SAFE: ALLOW, CAUTION: ALLOW, DANGEROUS: BLOCK},
    "community": {SAFE: ALLOW, CAUTION: BLOCK, DANGEROUS: BLOCK},
    "agent-created": {SAFE: ALLOW, CAUTION: ALLOW, DANGEROUS: ASK},
}

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


@dataclass(frozen=True)
class GuardLimits:
    max_files: int = 50
    max_total_bytes: int = 1024 * 1024
    max_file_bytes: int = 256 * 1024
    shared_scan_chars: int = 16 * 1024
    code_scan_chars: int = 64 * 1024

    @classmethod
    def from_config(cls, skills: Any) -> GuardLimits:
        return cls(
            int(skills.guard_max_files),
            int(skills.guard_max_total_kb) * 1024,
            int(skills.guard_max_file_kb) * 1024,
            int(skills.guard_shared_scan_kb) * 1024,
            int(skills.guard_code_scan_kb) * 1024,
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
    code_chars: int = 0  # text, code included, read in depth (rebuilt, decoded, intents)
    text_chars: dict[str, int] = field(default_factory=dict)  # characters of each text file
    refused_by_review: str = ""  # the second opinion's refusal (security.aux_review), when it refused

    @property
    def verdict(self) -> str:
        return verdict_of(self.findings)

    @property
    def uncertain(self) -> list[GuardFinding]:
        """What the shared scanner could not settle (medium: the verdict ignores it), for a second opinion."""
        return [
            f for f in self.findings if f.severity == MEDIUM and f.rule.startswith(("threats.", "intents."))
        ]

    def decision(self, force: bool = False) -> Decision:
        if self.refused_by_review:
            return Decision(BLOCK, self.refused_by_review)
        return decide(self.verdict, self.trust, force)

    def sorted_findings(self) -> list[GuardFinding]:
        return sorted(self.findings, key=lambda f: (SEVERITY_RANK[f.severity], f.file, f.line, f.rule))

    def format(self, force: bool = False) -> str:
        """Hermes' report: a header with the verdict, one line per finding, then the decision."""
        lines = [
            f"Scan: {printable(self.name)} ({self.source}/{self.trust})  Verdict: {self.verdict.upper()}"
        ]
        for f in self.sorted_findings():
            where = f"{f.file}:{f.line}" if f.line else f.file
            lines.append(
                f'  {f.severity.upper()} {f.category} {printable(where)} "{printable(f.match[:60])}"'
            )
        if self.shared_chars < self.prose_chars:
            lines.append(
                f"  note: the shared threat scanner read {self.shared_chars:,} of {self.prose_chars:,} "
                "characters of prose (skills.guard_shared_scan_kb); the skill patterns read every line"
            )
        total = sum(self.text_chars.values())
        if self.code_chars < total:
            lines.append(
                f"  note: {self.code_chars:,} of {total:,} characters were read in depth (rebuilt lines, "
                "decoded layers, intents; skills.guard_code_scan_kb, SKILL.md and scripts first)"
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
            "code_chars": self.code_chars,
            "elapsed_ms": round(self.elapsed_ms, 2),
            "findings": [asdict(f) for f in self.sorted_findings()],
        }


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


@dataclass
class _Walk:
    """What one pass over a folder gathered: the text files to scan and the totals for the checks."""

    texts: list[tuple[str, str, str]] = field(default_factory=list)  # (relative path, extension, text)
    binaries: list[tuple[str, str]] = field(default_factory=list)  # (relative path, kind) by magic bytes
    file_count: int = 0
    total_bytes: int = 0


def _structural(
    report: GuardReport, rule: str, category: str, severity: str, rel: str, text: str, why: str
) -> None:
    report.findings.append(GuardFinding(rule, category, severity, rel, 0, text[:MATCH_CHARS], why))


_MAGIC = (  # executable formats, by their first bytes: ELF, Mach-O (both orders, fat), Windows PE
    (b"\x7fELF", "an ELF executable"),
    (b"\xfe\xed\xfa\xce", "a Mach-O executable"),
    (b"\xfe\xed\xfa\xcf", "a Mach-O executable"),
    (b"\xce\xfa\xed\xfe", "a Mach-O executable"),
    (b"\xcf\xfa\xed\xfe", "a Mach-O executable"),
    (b"\xca\xfe\xba\xbe", "a Mach-O universal executable"),
    (b"MZ", "a Windows executable"),
)
_SPECIAL_KINDS = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def executable_format(head: bytes) -> str:
    """What kind of executable `head` (a file's first bytes) starts, or "" for anything else."""
    for magic, kind in _MAGIC:
        if head.startswith(magic):
            if magic == b"MZ" and b"PE\0\0" not in head[:1024] and b"This program" not in head[:256]:
                continue  # two letters are not enough to call a file a Windows program
            return kind
    return ""


def special_kind(mode: int) -> str:
    """ "a FIFO", "a character device", … for an entry that is neither a file, a folder nor a link."""
    return next((kind for test, kind in _SPECIAL_KINDS if test(mode)), "")


def _walk(folder: Path, report: GuardReport, limits: GuardLimits) -> _Walk:
    """Judge the structure of every entry and collect the text files.

    Nothing here can stop the scan: a symlink loop, a FIFO, a device or an unreadable file is a
    finding, and a file name with control characters is reported (escaped) rather than printed.
    """
    walk = _Walk()
    try:
        base = folder.resolve(strict=True)
    except (OSError, RuntimeError):
        base = folder.absolute()
    patterns = _ignore_patterns(folder)
    entries = 0
    for current, dirs, files in os.walk(folder, followlinks=False):
        here = Path(current)
        files += [d for d in dirs if (here / d).is_symlink()]  # judged below like any other symlink
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not (here / d).is_symlink())
        for filename in sorted(files):
            entries += 1
            if entries > WALK_MAX_ENTRIES:
                _structural(
                    report,
                    "too_many_files",
                    "structure",
                    HIGH,
                    ".",
                    f"over {WALK_MAX_ENTRIES:,} entries",
                    "the folder is far too large to be a skill; the rest was not read",
                )
                return walk
            path = here / filename
            raw_rel = path.relative_to(folder).as_posix()
            rel = printable(raw_rel)
            if has_unsafe(raw_rel):
                _structural(
                    report,
                    "control_chars_in_name",
                    "obfuscation",
                    CRITICAL,
                    rel,
                    rel,
                    "a file name with control or direction characters (terminal escapes, hidden text)",
                )
            try:
                info = os.lstat(path)
            except OSError as exc:
                _structural(
                    report, "unreadable_file", "structure", HIGH, rel, str(exc.strerror), "cannot be read"
                )
                continue
            if stat.S_ISLNK(info.st_mode):
                _judge_link(path, rel, base, report)
                continue
            if stat.S_ISREG(info.st_mode):
                _judge_file(path, rel, info, report, limits, patterns, walk)
                continue
            kind = special_kind(info.st_mode)
            if kind:
                _structural(
                    report,
                    "special_file",
                    "structure",
                    HIGH,
                    rel,
                    kind,
                    f"{kind} in a skill; it is never opened",
                )
    return walk


def _judge_link(path: Path, rel: str, base: Path, report: GuardReport) -> None:
    try:
        target = os.readlink(path)
    except OSError:
        target = "?"
    shown = f"-> {printable(target)}"
    try:
        resolved = path.resolve(strict=True)
    except RuntimeError:
        _structural(
            report, "symlink_loop", "structure", HIGH, rel, shown, "a symlink that loops back on itself"
        )
        return
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            _structural(
                report, "symlink_loop", "structure", HIGH, rel, shown, "a symlink that loops back on itself"
            )
            return
        resolved = path.resolve()  # dangling: where it would point
    if not (resolved == base or resolved.is_relative_to(base)):
        _structural(
            report,
            "symlink_escape",
            "traversal",
            CRITICAL,
            rel,
            shown,
            "a symlink that points outside the skill's folder",
        )
    elif not resolved.exists():
        _structural(report, "broken_symlink", "structure", MEDIUM, rel, shown, "a broken symlink")


def _judge_file(
    path: Path,
    rel: str,
    info: os.stat_result,
    report: GuardReport,
    limits: GuardLimits,
    patterns: list[str],
    walk: _Walk,
) -> None:
    walk.file_count += 1
    walk.total_bytes += info.st_size
    ext = ".mk" if path.name in ("Dockerfile", "Makefile") else path.suffix.lower()
    if ext in BINARY_EXEC_EXTS:
        _structural(
            report,
            "binary_executable",
            "execution",
            CRITICAL,
            rel,
            f"{info.st_size:,} bytes",
            "a compiled program or installer inside a skill",
        )
    if info.st_size > limits.max_file_bytes:
        _structural(
            report,
            "oversized_file",
            "structure",
            MEDIUM,
            rel,
            f"{info.st_size:,} bytes",
            f"a file over {limits.max_file_bytes // 1024:,} KiB",
        )
    try:
        with open(path, "rb") as handle:  # a regular file (lstat said so): opening it cannot block
            data = handle.read() if info.st_size <= SCAN_MAX_BYTES else handle.read(4096)
    except OSError as exc:
        _structural(
            report,
            "unreadable_file",
            "structure",
            HIGH,
            rel,
            str(exc.strerror),
            "cannot be read, so it cannot be checked",
        )
        return
    if info.st_mode & 0o111 and not _is_script(path, ext):
        _structural(
            report,
            "exec_bit_non_script",
            "execution",
            MEDIUM,
            rel,
            oct(info.st_mode & 0o777),
            "an executable bit on a file that is not a script",
        )
    kind = executable_format(data[:1024])
    if kind and ext not in BINARY_EXEC_EXTS:
        walk.binaries.append((rel, kind))
    if info.st_size > SCAN_MAX_BYTES:
        data = b""
    if not data or ext in BINARY_EXEC_EXTS or kind:
        return
    if rel != "SKILL.md" and _ignored(rel, patterns) and not (ext in SCRIPT_EXTS or info.st_mode & 0o111):
        return  # .skillignore may skip data files, never SKILL.md, scripts or executables
    if _looks_text(path, ext):
        walk.texts.append((rel, ext, data.decode("utf-8", errors="replace")))


def _declared_binaries(walk: _Walk) -> set[str]:
    """Paths SKILL.md's frontmatter lists under `binaries:` (the skill says it ships them)."""
    skill_md = next((text for rel, _ext, text in walk.texts if rel == "SKILL.md"), "")
    try:
        meta = fm.parse_lenient(skill_md).meta if skill_md else {}
    except fm.FrontmatterError:
        return set()
    listed = meta.get("binaries")
    if isinstance(meta.get("metadata"), dict) and listed is None:
        listed = meta["metadata"].get("binaries")
    return {str(item).strip().removeprefix("./") for item in listed} if isinstance(listed, list) else set()


def _judge_binaries(walk: _Walk, report: GuardReport) -> None:
    declared = _declared_binaries(walk)
    for rel, kind in walk.binaries:
        if rel in declared:
            _structural(
                report,
                "declared_binary",
                "execution",
                HIGH,
                rel,
                kind,
                f"{kind} the skill declares; review before use",
            )
        else:
            _structural(
                report,
                "undeclared_binary",
                "execution",
                CRITICAL,
                rel,
                kind,
                f"{kind} the skill does not declare under `binaries:` in SKILL.md",
            )


def scan_folder(
    folder: Path,
    name: str | None = None,
    source: str = "local",
    trust: str = "community",
    limits: GuardLimits | None = None,
) -> GuardReport:
    """Scan every file of a skill folder: structure, the skill patterns, then the shared scanner on prose."""
    started = time.perf_counter()
    limits = limits or GuardLimits()
    folder = Path(folder)
    report = GuardReport(name or folder.name, source, trust)
    if not (folder / "SKILL.md").is_file():
        _structural(
            report,
            "missing_skill_md",
            "structure",
            MEDIUM,
            "SKILL.md",
            "no SKILL.md",
            "the folder has no SKILL.md",
        )
    walk = _walk(folder, report, limits)
    _judge_binaries(walk, report)
    triggers = present_triggers([text for _rel, _ext, text in walk.texts])  # one vocabulary per folder
    prose: list[tuple[str, str]] = []
    code_budget = limits.code_scan_chars
    deep_first = sorted(
        walk.texts, key=lambda item: (item[0] != "SKILL.md", item[1] not in SCRIPT_EXTS, len(item[2]))
    )
    for rel, ext, text in deep_first:  # SKILL.md, then scripts, then the rest, short files first
        report.files_scanned += 1
        report.lines_scanned += text.count("\n") + 1
        report.text_chars[rel] = len(text)
        report.findings += scan_text(text, rel, triggers=triggers)
        report.findings += invisible_findings(text, rel)
        if code_budget > 0:  # the deep reading (rebuilt lines, decoded layers, intents) has a budget
            deep = text[:code_budget]
            report.findings += hidden_findings(deep, rel)
            found, used = code_intent_findings(deep, rel, code_budget)
            report.findings += found
            report.code_chars += used
            code_budget -= used
        if ext in PROSE_EXTS:
            prose.append((rel, text))
    prose.sort(key=lambda item: (item[0] != "SKILL.md", len(item[1])))  # SKILL.md first, then short files
    budget = limits.shared_scan_chars
    for rel, text in prose:
        report.prose_chars += len(text)
        found, used = shared_findings(text, rel, budget)
        report.findings += found
        report.shared_chars += used
        budget -= used
    if walk.file_count > limits.max_files:
        _structural(
            report,
            "too_many_files",
            "structure",
            MEDIUM,
            ".",
            f"{walk.file_count} files",
            f"more than {limits.max_files} files",
        )
    if walk.total_bytes > limits.max_total_bytes:
        _structural(
            report,
            "oversized_skill",
            "structure",
            HIGH,
            ".",
            f"{walk.total_bytes:,} bytes",
            f"more than {limits.max_total_bytes // 1024:,} KiB in all",
        )
    report.content_hash = content_hash(folder)
    report.elapsed_ms = (time.perf_counter() - started) * 1000
    return report
