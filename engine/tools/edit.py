"""`write_file` and `patch`: atomic writes that never silently overwrite someone else's edit.

Each write reads the file, works out the change, shows a protected file's diff to the person, and
then writes only if the file still holds what the change was made on, opening the checked path
without following a link swapped in meanwhile (engine/tools/safe_open.py).
"""

from __future__ import annotations

import asyncio
import difflib
import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.storage.atomic import describe_os_error
from engine.storage.self_writes import content_hash
from engine.tools import paths, protected, safe_open
from engine.tools.context import ToolContext
from engine.tools.errors import ToolError
from engine.tools.hidden_secrets import MISSING_HINT, refuse_hidden_secret_loss
from engine.tools.preview import count_lines, one_line, plural, quoted
from engine.tools.registry import Tool, ToolResult

_LINE_PREFIX = re.compile(r"^\s*\d+\|")

WRITE_DESCRIPTION = (
    "Create or overwrite a whole file (folders are created). To change part of a file use patch."
)
WRITE_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string"},
        "content": {"type": "string", "description": "The complete new text."},
    },
    "required": ["path", "content"],
    "additionalProperties": False,
}
PATCH_DESCRIPTION = (
    "Replace `old_string` with `new_string` in a file. old_string must match exactly (whitespace "
    "included, no `N|` prefixes) and be unique unless replace_all is true."
)
PATCH_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string"},
        "old_string": {"type": "string", "minLength": 1},
        "new_string": {"type": "string"},
        "replace_all": {"type": "boolean"},
    },
    "required": ["path", "old_string", "new_string"],
    "additionalProperties": False,
}


@dataclass(frozen=True)
class _OnDisk:
    """A file as the tool found it: its bytes and mode."""

    data: bytes
    mode: int


def _current(ctx: ToolContext, target: paths.ResolvedPath) -> _OnDisk | None:
    """The file now, or None when it does not exist; opened without following a link swapped in."""
    path, shown = target.path, target.shown
    try:
        with safe_open.held_folder(path.parent, doing="written") as folder:
            found = safe_open.read_entry(folder, path.name, path, shown, ctx.home.root)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ToolError(f"Cannot open {shown}: {exc.strerror or exc}.") from None
    return _OnDisk(*found) if found is not None else None


