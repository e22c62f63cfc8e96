"""The value of a shell word as bash would pass it: quotes removed, escapes and `$'…'` decoded, braces
expanded, `~` and `$HOME` resolved, or `None` when it depends on run time (a variable, a substitution).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

MAX_BRACE_WORDS = 256  # a brace expansion that makes more words than this is treated as unknown
GLOB_CHARS = "*?["
_QUOTE_ESCAPED = set("\\{},*?[]~$`'\" \t\n|&;<>()")


@dataclass(eq=False)
class Word:
    """One word of a command: its text as written and the value bash would pass (None: not known)."""

    text: str
    value: str | None
    expanded: bool = False  # `~` or `$HOME` was resolved, or an expansion is present
    glob: bool = False  # holds an unquoted `*`, `?` or `[`, so bash matches it against files
    node: Any = field(default=None, repr=False)  # the syntax node, for process substitutions

    @property
    def known(self) -> bool:
        return self.value is not None


@dataclass
class WordContext:
    """What resolving a word needs to know: the home folder, unless the command reassigns `HOME`."""

    home: str | None


def decode_ansi_c(text: str, echo: bool = False) -> str:
    """Decode the backslash escapes of `$'…'` (or of `echo -e`/`printf` when `echo` is true)."""
    out: list[str] = []
    i, n = 0, len(text)
    simple = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r"}
    simple.update({"t": "\t", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"})
    while i < n:
        c = text[i]
        if c != "\\" or i + 1 >= n:
            out.append(c)
            i += 1
            continue
        nxt = text[i + 1]
        if nxt in simple:
            out.append(simple[nxt])
            i += 2
        elif nxt in "01234567":
            start = i + 1 + (1 if echo and nxt == "0" else 0)
            digits = _run(text, start, "01234567", 3)
            out.append(chr(int(digits, 8) & 0xFF) if digits else "\0")
            i = start + len(digits)
        elif nxt in "xuU":
            digits = _run(text, i + 2, "0123456789abcdefABCDEF", {"x": 2, "u": 4, "U": 8}[nxt])
            if digits:
                code = int(digits, 16)
                out.append(chr(code) if code < 0x110000 else "\ufffd")
                i += 2 + len(digits)
            else:
                out.append("\\" + nxt)
                i += 2
        elif nxt == "c" and i + 2 < n and not echo:
            out.append(chr(ord(text[i + 2].upper()) ^ 0x40))
            i += 3
        else:
            out.append("\\" + nxt)
            i += 2
    return "".join(out)


def _run(text: str, start: int, allowed: str, limit: int) -> str:
    end = start
    while end < len(text) and end - start < limit and text[end] in allowed:
        end += 1
    return text[start:end]


def _unescape_double_quoted(text: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text) and text[i + 1] in '$`"\\\n':
            if text[i + 1] != "\n":
                out.append(text[i + 1])
            i += 2
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def _escape(text: str) -> str:
    """Quote every character that brace expansion, globbing or `~` would otherwise act on."""
    return "".join("\\" + c if c in _QUOTE_ESCAPED else c for c in text)


def _is_home(node: Any) -> bool:
    if node.type == "simple_expansion":
        return node.text == b"$HOME"
    return node.type == "expansion" and node.text == b"${HOME}"


def _segments(node: Any, ctx: WordContext) -> str | None:
    """The word in "escaped form" (quoted characters backslash-escaped), or None when not literal."""
    kind = node.type
    if kind in ("word", "number"):
        return node.text.decode("utf-8", "replace")
    if kind == "raw_string":
        return _escape(node.text.decode("utf-8", "replace")[1:-1])
    if kind == "ansi_c_string":
        return _escape(decode_ansi_c(node.text.decode("utf-8", "replace")[2:-1]))
    if kind in ("string", "translated_string"):
        parts = []
        for child in node.children:
            if child.type in ('"', "$"):
                continue
            if child.type == "string_content":
                parts.append(_escape(_unescape_double_quoted(child.text.decode("utf-8", "replace"))))
            elif _is_home(child) and ctx.home is not None:
                parts.append(_escape(ctx.home))
            else:
                return None
        return "".join(parts)
    if kind == "concatenation":
        parts = []
        for child in node.children:
            part = _segments(child, ctx)
            if part is None:
                return None
            parts.append(part)
        return "".join(parts)
    if kind == "brace_expression":
        return node.text.decode("utf-8", "replace")
    if _is_home(node) and ctx.home is not None:
        return _escape(ctx.home)
    return None


_EXPANSION_NODES = frozenset(
    {"simple_expansion", "expansion", "command_substitution", "process_substitution", "arithmetic_expansion"}
)


def _has_expansion(node: Any) -> bool:
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type in _EXPANSION_NODES:
            return True
        stack.extend(current.children)
    return False


def words_of(node: Any, ctx: WordContext) -> list[Word]:
    """The words bash makes of one argument node (brace expansion can make several)."""
    text = node.text.decode("utf-8", "replace")
    escaped = _segments(node, ctx)
    if escaped is None:
        return [Word(text, None, expanded=True, node=node)]
    expansions = brace_expand(escaped)
    if expansions is None:
        return [Word(text, None, expanded=True, node=node)]
    dollar = _has_expansion(node)
    return [_finish(text, one, ctx, dollar, node) for one in expansions]


def _finish(text: str, escaped: str, ctx: WordContext, dollar: bool, node: Any) -> Word:
    value: list[str] = []
    glob = False
    expanded = dollar
    i = 0
    if escaped.startswith("~"):
        end = escaped.find("/")
        end = len(escaped) if end < 0 else end
        user = escaped[:end]
        if "\\" not in user:
            home = ctx.home if user == "~" else os.path.expanduser(user)
            if home is None or home == user:
                return Word(text, None, expanded=True, node=node)
            value.append(home)
            expanded = True
            i = end
    while i < len(escaped):
        c = escaped[i]
        if c == "\\" and i + 1 < len(escaped):
            value.append(escaped[i + 1])
            i += 2
            continue
        if c in GLOB_CHARS:
            glob = True
        value.append(c)
        i += 1
    return Word(text, "".join(value), expanded=expanded, glob=glob, node=node)


def brace_expand(escaped: str, limit: int = MAX_BRACE_WORDS) -> list[str] | None:
    """Bash brace expansion (`a{b,c}`, `{1..3}`) of a word in escaped form; None past `limit` words."""
    i = 0
    while i < len(escaped):
        c = escaped[i]
        if c == "\\":
            i += 2
            continue
        if c == "{" and not (i > 0 and escaped[i - 1] == "$"):
            match = _match_brace(escaped, i)
            if match is not None:
                end, parts = match
                alternatives = parts if len(parts) > 1 else _sequence(parts[0])
                if alternatives is not None:
                    out: list[str] = []
                    for alternative in alternatives:
                        more = brace_expand(escaped[:i] + alternative + escaped[end + 1 :], limit)
                        if more is None or len(out) + len(more) > limit:
                            return None
                        out.extend(more)
                    return out
        i += 1
    return [escaped]


def _match_brace(text: str, start: int) -> tuple[int, list[str]] | None:
    depth, parts, last = 0, [], start + 1
    i = start
    while i < len(text):
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                parts.append(text[last:i])
                return i, parts
        elif c == "," and depth == 1:
            parts.append(text[last:i])
            last = i + 1
        i += 1
    return None


def _sequence(inner: str) -> list[str] | None:
    pieces = inner.split("..")
    if len(pieces) not in (2, 3) or any(not p for p in pieces):
        return None
    step = 1
    if len(pieces) == 3:
        try:
            step = abs(int(pieces[2])) or 1
        except ValueError:
            return None
    first, last = pieces[0], pieces[1]
    try:
        a, b = int(first), int(last)
        numbers = range(a, b + 1, step) if a <= b else range(a, b - 1, -step)
        if len(numbers) > MAX_BRACE_WORDS:
            return None
        return [str(n) for n in numbers]
    except ValueError:
        pass
    if len(first) == 1 and len(last) == 1:
        a, b = ord(first), ord(last)
        codes = range(a, b + 1, step) if a <= b else range(a, b - 1, -step)
        return [_escape(chr(c)) for c in codes]
    return None
