"""The memory file format shared by the store and the snapshot: entries, usage, batch edits, the write."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engine.storage.atomic import Changed, compare_and_replace, replace_with

DELIMITER = "\n§\n"
FILES = {"memory": "MEMORY.md", "user": "USER.md"}
TARGETS = tuple(FILES)


class MemoryRefused(Exception):
    """A write the store refuses; carries the tool's error result."""

    def __init__(self, result: dict[str, Any]) -> None:
        super().__init__(result["error"])
        self.result = result


PREVIEW_CHARS = 80


def parse_entries(raw: str) -> list[str]:
    """Hermes' read: split on the delimiter, strip, drop empties, keep the first of duplicates."""
    if not raw.strip():
        return []
    return list(dict.fromkeys(e for e in (part.strip() for part in raw.split(DELIMITER)) if e))


def serialize(entries: list[str]) -> str:
    """Hermes' write: entries joined by the delimiter, no trailing newline."""
    return DELIMITER.join(entries)


def char_count(entries: list[str]) -> int:
    return len(serialize(entries))


def usage_text(current: int, limit: int) -> str:
    """`"{pct}% — {cur:,}/{lim:,} chars"`, the percentage capped at 100."""
    return f"{percent(current, limit)}% — {current:,}/{limit:,} chars"


def percent(current: int, limit: int) -> int:
    return min(100, int(current / limit * 100)) if limit > 0 else 0


def previews(entries: list[str]) -> list[str]:
    return [e[:PREVIEW_CHARS] + ("..." if len(e) > PREVIEW_CHARS else "") for e in entries]


def apply_operation(working: list[str], op: dict[str, Any], number: int) -> str | None:
    """Apply one batch operation to `working` in place; return the failure sentence, if any."""
    action = op.get("action")
    content = str(op.get("content") or "").strip()
    old_text = str(op.get("old_text") or "").strip()
    where = f"Operation {number} ({action or 'unknown'})"
    if action == "add":
        if not content:
            return f"{where}: content is required."
        if content not in working:
            working.append(content)
        return None
    if action not in ("replace", "remove"):
        return f"{where}: unknown action. Use add, replace, or remove."
    if not old_text:
        return f"{where}: old_text is required."
    if action == "replace" and not content:
        return f"{where}: content is required (use action='remove' to delete)."
    matches = [i for i, e in enumerate(working) if old_text in e]
    if not matches:
        return f"{where}: no entry matched '{old_text}'."
    if len({working[i] for i in matches}) > 1:
        return f"{where}: '{old_text}' matched multiple distinct entries -- be more specific."
    if action == "replace":
        working[matches[0]] = content
        deduped = list(dict.fromkeys(working))
        working[:] = deduped
    else:
        working.pop(matches[0])
    return None


def revert_entries(before: list[str], after: list[str], current: list[str]) -> list[str] | str:
    """Take back what one change did to the entries, keeping everything changed since."""
    added = [e for e in after if e not in before]
    removed = [(i, e) for i, e in enumerate(before) if e not in after]
    missing = [e for e in added if e not in current]
    if missing:
        return f"the entry '{previews(missing)[0]}' was changed again since; undo that later change first."
    result = [e for e in current if e not in added]
    for index, text in removed:
        if text not in result:
            result.insert(min(index, len(result)), text)
    return result


def write_memory_file(path: Path, text: str, expect: str | None = None) -> str | None:
    """Hermes' write: a `.mem_*.tmp` file in the same folder, fsync, `os.replace`; the temp file never stays.

    With `expect` (the text the caller read under its lock) the write is a compare-and-swap against
    writers that take no lock: None means the file changed meanwhile and nothing was written, so
    the caller reads again and redoes its change. Returns the text now on disk.

    The folder is not fsynced (as in Hermes): that would double the cost of every write, and a power
    cut can then at worst bring back the previous version of the file, never a torn one.
    """
    if expect is None:
        replace_with(path, text.encode("utf-8"), tmp_prefix=".mem_")
        return text
    expected = expect.encode("utf-8") if expect or path.exists() else None
    try:
        written = compare_and_replace(path, text.encode("utf-8"), expected, tmp_prefix=".mem_")
    except Changed:
        return None
    return written.decode("utf-8", "replace")
