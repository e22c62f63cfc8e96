"""Two versions of one file, for the editor's conflict view: a line diff and a hand-merge buffer.

No common ancestor is kept, so this is a two-way merge: lines both versions share stay as they are,
and every stretch where they differ becomes a marked block holding both sides, in the style git
uses, for the person to resolve. Nothing of either version is dropped.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

MINE_MARK = "<<<<<<< yours (the editor)"
SPLIT_MARK = "======="
DISK_MARK = ">>>>>>> on disk"


@dataclass(frozen=True)
class DiffLine:
    """One line of a diff: `kind` is ` ` (both), `-` (only yours), `+` (only on disk) or `@` (a hunk head)."""

    kind: str
    text: str


def diff_lines(mine: str, disk: str, context: int = 3) -> list[DiffLine]:
    """A unified line diff from the buffer (`-`) to the file on disk (`+`), with `context` lines around."""
    out: list[DiffLine] = []
    lines = difflib.unified_diff(
        mine.splitlines(), disk.splitlines(), "yours", "on disk", n=context, lineterm=""
    )
    for index, line in enumerate(lines):
        if index < 2:
            continue  # the `--- yours` / `+++ on disk` header
        if line.startswith("@@"):
            out.append(DiffLine("@", line))
        elif line[:1] in ("-", "+", " "):
            out.append(DiffLine(line[0], line[1:]))
    return out


def merge_with_markers(mine: str, disk: str) -> str:
    """Both versions in one text: shared lines once, each difference as a yours / on-disk block."""
    ours = mine.splitlines()
    theirs = disk.splitlines()
    out: list[str] = []
    matcher = difflib.SequenceMatcher(a=ours, b=theirs, autojunk=False)
    for tag, a1, a2, b1, b2 in matcher.get_opcodes():
        if tag == "equal":
            out += ours[a1:a2]
            continue
        out.append(MINE_MARK)
        out += ours[a1:a2]
        out.append(SPLIT_MARK)
        out += theirs[b1:b2]
        out.append(DISK_MARK)
    ending = "\n" if (mine.endswith("\n") or disk.endswith("\n")) else ""
    return "\n".join(out) + ending


def conflict_count(text: str) -> int:
    return sum(1 for line in text.split("\n") if line == MINE_MARK or line.startswith("<<<<<<< "))
