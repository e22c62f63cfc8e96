"""One-line previews of tool calls and results for the UI and the CLI, in plain text.

A call reads `<tool padded to 9> <detail>` (`terminal  npm run build`, `read_file src/app.py`), a
result reads like `exit 0, 47 lines` or `142 lines`: the conventions of Hermes' activity lines
without the emoji.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

NAME_WIDTH = 9
_SPACE = re.compile(r"\s+")


def one_line(text: str, width: int) -> str:
    """Collapse whitespace and cut `text` to `width` characters with an ellipsis."""
    flat = _SPACE.sub(" ", text).strip()
    if len(flat) <= width:
        return flat
    return flat[: max(width - 1, 0)].rstrip() + "…"


def quoted(text: str, width: int) -> str:
    """`"text…"`, for previews that show what the model wrote."""
    return f'"{one_line(text, max(width - 2, 1))}"'


def format_call(name: str, detail: str) -> str:
    return f"{name:<{NAME_WIDTH}} {detail}".rstrip()


def default_detail(arguments: Mapping[str, Any], width: int) -> str:
    """The first text argument, for tools that give no preview of their own."""
    for value in arguments.values():
        if isinstance(value, str) and value.strip():
            return one_line(value, width)
    return ""


def count_lines(text: str) -> int:
    if not text:
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n:,} {word if n == 1 else (many or word + 's')}"


def default_summary(content: Any, width: int) -> str:
    """A result preview for tools that give none: a dict's `message`, else the size of the text."""
    if isinstance(content, Mapping):
        for key in ("message", "result", "status"):
            if isinstance(content.get(key), str):
                return one_line(content[key], width)
        return "ok"
    if isinstance(content, str):
        lines = count_lines(content)
        return plural(lines, "line") if lines > 1 else one_line(content, width) or "ok"
    return "ok"
