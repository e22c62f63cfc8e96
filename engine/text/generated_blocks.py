"""Generated blocks in hand-written files: the text between a start marker and an end marker."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path


def replace_between(text: str, block: str, start: str, end: str) -> str:
    """`text` with `block` (which carries both markers) put where the markers are, once each.

    The start marker is matched up to its first " (" so its explanation may change.
    """
    opening = start.split(" (")[0]
    at, until = text.find(opening), text.find(end)
    if at < 0 or until < at:
        raise ValueError(f"the markers {opening} … {end} are missing or out of order")
    return text[:at] + block + text[until + len(end) :]


def block_command(
    argv: Sequence[str] | None, prog: str, render: Callable[[], str], start: str, end: str, stale: str
) -> int:
    """The command line of a generated block: print it, `--write FILE` it, or `--check FILE` (exit 1
    with `stale` on stderr when FILE's block is not the one `render()` gives now)."""
    parser = argparse.ArgumentParser(prog=prog)
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--write", metavar="FILE", help="replace the block between the markers in FILE")
    group.add_argument("--check", metavar="FILE", help="exit 1 when FILE's block is not the current one")
    args = parser.parse_args(argv)
    block = render()
    if not (args.write or args.check):
        print(block)
        return 0
    path = Path(args.write or args.check)
    text = path.read_text(encoding="utf-8")
    updated = replace_between(text, block, start, end)
    if args.check:
        if updated != text:
            print(f"{path}: {stale}", file=sys.stderr)
            return 1
        return 0
    path.write_text(updated, encoding="utf-8")
    return 0
