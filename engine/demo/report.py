"""What a demo changed in its home, read back from disk, and its checks judged against the same.

Nothing here trusts what the player saw: the summary and every check read the memory files, the
write journal, the skills and `state.db` as they are when the demo ends.
"""

from __future__ import annotations

import contextlib
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.demo.script import PROJECT_PLACEHOLDER, Check
from engine.demo.workspace import DemoWorkspace
from engine.home import Home
from engine.memory.format import parse_entries
from engine.storage.journal import Journal

MEMORY_FILES = (("user", "USER.md"), ("memory", "MEMORY.md"))


@dataclass(frozen=True)
class SessionRow:
    id: str
    parent: str | None
    end_reason: str | None
    started_at: float
    ended_at: float | None
    prompt: str
    messages: int


@dataclass(frozen=True)
class CheckResult:
    check: Check
    ok: bool
    detail: str = ""


@dataclass
class HomeReport:
    """The summary lines, each check's verdict, and the facts they were judged on."""

    home: Path
    lines: list[str] = field(default_factory=list)
    checks: list[CheckResult] = field(default_factory=list)
    sessions: list[SessionRow] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(result.ok for result in self.checks)

    def as_dict(self) -> dict[str, Any]:
        return {
            "home": str(self.home),
            "summary": self.lines,
            "checks": [
                {"check": r.check.describe(), "kind": r.check.kind, "ok": r.ok, "detail": r.detail}
                for r in self.checks
            ],
            "sessions": [
                {"id": s.id, "parent": s.parent, "end_reason": s.end_reason, "messages": s.messages}
                for s in self.sessions
            ],
            "ok": self.ok,
        }


def read_sessions(state_db: Path) -> list[SessionRow]:
    """Every session in the database, oldest first (read-only; an absent database has none)."""
    if not state_db.exists():
        return []
    connection = sqlite3.connect(f"file:{state_db}?mode=ro", uri=True)
    try:
        rows = connection.execute(
            "SELECT s.id, s.parent_session_id, s.end_reason, s.started_at, s.ended_at, "
            "COALESCE(s.system_prompt, ''), (SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id) "
            "FROM sessions s ORDER BY s.started_at, s.rowid"
        ).fetchall()
    finally:
        connection.close()
    return [SessionRow(r[0], r[1], r[2], float(r[3]), r[4], r[5], int(r[6])) for r in rows]


def build_report(workspace: DemoWorkspace) -> HomeReport:
    home = workspace.home
    report = HomeReport(home.root)
    report.sessions = read_sessions(home.state_db)
    journal = Journal(home)
    try:
        report.lines = [
            f"What changed in the demo home ({home.root}):",
            *_memory_lines(home, journal),
            *_skill_lines(home, journal),
            *_session_lines(report.sessions),
            *_project_lines(workspace),
        ]
        report.checks = [
            judge(check, workspace, report.sessions, journal) for check in workspace.script.checks
        ]
    finally:
        journal.close()
    return report


def _memory_lines(home: Home, journal: Journal) -> list[str]:
    lines = []
    for target, filename in MEMORY_FILES:
        path = home.memories / filename
        entries = parse_entries(path.read_text(encoding="utf-8")) if path.exists() else []
        chars = len(path.read_text(encoding="utf-8")) if path.exists() else 0
        lines.append(
            f"  memories/{filename}: {len(entries)} entr{'y' if len(entries) == 1 else 'ies'}, {chars} chars"
        )
        for entry in journal.entries("memory", target):
            lines.append(f"    {entry.who}: {entry.summary}")
    return lines


def _skill_lines(home: Home, journal: Journal) -> list[str]:
    by_skill: dict[str, list[str]] = {}
    paths: dict[str, str] = {}
    for entry in journal.entries("skill"):
        by_skill.setdefault(entry.target, []).append(f"{entry.action} ({entry.who})")
        paths.setdefault(entry.target, entry.path)
    if not by_skill:
        return ["  skills: none written"]
    return [f"  {paths[name]}: {' → '.join(steps)}" for name, steps in by_skill.items()]


