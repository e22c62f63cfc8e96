"""`hws mcp add` and `remove`: one server's block in config.yaml, the rest of the file as it was written.

The block is inserted or deleted line by line (comments and order kept); the result is parsed again
and compared with what was meant, and when the file's shape defeats that, it is rewritten from its
parsed data (every key kept, the comments not). Written atomically under the file's lock.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from engine.config_edit import ConfigEditError, parse_config_text, read_config_text
from engine.storage.atomic import atomic_write_text, file_lock

SECTION = "mcp_servers"


def add_server(path: Path, name: str, entry: dict[str, Any]) -> None:
    """Add server `name`; ConfigEditError when a server of that name is already there."""
    with file_lock(path):
        text = read_config_text(path)
        data = parse_config_text(text, path)
        servers = data.get(SECTION)
        if servers is not None and not isinstance(servers, dict):
            raise ConfigEditError(f"{path}: `{SECTION}` is not a mapping of servers; fix it by hand first.")
        if isinstance(servers, dict) and name in servers:
            raise ConfigEditError(
                f"An MCP server named `{name}` is already in {path}; remove it first (hws mcp remove {name})."
            )
        wanted = dict(data)
        wanted[SECTION] = {**(servers or {}), name: entry}
        _write(path, _inserted(text, name, entry), wanted)


def remove_server(path: Path, name: str) -> bool:
    """Remove server `name`; False when there is none of that name."""
    with file_lock(path):
        text = read_config_text(path)
        data = parse_config_text(text, path)
        servers = data.get(SECTION)
        if not isinstance(servers, dict) or name not in servers:
            return False
        wanted = dict(data)
        wanted[SECTION] = {k: v for k, v in servers.items() if k != name}
        _write(path, _removed(text, name), wanted)
        return True


def _write(path: Path, edited: str | None, wanted: dict[str, Any]) -> None:
    if edited is None or parse_config_text(edited, path) != wanted:
        edited = yaml.safe_dump(wanted, sort_keys=False, allow_unicode=True)
    atomic_write_text(path, edited)


def _block(text: str) -> tuple[list[str], int, int] | None:
    """The file's lines and the [start, end) of the `mcp_servers:` block (None: no block section)."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if re.match(rf"^{SECTION}\s*:\s*(#.*)?$", line)), None)
    if start is None:
        return None
    end = start + 1
    while end < len(lines) and (not lines[end].strip() or lines[end][:1] in (" ", "\t", "#")):
        end += 1
    while end > start + 1 and not lines[end - 1].strip():
        end -= 1
    return lines, start, end


def _inserted(text: str, name: str, entry: dict[str, Any]) -> str | None:
    dumped = yaml.safe_dump({name: entry}, sort_keys=False, allow_unicode=True).splitlines()
    found = _block(text)
    if found is None:
        if re.search(rf"^{SECTION}\s*:", text, re.MULTILINE):
            return None  # an inline `mcp_servers: {}`: rewritten
        gap = "\n" if text.strip() and not text.endswith("\n\n") else ""
        head = text if text.endswith("\n") or not text else text + "\n"
        return head + gap + f"{SECTION}:\n" + "".join(f"  {line}\n" for line in dumped)
    lines, start, end = found
    body = [b for b in lines[start + 1 : end] if re.match(r"^\s+[^\s#]", b)]
    indent = re.match(r"^(\s+)", body[0]).group(1) if body else "  "  # type: ignore[union-attr]
    return "\n".join([*lines[:end], *(indent + line for line in dumped), *lines[end:]]) + "\n"


def _removed(text: str, name: str) -> str | None:
    found = _block(text)
    if found is None:
        return None
    lines, start, end = found
    first = next(
        (i for i in range(start + 1, end) if re.match(rf"^(\s+){re.escape(name)}\s*:", lines[i])), None
    )
    if first is None:
        return None
    indent = len(lines[first]) - len(lines[first].lstrip())
    last = first + 1
    while last < end and (not lines[last].strip() or len(lines[last]) - len(lines[last].lstrip()) > indent):
        last += 1
    return "\n".join([*lines[:first], *lines[last:]]) + "\n"