@functools.cache
def new_file_mode() -> int:
    """The mode a new file gets from an ordinary editor: 0o666 less the umask (read without changing it)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return 0o666 & ~int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    return 0o644


def _commit(ctx: ToolContext, target: paths.ResolvedPath, before: _OnDisk | None, text: str) -> None:
    """Write `text` if the file still holds what the change was made on (and the person saw)."""
    path, shown = target.path, target.shown
    data = text.encode("utf-8")
    try:
        with safe_open.held_folder(path.parent, create=True, doing="written") as folder:
            now = safe_open.read_entry(folder, path.name, path, shown, ctx.home.root)
            if (now[0] if now else None) != (before.data if before else None):
                raise ToolError(
                    f"{shown} changed on disk while this change waited (someone else edited it); nothing "
                    "was written. Read it again and redo the change on the current text."
                )
            mode = now[1] if now is not None else new_file_mode()
            safe_open.replace_entry(folder, path.name, data, mode, path)
    except FileNotFoundError as exc:
        raise ToolError(f"Cannot write {shown}: {exc.strerror or exc}.") from None
    except OSError as exc:
        raise ToolError(describe_os_error(exc, path)) from None
    ctx.state.file_hashes[str(path)] = content_hash(text)


def unified_diff(old: str, new: str, shown: str, max_lines: int) -> str:
    """The change as a unified diff for the UI, cut to `max_lines`."""
    lines = list(
        difflib.unified_diff(
            old.splitlines(keepends=True), new.splitlines(keepends=True), f"a/{shown}", f"b/{shown}"
        )
    )
    if len(lines) > max_lines:
        lines = [*lines[:max_lines], f"… [{len(lines) - max_lines:,} more diff lines]\n"]
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def _line_changes(old: str, new: str) -> tuple[int, int]:
    added = removed = 0
    for line in difflib.unified_diff(old.splitlines(), new.splitlines(), n=0, lineterm=""):
        if line.startswith("+") and not line.startswith("+++"):
            added += 1
        elif line.startswith("-") and not line.startswith("---"):
            removed += 1
    return added, removed


async def write_file(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    target = await paths.for_write(ctx, "write_file", args["path"])
    content = args["content"]
    before = await asyncio.to_thread(_current, ctx, target)
    seen = ctx.state.file_hashes.get(str(target.path))
    if before is not None and seen is not None and content_hash(before.data) != seen:
        raise ToolError(
            f"{target.shown} changed on disk since you last read or wrote it (someone else edited it). "
            "Read it again and redo your change on the current text; nothing was written."
        )
    old_text = before.data.decode("utf-8", errors="replace") if before is not None else None
    refuse_hidden_secret_loss(ctx.redactor, old_text, content, target.shown)
    diff = unified_diff(old_text or "", content, target.shown, int(ctx.config.tool_output.diff_max_lines))
    await protected.confirm_write(ctx, "write_file", target, old_text, content, diff)
    await asyncio.to_thread(_commit, ctx, target, before, content)
    shown = target.shown
    lines, size = count_lines(content), len(content.encode("utf-8"))
    if old_text is None:
        return ToolResult(
            f"Created {shown} ({plural(lines, 'line')}, {size:,} bytes).",
            summary=f"new file, {plural(lines, 'line')}",
            display=diff,
        )
    was = count_lines(old_text)
    unread = "" if seen else " You had not read it in this session."
    return ToolResult(
        f"Overwrote {shown} ({plural(lines, 'line')}, {size:,} bytes; it had {plural(was, 'line')}).{unread}",
        summary=f"{plural(lines, 'line')} (was {was:,})",
        display=diff,
    )


async def patch(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    target = await paths.for_write(ctx, "patch", args["path"])
    before = await asyncio.to_thread(_current, ctx, target)
    change = await asyncio.to_thread(
        _patched, ctx, target, before, args["old_string"], args["new_string"], bool(args.get("replace_all"))
    )
    diff = unified_diff(change.text, change.updated, target.shown, int(ctx.config.tool_output.diff_max_lines))
    await protected.confirm_write(ctx, "patch", target, change.text, change.updated, diff)
    await asyncio.to_thread(_commit, ctx, target, before, change.updated)
    added, removed = _line_changes(change.text, change.updated)
    starts = change.starts
    where = ", ".join(str(n) for n in starts[:10]) + (" …" if len(starts) > 10 else "")
    where = f"line {where}" if len(starts) == 1 else f"lines {where}"
    count = len(starts)
    return ToolResult(
        f"Replaced {plural(count, 'occurrence')} in {target.shown} ({where}; +{added} -{removed} lines).",
        summary=f"{plural(count, 'replacement')}, +{added} -{removed} lines",
        display=diff,
    )


@dataclass(frozen=True)
class _Patched:
    text: str  # the file's text before
    updated: str  # after the replacement
    starts: list[int]  # the line of each replaced occurrence


def _patched(
    ctx: ToolContext,
    target: paths.ResolvedPath,
    before: _OnDisk | None,
    old: str,
    new: str,
    replace_all: bool,
) -> _Patched:
    shown = target.shown
    if old == new:
        raise ToolError("old_string and new_string are identical, so nothing would change.")
    if before is None:
        raise ToolError(f"{shown} does not exist; use write_file to create it.")
    try:
        text = before.data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ToolError(
            f"{shown} is not valid UTF-8 (byte {exc.start}); patching would change its encoding. "
            "Edit it with a terminal command that keeps the encoding."
        ) from None
    count = text.count(old)
    if count == 0 and "\r\n" in text and "\r\n" not in old:  # the model writes \n for a CRLF file
        crlf_old, crlf_new = old.replace("\n", "\r\n"), new.replace("\n", "\r\n")
        if text.count(crlf_old):
            old, new, count = crlf_old, crlf_new, text.count(crlf_old)
    if count == 0:
        raise ToolError(_miss_message(text, old, shown, int(ctx.config.tool_output.patch_preview_lines)))
    starts = _occurrence_lines(text, old)
    if count > 1 and not replace_all:
        where = ", ".join(str(n) for n in starts[:10]) + (" …" if count > 10 else "")
        raise ToolError(
            f"old_string occurs {count} times in {shown} (lines {where}). Include more surrounding "
            "lines to make it unique, or set replace_all to true to change every one."
        )
    updated = text.replace(old, new) if replace_all else text.replace(old, new, 1)
    refuse_hidden_secret_loss(ctx.redactor, text, updated, shown)
    return _Patched(text, updated, starts if replace_all else starts[:1])


def _occurrence_lines(text: str, needle: str) -> list[int]:
    lines, start = [], 0
    while (found := text.find(needle, start)) != -1:
        lines.append(text.count("\n", 0, found) + 1)
        start = found + len(needle)
    return lines


def _miss_message(text: str, old: str, shown: str, preview_lines: int) -> str:
    lines = text.splitlines()
    hints = []
    old_lines = [line for line in old.split("\n") if line.strip()]
    if old_lines and all(_LINE_PREFIX.match(line) for line in old_lines):
        hints.append("old_string starts its lines with `N|` prefixes from read_file; leave those out.")
    elif "[REDACTED]" in old and "[REDACTED]" not in text:
        hints.append(MISSING_HINT)
    elif " ".join(old.split()) in " ".join(text.split()):
        hints.append("The text is there, but its whitespace or indentation differs; copy it exactly.")
    anchor = _closest_line(lines, old_lines[0].strip() if old_lines else "")
    start = max(anchor - 2, 0) if anchor is not None else 0
    end = min(start + preview_lines, len(lines))
    shown_lines = "\n".join(f"{n + 1}|{lines[n]}" for n in range(start, end))
    where = "near the closest match" if anchor is not None else "from the top"
    return (
        f"old_string was not found in {shown}. {' '.join(hints)}".rstrip()
        + f"\nLines {start + 1}-{end} of {len(lines):,} ({where}):\n{shown_lines}"
    )


def _closest_line(lines: list[str], probe: str) -> int | None:
    probe = _LINE_PREFIX.sub("", probe).strip()
    if not probe:
        return None
    stripped = [line.strip() for line in lines[:20_000]]
    for i, line in enumerate(stripped):
        if probe in line:
            return i
    close = difflib.get_close_matches(probe, stripped, n=1, cutoff=0.6)
    return stripped.index(close[0]) if close else None


def _write_preview(args: Mapping[str, Any], width: int) -> str:
    path = str(args.get("path", ""))
    content = args.get("content")
    size = f" ({plural(count_lines(content), 'line')})" if isinstance(content, str) else ""
    return one_line(path, width - len(size)) + size


def _patch_preview(args: Mapping[str, Any], width: int) -> str:
    path = one_line(str(args.get("path", "")), width // 2)
    old = args.get("old_string")
    return f"{path} {quoted(old, width - len(path) - 1)}" if isinstance(old, str) else path


WRITE_TOOL = Tool("write_file", "files", WRITE_DESCRIPTION, WRITE_PARAMETERS, write_file, _write_preview)
PATCH_TOOL = Tool("patch", "files", PATCH_DESCRIPTION, PATCH_PARAMETERS, patch, _patch_preview)
