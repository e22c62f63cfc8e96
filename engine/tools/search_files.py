"""`search_files`: a regex over file contents, or a glob over file names, under a folder."""

from __future__ import annotations

import asyncio
import fnmatch
import os
import re
import stat
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.tools import paths, safe_open
from engine.tools.context import ToolContext
from engine.tools.errors import ToolError
from engine.tools.preview import one_line, plural
from engine.tools.registry import Tool, ToolResult

SNIFF_BYTES = 8192

DESCRIPTION = (
    "Search files under `path` (default: working directory), skipping .git, node_modules, .venv etc. "
    "target=content (default): `pattern` is a Python regex, returns path:line: text. "
    "target=files: `pattern` is a file-name glob like *.py, returns paths."
)
PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "pattern": {"type": "string"},
        "target": {"type": "string", "enum": ["content", "files"]},
        "path": {"type": "string"},
        "glob": {"type": "string", "description": "Content search: only files matching this glob."},
        "ignore_case": {"type": "boolean"},
        "limit": {"type": "integer", "minimum": 1},
    },
    "required": ["pattern"],
    "additionalProperties": False,
}


@dataclass
class _Walk:
    root: Path
    skip_dirs: frozenset[str]
    allowed: tuple[Path, ...]
    secrets: frozenset[Path] = frozenset()  # never searched: reading them needs approval
    escaped: int = 0  # symlinked files skipped because they lead outside the allowed folders

    def files(self) -> Iterator[Path]:
        for path, _real in self.found():
            yield path

    def found(self) -> Iterator[tuple[Path, Path]]:
        """Each file as the walk names it, with the real path that was judged (a symlink's target)."""
        if self.root.is_file():
            if self.root not in self.secrets:
                yield self.root, self.root
            return
        for folder, dirs, names in os.walk(self.root, followlinks=False):
            dirs[:] = sorted(d for d in dirs if d not in self.skip_dirs)
            for name in sorted(names):
                path = real = Path(folder, name)
                if path.is_symlink():
                    real = path.resolve()
                    if not any(real.is_relative_to(a) for a in self.allowed) or not real.is_file():
                        self.escaped += 1
                        continue
                    if real in self.secrets:
                        continue
                elif path in self.secrets or not path.is_file():
                    continue  # a FIFO, socket or device: reading one could block or never end
                yield path, real


async def search_files(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    target = await paths.for_read(ctx, "search_files", args.get("path") or ".")
    if not target.path.exists():
        raise ToolError(f"{target.shown} does not exist.")
    section = ctx.config.tool_output
    limit = min(int(args.get("limit") or section.search_max_results), int(section.search_max_results))
    allowed = (Path(ctx.cwd).resolve(), ctx.home.root.resolve(), target.path)
    walk = _Walk(target.path, frozenset(section.search_skip_dirs), allowed, paths.home_secrets(ctx))
    if args.get("target") == "files":
        return await asyncio.to_thread(_find_files, ctx, walk, args["pattern"], limit)
    flags = re.IGNORECASE if args.get("ignore_case") else 0
    try:
        regex = re.compile(args["pattern"], flags)
    except re.error as exc:
        raise ToolError(
            f"`pattern` is not a valid Python regex: {exc.msg} at position {exc.pos}. "
            "Escape special characters such as ( [ { . * + ? with a backslash to match them literally."
        ) from None
    return await asyncio.to_thread(
        _grep, ctx, walk, regex, args.get("glob"), limit, int(section.search_max_file_bytes)
    )


def _grep(
    ctx: ToolContext,
    walk: _Walk,
    regex: re.Pattern[str],
    glob: str | None,
    limit: int,
    max_bytes: int,
) -> ToolResult:
    results: list[str] = []
    files_hit = 0
    skipped_large = 0
    more = False
    for path, real in walk.found():
        if glob and not _glob_match(path, walk.root, glob):
            continue
        data, too_large = _read_judged(ctx, real, max_bytes)
        skipped_large += too_large
        if data is None:
            continue
        if b"\x00" in data[:SNIFF_BYTES]:
            continue
        text = data.decode("utf-8", errors="replace")
        if not regex.search(text):
            continue
        files_hit += 1
        shown = paths.shown_path(ctx, path)
        for number, line in enumerate(text.splitlines(), 1):
            if regex.search(line):
                if len(results) == limit:
                    more = True
                    break
                results.append(f"{shown}:{number}: {line.strip()}")
        if more:
            break
    notes = _notes(walk, skipped_large, more, limit, "matches")
    if not results:
        return ToolResult(
            "\n".join([f"No matches for {regex.pattern!r} in {_where(ctx, walk)}.", *notes]),
            summary="no matches",
        )
    summary = (
        f"{plural(len(results), 'match', 'matches')}{'+' if more else ''} in {plural(files_hit, 'file')}"
    )
    return ToolResult("\n".join([*results, *notes]), summary=summary)


def _read_judged(ctx: ToolContext, real: Path, max_bytes: int) -> tuple[bytes | None, bool]:
    """The bytes of a judged file, opened without following a link swapped in since, and whether it
    was too large; None when it cannot be read or is another name for a protected file of the home."""
    try:
        fd = safe_open.open_path(real, str(real), ctx.home.root)
    except (OSError, ToolError):
        return None, False
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None, False
        if info.st_size > max_bytes:
            return None, True
        try:
            return handle.read(max_bytes + 1), False
        except OSError:
            return None, False


def _find_files(ctx: ToolContext, walk: _Walk, pattern: str, limit: int) -> ToolResult:
    found: list[str] = []
    more = False
    for path in walk.files():
        if _glob_match(path, walk.root, pattern):
            if len(found) == limit:
                more = True
                break
            found.append(paths.shown_path(ctx, path))
    notes = _notes(walk, 0, more, limit, "files")
    if not found:
        return ToolResult(
            "\n".join([f"No files match {pattern!r} in {_where(ctx, walk)}.", *notes]), summary="no files"
        )
    return ToolResult(
        "\n".join([*found, *notes]), summary=f"{plural(len(found), 'file')}{'+' if more else ''}"
    )


def _glob_match(path: Path, root: Path, pattern: str) -> bool:
    if "/" in pattern:
        try:
            relative = path.relative_to(root).as_posix()
        except ValueError:
            relative = path.name
        return fnmatch.fnmatch(relative, pattern) or fnmatch.fnmatch(relative, pattern.removeprefix("**/"))
    return fnmatch.fnmatch(path.name, pattern)


def _where(ctx: ToolContext, walk: _Walk) -> str:
    shown = paths.shown_path(ctx, walk.root)
    return "the working directory" if shown == "." else shown


def _notes(walk: _Walk, skipped_large: int, more: bool, limit: int, what: str) -> list[str]:
    notes = []
    if more:
        notes.append(f"[stopped at {limit:,} {what}; narrow the pattern or the path to see the rest]")
    if skipped_large:
        notes.append(f"[{plural(skipped_large, 'large file')} skipped]")
    if walk.escaped:
        notes.append(f"[{plural(walk.escaped, 'symlink')} leading outside the allowed folders skipped]")
    return notes


def _preview(args: Mapping[str, Any], width: int) -> str:
    pattern = str(args.get("pattern", ""))
    where = f" in {args['path']}" if args.get("path") else ""
    kind = "files " if args.get("target") == "files" else ""
    return one_line(f"{kind}{pattern!r}{where}", width)


TOOL = Tool("search_files", "files", DESCRIPTION, PARAMETERS, search_files, _preview)
