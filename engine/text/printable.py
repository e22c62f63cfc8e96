"""Text from files made safe to print: control and format characters shown as escapes, never sent raw.

A file name or a description can carry terminal escape sequences (`\\x1b]0;…\\x07` retitles the
window, `\\x1b[2J` clears it) or direction overrides that reorder what the person reads. Wherever the
workstation prints such text it goes through `printable()`, which writes those characters as `\\x1b`,
`\\u202e`, … and leaves everything else, accents and emoji included, as it is.
"""

from __future__ import annotations

import re
import unicodedata

# Controls, bidi and zero-width format characters, line separators, and lone surrogates (the bytes of a
# file name that is not UTF-8, as Python hands them over).
_UNSAFE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ufff9-\ufffb\ud800-\udfff]"
)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str, keep_newlines: bool = False) -> str:
    """`text` with control, format and line-separator characters written as escapes.

    `keep_newlines` leaves line feeds and tabs alone (for multi-line text such as a SKILL.md).
    """
    if text.isascii() and text.isprintable():
        return text
    if keep_newlines:
        return "\n".join(
            "\t".join(_UNSAFE.sub(_escape, part) for part in line.split("\t")) for line in text.split("\n")
        )
    return _UNSAFE.sub(_escape, text)


def has_unsafe(text: str) -> bool:
    """True when `text` holds a character `printable()` would escape (control, format, bidi)."""
    if text.isascii() and text.isprintable():
        return False
    return _UNSAFE.search(text) is not None or any(unicodedata.category(ch) == "Cf" for ch in text)
