"""`write_file` and `patch`: atomic writes that never silently overwrite someone else's edit."""

from __future__ import annotations

import asyncio
import difflib
import functools
import re
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from engine.atomic import WriteError, atomic_write_text, content_hash
from engine.tools import paths
from engine.tools.context import ToolContext
from engine.tools.hidden_secrets import MISSING_HINT, refuse_hidden_secret_loss
from engine.tools.preview import count_lines, one_line, plural, quoted
from engine.tools.registry import Tool, ToolError, ToolResult

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


def _read_bytes(path: Path, shown: str) -> bytes | None:
    """The current bytes of a file, or None when it does not exist; folders and devices are refused."""
    try:
        info = path.stat()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ToolError(f"Cannot open {shown}: {exc.strerror}.") from None
    if stat.S_ISDIR(info.st_mode):
        raise ToolError(f"{shown} is a folder, not a file.")
    if not stat.S_ISREG(info.st_mode):
        raise ToolError(f"{shown} is not a regular file (a device, socket or pipe).")
    try:
        return path.read_bytes()
    except OSError as exc:
        raise ToolError(f"Cannot read {shown}: {exc.strerror}.") from None


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


def _write(ctx: ToolContext, path: Path, text: str) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, text, None if path.exists() else new_file_mode())
    except WriteError as exc:
        raise ToolError(str(exc)) from None
    except OSError as exc:
        raise ToolError(f"Cannot write {path}: {exc.strerror or exc}.") from None
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
    return await asyncio.to_thread(_write_file, ctx, target, args["content"])


def _write_file(ctx: ToolContext, target: paths.ResolvedPath, content: str) -> ToolResult:
    path, shown = target.path, target.shown
    before = _read_bytes(path, shown)
    seen = ctx.state.file_hashes.get(str(path))
    if before is not None and seen is not None and content_hash(before) != seen:
        raise ToolError(
            f"{shown} changed on disk since you last read or wrote it (someone else edited it). "
            "Read it again and redo your change on the current text; nothing was written."
        )
    old_text = before.decode("utf-8", errors="replace") if before is not None else ""
    refuse_hidden_secret_loss(ctx.redactor, old_text if before is not None else None, content, shown)
    _write(ctx, path, content)
    lines, size = count_lines(content), len(content.encode("utf-8"))
    diff = unified_diff(old_text, content, shown, int(ctx.config.tool_output.diff_max_lines))
    if before is None:
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
    return await asyncio.to_thread(
        _patch, ctx, target, args["old_string"], args["new_string"], bool(args.get("replace_all"))
    )


def _patch(ctx: ToolContext, target: paths.ResolvedPath, old: str, new: str, replace_all: bool) -> ToolResult:
    path, shown = target.path, target.shown
    if old == new:
        raise ToolError("old_string and new_string are identical, so nothing would change.")
    data = _read_bytes(path, shown)
    if data is None:
        raise ToolError(f"{shown} does not exist; use write_file to create it.")
    try:
        text = data.decode("utf-8")
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
    if _read_bytes(path, shown) != data:
        raise ToolError(f"{shown} changed while it was being patched; read it again and retry.")
    _write(ctx, path, updated)
    added, removed = _line_changes(text, updated)
    where = ", ".join(str(n) for n in starts[:10]) + (" …" if len(starts) > 10 else "")
    where = f"line {where}" if len(starts) == 1 else f"lines {where}"
    return ToolResult(
        f"Replaced {plural(count, 'occurrence')} in {shown} ({where}; +{added} -{removed} lines).",
        summary=f"{plural(count, 'replacement')}, +{added} -{removed} lines",
        display=unified_diff(text, updated, shown, int(ctx.config.tool_output.diff_max_lines)),
    )


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
