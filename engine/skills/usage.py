"""`skills/.usage.json`: how often and how recently each skill was used, in Hermes Agent's format.

The index orders descriptions by it (most-used and most-recent first). Records are keyed by skill
name; fields we do not know are kept as they are, so Hermes' curator still finds its own.
"""

from __future__ import annotations

import contextlib
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from engine.storage.atomic import WriteError, atomic_write_text, file_lock

USAGE_FILE = ".usage.json"


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _timestamp(value: Any) -> float:
    """Hermes writes ISO strings; older files hold epoch numbers. Anything else counts as never."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str) and value:
        with contextlib.suppress(ValueError):
            parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
            if parsed.tzinfo is None:
                parsed = parsed.replace(tzinfo=UTC)
            return parsed.timestamp()
    return 0.0


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


class UsageStore:
    """Reads and bumps the usage counters; a damaged file reads as empty and is never overwritten blind."""

    def __init__(self, skills_dir: Path) -> None:
        self.path = skills_dir / USAGE_FILE

    def load(self) -> dict[str, dict[str, Any]]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict):
            return {}
        return {str(k): v for k, v in data.items() if isinstance(v, dict)}

    def priority(self, records: dict[str, dict[str, Any]], name: str) -> tuple[int, float]:
        """(uses, last activity): the sort key of most-used, then most-recent."""
        record = records.get(name) or {}
        uses = _count(record.get("use_count")) + _count(record.get("view_count"))
        recent = max(
            _timestamp(record.get("last_used_at")),
            _timestamp(record.get("last_viewed_at")),
            _timestamp(record.get("last_patched_at")),
            _timestamp(record.get("created_at")),
        )
        return uses, recent

    def is_pinned(self, name: str) -> bool:
        return bool((self.load().get(name) or {}).get("pinned"))

    def bump(self, name: str, event: str, who: str = "agent") -> None:
        """Count a view, a use, a patch or a creation; failures are silent (usage is advisory)."""
        with contextlib.suppress(OSError, WriteError, ValueError):
            if not self.path.parent.is_dir():
                return
            with file_lock(self.path):
                raw_text = self.path.read_text(encoding="utf-8") if self.path.exists() else "{}"
                data = json.loads(raw_text) if raw_text.strip() else {}
                if not isinstance(data, dict):
                    return  # someone else's format: leave it alone
                record = data.get(name)
                if not isinstance(record, dict):
                    record = {}
                stamp = now_iso()
                if event == "view":
                    record["view_count"] = _count(record.get("view_count")) + 1
                    record["last_viewed_at"] = stamp
                elif event == "use":
                    record["use_count"] = _count(record.get("use_count")) + 1
                    record["last_used_at"] = stamp
                elif event == "patch":
                    record["patch_count"] = _count(record.get("patch_count")) + 1
                    record["last_patched_at"] = stamp
                elif event == "create":
                    record.setdefault("created_at", stamp)
                    record.setdefault("created_by", who)
                    record.setdefault("state", "active")
                elif event == "delete":
                    data.pop(name, None)
                    atomic_write_text(self.path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
                    return
                data[name] = record
                atomic_write_text(self.path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
