"""Per-session record of each skill's tier: only indexed (1), loaded (2), files opened (3), with token costs.

The workstation's skill pane reads `rows()`; the tools feed it as the model calls skill_view.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from engine.skills.index import SkillIndex


@dataclass
class SkillTier:
    """One skill in one session: its index cost, its Tier 2 cost (0 = never loaded), files opened."""

    name: str
    index_tokens: int = 0
    index_shown: str = ""  # full | cut | name | hidden | "" (not in the index)
    loaded_tokens: int = 0
    loads: int = 0
    files: dict[str, int] = field(default_factory=dict)

    @property
    def tier(self) -> int:
        if self.files:
            return 3
        return 2 if self.loads else 1

    @property
    def total_tokens(self) -> int:
        return self.index_tokens + self.loaded_tokens + sum(self.files.values())


class SessionTiers:
    """Tier bookkeeping for one session; thread-safe because tools may run in a worker thread."""

    def __init__(self, session_id: str = "") -> None:
        self.session_id = session_id
        self._skills: dict[str, SkillTier] = {}
        self._lock = threading.Lock()
        self.index_tokens = 0

    def _row(self, name: str) -> SkillTier:
        row = self._skills.get(name)
        if row is None:
            row = self._skills[name] = SkillTier(name)
        return row

    def set_index(self, index: SkillIndex) -> None:
        """Record what the session's Tier 1 index holds; called once when the prompt is built."""
        with self._lock:
            self.index_tokens = index.tokens
            for entry in index.entries:
                row = self._row(entry.name)
                row.index_tokens, row.index_shown = entry.tokens, entry.shown

    def record_load(self, name: str, tokens: int) -> None:
        with self._lock:
            row = self._row(name)
            row.loads += 1
            row.loaded_tokens += tokens

    def record_file(self, name: str, file_path: str, tokens: int) -> None:
        with self._lock:
            row = self._row(name)
            row.files[file_path] = row.files.get(file_path, 0) + tokens

    def rows(self) -> list[SkillTier]:
        """Every skill the session knows, deepest tier first, then by name."""
        with self._lock:
            rows = [
                SkillTier(r.name, r.index_tokens, r.index_shown, r.loaded_tokens, r.loads, dict(r.files))
                for r in self._skills.values()
            ]
        return sorted(rows, key=lambda r: (-r.tier, r.name))

    def get(self, name: str) -> SkillTier | None:
        with self._lock:
            return self._skills.get(name)

    def totals(self) -> dict[str, int]:
        """Token spend by tier, for the pane's footer."""
        rows = self.rows()
        return {
            "indexed": sum(1 for r in rows if r.tier == 1),
            "loaded": sum(1 for r in rows if r.loads),
            "files_opened": sum(len(r.files) for r in rows),
            "index_tokens": self.index_tokens,
            "loaded_tokens": sum(r.loaded_tokens for r in rows),
            "file_tokens": sum(sum(r.files.values()) for r in rows),
        }
