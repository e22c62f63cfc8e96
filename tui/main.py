"""The `hws` console script: a subcommand runs headless in `engine.cli`; none opens the workstation.

Kept tiny so that `hws run` never pays for importing Textual.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence


def _without_home(argv: Sequence[str]) -> list[str]:
    args = list(argv)
    while args and args[0] == "--home" and len(args) >= 2:
        args = args[2:]
    while args and args[0].startswith("--home="):
        args = args[1:]
    return args


def _wants_subcommand(argv: Sequence[str]) -> bool:
    args = _without_home(argv)
    return bool(args) and not args[0].startswith("-")


def _wants_help(argv: Sequence[str]) -> bool:
    args = _without_home(argv)
    return bool(args) and args[0] in ("-h", "--help")


def _demo_arguments(argv: Sequence[str]) -> list[str] | None:
    """The arguments of `hws demo …` when it should open the workstation (not headless, not --list)."""
    args = list(argv)
    while args and args[0] == "--home" and len(args) >= 2:
        args = args[2:]  # the demo runs in a home of its own
    if not args or args[0] != "demo":
        return None
    rest = args[1:]
    if {"--headless", "--list", "--check", "--json", "-h", "--help"} & set(rest):
        return None
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        return None  # engine.cli says it needs a terminal and points at --headless
    return rest


def _browse_arguments(argv: Sequence[str]) -> list[str] | None:
    """The workstation's arguments (the home) for `hws skills browse` in a terminal; None otherwise
    (with --json, or without a terminal, the headless command prints the listing)."""
    args = list(argv)
    rest = _without_home(args)
    if rest != ["skills", "browse"]:
        return None  # --json, --help or a mistyped option: the headless command answers
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        return None
    return args[: len(args) - len(rest)]


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    browse = _browse_arguments(argv)
    if browse is not None:
        from tui.launch import launch as launch_hub

        return launch_hub(browse, open_hub=True)
    demo = _demo_arguments(argv)
    if demo is not None:
        from tui.demo import launch_demo

        return launch_demo(demo)
    if _wants_help(argv):  # the workstation's options and the subcommands, on one page
        from tui.launch import print_help

        print_help()
        return 0
    if _wants_subcommand(argv):
        from engine.cli import main as cli_main

        return cli_main(argv)
    from tui.launch import launch

    return launch(argv)


if __name__ == "__main__":
    sys.exit(main())
