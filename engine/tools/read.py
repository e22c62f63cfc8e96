"""`read_file`: numbered lines of a text file, a description of a binary one, a listing of a folder."""

from __future__ import annotations

import asyncio
import codecs
import difflib
import hashlib
import io
import mimetypes
import os
import stat
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, BinaryIO

from engine.tools import paths, safe_open
from engine.tools.context import ToolContext
from engine.tools.errors import ToolError
from engine.tools.preview import one_line, plural
from engine.tools.registry import Tool, ToolResult

SNIFF_BYTES = 8192
CHUNK = 1 << 20
TEXT_PIECE = 1 << 16  # characters of a long decoded line skipped at a time
# Leading bytes of common binary formats, so the model hears what a file is rather than noise.
_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "PNG image"),
    (b"\xff\xd8\xff", "JPEG image"),
    (b"GIF8", "GIF image"),
    (b"%PDF-", "PDF document"),
    (b"PK\x03\x04", "ZIP archive (also docx, xlsx, jar, wheel)"),
    (b"\x1f\x8b", "gzip archive"),
    (b"BZh", "bzip2 archive"),
    (b"\xfd7zXZ\x00", "xz archive"),
    (b"7z\xbc\xaf\x27\x1c", "7-Zip archive"),
    (b"\x7fELF", "ELF executable or library"),
    (b"SQLite format 3\x00", "SQLite database"),
    (b"\x00asm", "WebAssembly module"),
    (b"RIFF", "RIFF media (WAV, AVI or WebP)"),
    (b"OggS", "Ogg media"),
    (b"ID3", "MP3 audio"),
    (b"\xca\xfe\xba\xbe", "Java class or Mach-O universal binary"),
    (b"\xcf\xfa\xed\xfe", "Mach-O executable"),
    (b"MZ", "Windows executable"),
)
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)

DESCRIPTION = (
    "Read a text file as `N|line` numbered lines (the prefix is not file content). Long files come in "
    "windows: continue at the offset the result names. Lists folders; describes binary files."
)
PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string"},
        "offset": {"type": "integer", "minimum": 1, "description": "First line, 1-based."},
        "limit": {"type": "integer", "minimum": 1, "description": "Most lines."},
    },
    "required": ["path"],
    "additionalProperties": False,
}


def binary_kind(head: bytes, path: Path) -> str | None:
    """What a binary file is, or None when `head` looks like text."""
    for magic, kind in _MAGIC:
        if head.startswith(magic):
            return kind
    if b"\x00" not in head:
        return None
    guessed, _ = mimetypes.guess_type(path.name)
    return f"binary data ({guessed})" if guessed else "binary data"


def bom_encoding(head: bytes) -> str | None:
    for bom, name in _BOMS:
        if head.startswith(bom):
            return name
    return None


