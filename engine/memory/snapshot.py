"""The frozen memory snapshot: what the model sees of MEMORY.md and USER.md for a whole session.

It is read once (at session start, or after compression) and never changes afterwards, whatever is
written to the files meanwhile, so the system prompt stays byte-identical and cacheable. An entry
that fails the strict threat scan is replaced by a `[BLOCKED: ...]` line here only; the file keeps it
so the user can see and remove it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from engine.memory.format import DELIMITER, FILES, MemoryRefused, percent
from engine.threats.scan import pattern_ids

if TYPE_CHECKING:
    from engine.memory.store import MemoryStore

SEPARATOR = "═" * 46
HEADERS = {"memory": "MEMORY (your personal notes)", "user": "USER PROFILE (who the user is)"}
OVER_BUDGET = " ⚠ OVER BUDGET"
HEAD_SHARE, TAIL_SHARE = 0.7, 0.2  # of the render cap, kept from the start and the end of a huge block


def blocked_line(filename: str, ids: list[str]) -> str:
    return (
        f"[BLOCKED: {filename} entry contained threat pattern(s): {', '.join(ids)}. Removed from system "
        "prompt; use memory(action=remove) to delete the original.]"
    )


@dataclass(frozen=True)
class TargetSnapshot:
    """One target as loaded: the live entries, what the prompt shows, and which entries were blocked."""

    target: str
    limit: int
    entries: tuple[str, ...]
    shown: tuple[str, ...]
    blocked: dict[int, tuple[str, ...]] = field(default_factory=dict)  # entry index -> pattern ids
    error: str = ""

    @property
    def chars(self) -> int:
        return len(DELIMITER.join(self.shown))

    def render(self, min_cap: int) -> str:
        """The block: 46 '═', the header with usage, 46 '═', the entries; empty when there are none."""
        if not self.shown:
            return ""
        content = DELIMITER.join(self.shown)
        current = len(content)
        header = (
            f"{HEADERS[self.target]} [{percent(current, self.limit)}% — {current:,}/{self.limit:,} chars]"
        )
        if current > self.limit:
            header += OVER_BUDGET
        cap = max(2 * self.limit, min_cap)
        if current > cap:
            head, tail = content[: int(cap * HEAD_SHARE)], content[-int(cap * TAIL_SHARE) :]
            omitted = current - len(head) - len(tail)
            content = f"{head}\n[… {omitted:,} chars of {FILES[self.target]} omitted …]\n{tail}"
        return f"{SEPARATOR}\n{header}\n{SEPARATOR}\n{content}"


@dataclass(frozen=True)
class MemorySnapshot:
    """Both targets as loaded at one moment; immutable, so mid-session writes cannot reach it."""

    targets: dict[str, TargetSnapshot]
    min_cap: int
    loaded_at: float

    @classmethod
    def load(cls, stores: dict[str, MemoryStore], min_cap: int) -> MemorySnapshot:
        return cls({name: _load_target(store) for name, store in stores.items()}, min_cap, time.time())

    def block(self, target: str) -> str | None:
        """The rendered block of one target, or None when it is empty or disabled."""
        snap = self.targets.get(target)
        text = snap.render(self.min_cap) if snap else ""
        return text or None

    def render(self) -> str:
        """Every non-empty block, memory first, separated by a blank line."""
        return "\n\n".join(b for b in (self.block(t) for t in FILES) if b)


def _load_target(store: MemoryStore) -> TargetSnapshot:
    try:
        entries = store.entries()
    except MemoryRefused as refused:  # an unreadable file shows as nothing, and says why
        return TargetSnapshot(store.target, store.limit, (), (), {}, str(refused))
    shown = []
    blocked = {}
    for index, entry in enumerate(entries):
        ids = pattern_ids(entry, "strict")
        if ids:
            blocked[index] = tuple(ids)
            shown.append(blocked_line(store.filename, ids))
        else:
            shown.append(entry)
    return TargetSnapshot(store.target, store.limit, tuple(entries), tuple(shown), blocked)