def _session_lines(sessions: list[SessionRow]) -> list[str]:
    if not sessions:
        return ["  state.db: no sessions"]
    messages = sum(s.messages for s in sessions)
    lines = [f"  state.db: {len(sessions)} sessions, {messages} messages"]
    for session in sessions:
        link = f" (child of {session.parent})" if session.parent else " (new)"
        ended = f", ended: {session.end_reason}" if session.end_reason else ""
        lines.append(f"    {session.id}{link}{ended}, {session.messages} messages")
    return lines


def _project_lines(workspace: DemoWorkspace) -> list[str]:
    changed, added = [], []
    for path in sorted(p for p in workspace.project.rglob("*") if p.is_file()):
        rel = path.relative_to(workspace.project).as_posix()
        original = workspace.originals.get(rel)
        if original is None:
            added.append(rel)
        else:
            with contextlib.suppress(OSError, UnicodeDecodeError):
                if path.read_text(encoding="utf-8") != original:
                    changed.append(rel)
    lines = [f"  {workspace.project.name}/: {len(changed)} files changed, {len(added)} new"]
    lines += [f"    ~ {rel}" for rel in changed] + [f"    + {rel}" for rel in added]
    return lines


def judge(
    check: Check, workspace: DemoWorkspace, sessions: list[SessionRow], journal: Journal
) -> CheckResult:
    """One check against the home as it is on disk now."""
    kind, value = check.kind, check.value
    if kind == "file_contains":
        raw = value["path"].replace(PROJECT_PLACEHOLDER, str(workspace.project))
        path = Path(raw) if Path(raw).is_absolute() else workspace.home.root / raw
        if not path.exists():
            return CheckResult(check, False, f"{path} does not exist")
        found = value["text"] in path.read_text(encoding="utf-8", errors="replace")
        return CheckResult(check, found, "" if found else f"{path.name} does not contain it")
    if kind == "skill_exists":
        found = any(p.parent.name == value for p in workspace.home.skills.rglob("SKILL.md"))
        return CheckResult(check, found, "" if found else "no SKILL.md of that name under skills/")
    if kind == "skill_patched":
        actions = [e.action for e in journal.entries("skill", value)]
        ok = "create" in actions and "patch" in actions[actions.index("create") :]
        return CheckResult(check, ok, f"history: {', '.join(actions) or 'none'}")
    if kind == "snapshot_frozen":
        return _snapshot_frozen(check, sessions, journal)
    children = [s for s in sessions if s.parent and _ended_by_compression(s.parent, sessions)]
    if kind == "compression_link":
        ok = bool(children) == bool(value)
        detail = f"{children[0].parent} → {children[0].id}" if children else "no session was split"
        return CheckResult(check, ok, detail)
    if kind == "compressed_prompt_contains":
        ok = any(value in s.prompt for s in children)
        return CheckResult(check, ok, "" if children else "no session was split")
    roots = [s for s in sessions if not s.parent]
    if len(roots) < 2:
        return CheckResult(check, False, "no second session was started")
    newest = roots[-1]
    ok = value in newest.prompt
    return CheckResult(check, ok, f"session {newest.id}")


def _ended_by_compression(session_id: str, sessions: list[SessionRow]) -> bool:
    return any(s.id == session_id and s.end_reason == "compression" for s in sessions)


def _snapshot_frozen(check: Check, sessions: list[SessionRow], journal: Journal) -> CheckResult:
    """The text reached a memory file while a session was running whose prompt did not show it."""
    for entry in journal.entries("memory"):
        after = journal.text(entry.after_hash) or ""
        if check.value not in after:
            continue
        running = [
            s for s in sessions if s.started_at <= entry.at and (s.ended_at is None or entry.at <= s.ended_at)
        ]
        if not running:
            return CheckResult(check, False, "no session was running when it was written")
        frozen = all(check.value not in s.prompt for s in running)
        return CheckResult(check, frozen, f"written by {entry.who} during {running[-1].id}")
    return CheckResult(check, False, "no memory write holds it")