async def read_file(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    target = await paths.for_read(ctx, "read_file", args["path"])
    limits = ctx.config.tool_output
    # Two lines stay free for the notes, so the registry's line cap never cuts a window.
    window = max(min(int(args.get("limit") or limits.max_lines), int(limits.max_lines) - 2), 1)
    return await asyncio.to_thread(
        _read,
        ctx,
        target,
        int(args.get("offset") or 1),
        window,
        int(ctx.config.get("file_read_max_chars")),
        int(limits.max_line_length),
    )


def _read(
    ctx: ToolContext,
    target: paths.ResolvedPath,
    offset: int,
    window: int,
    max_chars: int,
    max_line: int,
) -> ToolResult:
    path, shown = target.path, target.shown
    try:
        fd = safe_open.open_path(path, shown, ctx.home.root)
    except FileNotFoundError:
        raise ToolError(_not_found(path, shown)) from None
    except PermissionError:
        raise ToolError(f"Permission denied reading {shown}.") from None
    except OSError as exc:
        raise ToolError(f"Cannot read {shown}: {exc.strerror or exc}.") from None
    info = os.fstat(fd)
    if stat.S_ISDIR(info.st_mode):
        try:
            return _list_folder(fd, shown, window)
        finally:
            os.close(fd)
    try:
        with os.fdopen(fd, "rb") as handle:
            head = handle.read(SNIFF_BYTES)
            encoding = bom_encoding(head)
            kind = None if encoding else binary_kind(head, path)
            if kind:
                size = f"{info.st_size:,} bytes"
                return ToolResult(
                    f"{shown} is a binary file ({kind}, {size}); its bytes are not shown. "
                    "Use a terminal command that understands the format if you need its content.",
                    summary=f"binary, {kind}, {size}",
                )
            handle.seek(0)
            if encoding:
                return _read_decoded(ctx, handle, encoding, target, offset, window, max_chars, max_line)
            return _read_utf8(ctx, handle, target, offset, window, max_chars, max_line)
    except PermissionError:
        raise ToolError(f"Permission denied reading {shown}.") from None
    except OSError as exc:
        raise ToolError(f"Cannot read {shown}: {exc.strerror or exc}.") from None


def _window(
    lines: Iterator[tuple[str, int]], offset: int, window: int, max_chars: int, max_line: int
) -> tuple[list[str], int, bool]:
    """Numbered lines from `offset`, stopping at `window` lines or `max_chars`; also lines consumed.

    Each line comes as its kept start and how much of it was left unread (a line longer than any
    window is never held whole, so a one-line file of 300 MB costs what one window does).
    """
    shown: list[str] = []
    used = number = 0
    for number, (text, unread) in enumerate(lines, 1):
        if number < offset:
            continue
        line = _numbered(number, text.rstrip("\r\n"), max_line, unread)
        if used + len(line) + 1 > max_chars and shown:
            return shown, number, True
        shown.append(line)
        used += len(line) + 1
        if len(shown) >= window:
            break
    return shown, number, False


def _read_utf8(
    ctx: ToolContext,
    handle: BinaryIO,
    target: paths.ResolvedPath,
    offset: int,
    window: int,
    max_chars: int,
    max_line: int,
) -> ToolResult:
    digest = hashlib.sha256()
    bad_line = 0

    def decoded() -> Iterator[tuple[str, int]]:
        nonlocal bad_line
        for number, (raw, unread) in enumerate(_bounded_lines(handle, max_line * 4, digest), 1):
            if number < offset:
                yield "", 0  # skipped lines are counted, never decoded
                continue
            try:
                yield raw.decode("utf-8"), unread
            except UnicodeDecodeError:
                if not unread:  # a cut line may end inside a character; that is not bad input
                    bad_line = bad_line or number
                yield raw.decode("utf-8", errors="replace"), unread

    shown, total, char_cut = _window(decoded(), offset, window, max_chars, max_line)
    # Count (and hash) the rest without decoding it.
    last_byte = b"\n"
    while chunk := handle.read(CHUNK):
        digest.update(chunk)
        total += chunk.count(b"\n")
        last_byte = chunk[-1:]
    if last_byte != b"\n":
        total += 1
    ctx.state.file_hashes[str(target.path)] = digest.hexdigest()[:16]
    notes = [f"[not valid UTF-8 at line {bad_line}: undecodable bytes shown as U+FFFD]"] if bad_line else []
    return _result(target.shown, shown, offset, total, notes, max_chars, char_cut)


def _read_decoded(
    ctx: ToolContext,
    handle: BinaryIO,
    encoding: str,
    target: paths.ResolvedPath,
    offset: int,
    window: int,
    max_chars: int,
    max_line: int,
) -> ToolResult:
    """A UTF-16 or UTF-32 file (it has a byte-order mark), streamed so a huge one costs no memory."""
    text = io.TextIOWrapper(handle, encoding=encoding, errors="replace")
    lines = _bounded_text_lines(text, max_line)
    shown, total, char_cut = _window(lines, offset, window, max_chars, max_line)
    total += sum(1 for _ in lines)
    text.detach()
    handle.seek(0)
    digest = hashlib.sha256()
    while chunk := handle.read(CHUNK):
        digest.update(chunk)
    ctx.state.file_hashes[str(target.path)] = digest.hexdigest()[:16]
    notes = [f"[decoded as {encoding.upper()} (byte-order mark); patch and write_file save UTF-8]"]
    return _result(target.shown, shown, offset, total, notes, max_chars, char_cut)


def _bounded_lines(handle: BinaryIO, keep: int, digest: Any) -> Iterator[tuple[bytes, int]]:
    """Each line's first `keep` bytes and how many bytes of it were not kept; all of it is hashed."""
    while raw := handle.readline(keep):
        digest.update(raw)
        unread = 0
        if len(raw) == keep and not raw.endswith(b"\n"):
            while rest := handle.readline(CHUNK):  # the rest of a long line, read in bounded pieces
                digest.update(rest)
                unread += len(rest)
                if rest.endswith(b"\n"):
                    break
        yield raw, unread


def _bounded_text_lines(text: io.TextIOWrapper, keep: int) -> Iterator[tuple[str, int]]:
    """As `_bounded_lines`, for decoded text (characters rather than bytes)."""
    while line := text.readline(keep):
        unread = 0
        if len(line) == keep and not line.endswith("\n"):
            while rest := text.readline(TEXT_PIECE):
                unread += len(rest)
                if rest.endswith("\n"):
                    break
        yield line, unread


def _numbered(number: int, text: str, max_line: int, unread: int = 0) -> str:
    """`N|text`, with a long line cut so that the whole numbered line fits in `max_line` chars.

    `unread` counts what was never read of a very long line (bytes, so the count is approximate)."""
    prefix = f"{number}|"
    length = len(text) + unread
    if len(prefix) + length <= max_line:
        return prefix + text
    keep = max_line - len(prefix) - len(f"… [+{length:,} chars]")
    keep = max(keep, 1)
    return f"{prefix}{text[:keep]}… [+{length - keep:,} chars]"


def _result(
    shown: str,
    lines: list[str],
    offset: int,
    total: int,
    notes: list[str],
    max_chars: int,
    char_cut: bool,
) -> ToolResult:
    if total == 0:
        return ToolResult(f"{shown} is empty (0 lines).", summary="empty file")
    if not lines:
        raise ToolError(f"offset {offset} is past the end of {shown}, which has {plural(total, 'line')}.")
    last = offset + len(lines) - 1
    if offset == 1 and last >= total:
        summary = plural(total, "line")
    else:
        summary = f"lines {offset}-{last} of {total:,}"
        why = f" (the {max_chars:,}-char read limit)" if char_cut else ""
        more = f" next: offset={last + 1}" if last < total else ""
        notes.append(f"[showing lines {offset}-{last} of {total:,}{why};{more}]".replace(";]", "]"))
    return ToolResult("\n".join([*lines, *notes]), summary=summary)


def _list_folder(fd: int, shown: str, max_entries: int) -> ToolResult:
    try:
        with os.scandir(fd) as listing:
            entries = sorted(listing, key=lambda e: e.name)
    except OSError as exc:
        raise ToolError(f"Cannot list {shown}: {exc.strerror}.") from None
    names = [f"{e.name}/" if _is_folder(e) else e.name for e in entries[:max_entries]]
    more = len(entries) - len(names)
    tail = [f"[{more:,} more entries not shown]"] if more > 0 else []
    text = "\n".join([f"{shown} is a folder with {plural(len(entries), 'entry', 'entries')}:", *names, *tail])
    return ToolResult(text, summary=f"folder, {plural(len(entries), 'entry', 'entries')}")


def _is_folder(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def _not_found(path: Path, shown: str) -> str:
    parent = path.parent
    if not parent.is_dir():
        return f"{shown} does not exist (nor does its folder {parent})."
    try:
        names = [p.name for p in parent.iterdir()]
    except OSError:
        names = []
    close = difflib.get_close_matches(path.name, names, n=3, cutoff=0.6)
    hint = f" Similar names there: {', '.join(close)}." if close else ""
    return f"{shown} does not exist.{hint}"


def _preview(args: Mapping[str, Any], width: int) -> str:
    detail = str(args.get("path", ""))
    if args.get("offset") or args.get("limit"):
        start = int(args.get("offset") or 1)
        end = f"{start + int(args['limit']) - 1}" if args.get("limit") else ""
        detail += f" :{start}-{end}"
    return one_line(detail, width)


TOOL = Tool("read_file", "files", DESCRIPTION, PARAMETERS, read_file, _preview)
