"""The difference between two skill folders, as one unified diff (what an update would change)."""

from __future__ import annotations

import difflib
from pathlib import Path

SKIP = frozenset({".git", "__pycache__", "node_modules", ".venv", "venv"})


def _files(folder: Path) -> dict[str, bytes]:
    if not folder.is_dir():
        return {}
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and not p.is_symlink() and not SKIP & set(p.relative_to(folder).parts)
    }


def _text(data: bytes | None) -> list[str] | None:
    if data is None:
        return []
    try:
        return data.decode("utf-8").splitlines(keepends=True)
    except UnicodeDecodeError:
        return None


def folder_diff(old: Path, new: Path) -> str:
    """Unified diff of every file that differs (`a/` the installed skill, `b/` the incoming one)."""
    before, after = _files(old), _files(new)
    out: list[str] = []
    for rel in sorted(set(before) | set(after)):
        a, b = before.get(rel), after.get(rel)
        if a == b:
            continue
        old_lines, new_lines = _text(a), _text(b)
        if old_lines is None or new_lines is None:
            out.append(f"Binary file {rel} differs\n")
            continue
        name_a = f"a/{rel}" if a is not None else "/dev/null"
        name_b = f"b/{rel}" if b is not None else "/dev/null"
        for line in difflib.unified_diff(old_lines, new_lines, name_a, name_b):
            out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)
