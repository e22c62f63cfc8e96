"""The guard's verdict on each skill, kept between runs for the skills pane and the skill gate.

Scanning 200 skills with the guard costs about a quarter of a second of CPU (500 skills: over half
a second), and the workstation did it at every start, beside the panes' first readings. A verdict
is kept in `hws/guard-verdicts.json` with what it depends on: a fingerprint of every entry of the
skill's folder (path, type, size, mtime), the trust level and limits it was judged with, and the
guard's own rules (a digest of their source); when any of these differs the skill is scanned
again. It only spares the pane work: installing or writing a skill always runs the guard itself.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
from dataclasses import astuple
from pathlib import Path
from typing import Any

from engine.skills.guard import SKIPPED_DIRS, GuardLimits
from engine.storage.atomic import WriteError, atomic_write_text

CACHE_FILE = "guard-verdicts.json"
RULE_MODULES = (
    "skills/guard.py",
    "skills/guard_rules.py",
    "skills/guard_content.py",
    "skills/guard_code.py",
    "skills/gate.py",
    "threats.py",
    "threat_patterns.py",
    "threat_i18n.py",
    "threat_normalise.py",
    "threat_decode.py",
    "threat_intents.py",
    "threat_shapes.py",
    "threat_lexicon.py",
    "threat_vocab.py",
)


@functools.cache
def rules_digest() -> str:
    """A digest of the guard's source: a changed rule makes every kept verdict stale."""
    engine_dir = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256()
    for name in RULE_MODULES:
        with contextlib.suppress(OSError):
            digest.update(name.encode() + b"\0" + (engine_dir / name).read_bytes())
    return digest.hexdigest()[:16]


def folder_stamp(folder: Path) -> str:
    """Every entry of the folder as the guard walks it (path, type, size, mtime), digested."""
    digest = hashlib.sha256()
    for current, dirs, files in os.walk(folder, followlinks=False):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS)
        here = Path(current)
        for name in sorted(files + [d for d in dirs if (here / d).is_symlink()]):
            path = here / name
            try:
                info = os.lstat(path)
            except OSError:
                continue
            rel = path.relative_to(folder).as_posix()
            entry = f"{rel}\0{info.st_mode}\0{info.st_size}\0{info.st_mtime_ns}\n"
            digest.update(entry.encode("utf-8", "surrogateescape"))
    return digest.hexdigest()[:24]


class VerdictCache:
    """Kept verdicts (verdict, findings) by skill folder; `save()` writes them back when any changed."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.entries: dict[str, dict[str, Any]] = {}
        self.dirty = False
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return  # missing or damaged: the skills are scanned again, nothing else is lost
        if isinstance(data, dict) and data.get("rules") == rules_digest():
            entries = data.get("skills")
            if isinstance(entries, dict):
                self.entries = {k: v for k, v in entries.items() if isinstance(v, dict)}

    @staticmethod
    def _judged_with(folder: Path, trust: str, limits: GuardLimits) -> list[Any]:
        return [folder_stamp(folder), trust, list(astuple(limits))]

    def get(self, folder: Path, trust: str, limits: GuardLimits) -> tuple[str, int] | None:
        found = self.entry(folder, trust, limits)
        return None if found is None else found[:2]

    def entry(self, folder: Path, trust: str, limits: GuardLimits) -> tuple[str, int, str] | None:
        """(verdict, findings, reason) kept for the folder as it stands now, or None."""
        entry = self.entries.get(str(folder))
        if entry is None or entry.get("judged_with") != self._judged_with(folder, trust, limits):
            return None
        verdict, findings, reason = entry.get("verdict"), entry.get("findings"), entry.get("reason", "")
        if not isinstance(verdict, str) or not isinstance(findings, int) or not isinstance(reason, str):
            return None
        return verdict, findings, reason

    def put(
        self, folder: Path, trust: str, limits: GuardLimits, verdict: str, findings: int, reason: str = ""
    ) -> None:
        judged_with = self._judged_with(folder, trust, limits)
        self.entries[str(folder)] = {
            "judged_with": judged_with,
            "verdict": verdict,
            "findings": findings,
            "reason": reason,
        }
        self.dirty = True

    def keep_only(self, folders: set[str]) -> None:
        """Forget skills that are gone (a pane scanning every skill knows them all)."""
        stale = [key for key in self.entries if key not in folders]
        for key in stale:
            del self.entries[key]
        self.dirty = self.dirty or bool(stale)

    def save(self) -> None:
        if not self.dirty:
            return
        with contextlib.suppress(OSError, WriteError):  # a read-only home scans again next time
            self.path.parent.mkdir(parents=True, exist_ok=True)
            payload = {"rules": rules_digest(), "skills": self.entries}
            atomic_write_text(self.path, json.dumps(payload, ensure_ascii=False))
            self.dirty = False
