"""Generated blocks in hand-written files: the text between a start marker and an end marker."""

from __future__ import annotations


def replace_between(text: str, block: str, start: str, end: str) -> str:
    """`text` with `block` (which carries both markers) put where the markers are, once each.

    The start marker is matched up to its first " (" so its explanation may change.
    """
    opening = start.split(" (")[0]
    at, until = text.find(opening), text.find(end)
    if at < 0 or until < at:
        raise ValueError(f"the markers {opening} … {end} are missing or out of order")
    return text[:at] + block + text[until + len(end) :]
