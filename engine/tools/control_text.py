"""What a program printed on a pseudo-terminal, as plain text: colours, cursor moves and titles removed.

A terminal program paints a screen; the model reads lines. Escape sequences (CSI, OSC, DCS and the
two-byte ones) are dropped, a carriage return that rewrites a line keeps what was written last, and
backspaces erase the character before them.
"""

from __future__ import annotations

import re

# CSI (`ESC [ … final`, or the 8-bit 0x9b), OSC / DCS / PM / APC strings up to BEL or ST, and the
# two-byte escapes (`ESC =`, `ESC (B`, …).
_SEQUENCE = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]"
    r"|(?:\x1b[\]P^_]|[\x90\x9d\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x1b[ -/]*[0-~]"
)
_CONTROL = re.compile(r"[\x00-\x07\x0b\x0c\x0e-\x1f\x7f]")


def plain_text(text: str) -> str:
    """`text` without terminal control: what a person would read on the screen, line by line."""
    text = _SEQUENCE.sub("", text).replace("\r\n", "\n")
    lines = [_overwritten(line) for line in text.split("\n")]
    return "\n".join(lines)


def _overwritten(line: str) -> str:
    if "\b" in line:
        kept: list[str] = []
        for char in line:
            if char == "\b":
                if kept:
                    kept.pop()
            else:
                kept.append(char)
        line = "".join(kept)
    if "\r" in line:
        # A carriage return moves back to the start: later text overwrites earlier text in place.
        shown = ""
        for part in line.split("\r"):
            shown = part + shown[len(part) :]
        line = shown
    return _CONTROL.sub("", line)
