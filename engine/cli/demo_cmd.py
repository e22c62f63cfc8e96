"""`hws demo [DEMO]`: a scripted day of work through the real engine, in a home of its own.

Without `--headless` the console script (`tui/main.py`) opens the workstation's demo (`tui/demo.py`)
before this module is reached; here is the headless player, the shared arguments, `--list` and
`--check`.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from engine.cli.common import EXIT_OK, EXIT_REFUSED, EXIT_USAGE, fail

DEFAULT_SPEED = 1.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The demo's arguments, shared by the headless player and the workstation's demo."""
    parser.add_argument(
        "demo", nargs="?", default="day-of-work", help="a shipped demo by name, or a demo YAML file"
    )
    parser.add_argument(
        "--headless",
        action="store_true",
        help="play without the workstation: print the event stream and what changed in the home",
    )
    parser.add_argument("--json", action="store_true", help="with --headless: every event as a JSON line")
    parser.add_argument(
        "--speed",
        type=float,
        default=DEFAULT_SPEED,
        help="typing and streaming pace; 2 is twice as fast, 0.5 half (default 1)",
    )
    parser.add_argument(
        "--keep",
        metavar="PATH",
        help="run the demo in PATH (a new or empty folder) and keep it; by default a temporary home "
        "is removed at the end",
    )
    parser.add_argument("--list", action="store_true", help="list the shipped demos and exit")
    parser.add_argument("--check", action="store_true", help="only check the demo file and exit")


def register(sub: Any) -> None:
    parser = sub.add_parser(
        "demo",
        help="watch the learning loop: a scripted day of work in a temporary home (no API key)",
        description=(
            "Play a scripted day of work through the real agent, the workstation and a scripted model "
            "server, in a home of its own (never yours). Space pauses, n steps, q quits; at the end you "
            "can keep working in the demo home. --headless prints the event stream instead."
        ),
    )
    add_arguments(parser)
    parser.set_defaults(handler=run)


def load(args: argparse.Namespace) -> Any:
    from engine.demo.script import DemoError, load_demo

    if not args.speed > 0:
        fail(f"--speed must be more than 0, not {args.speed}.", EXIT_USAGE)
    try:
        return load_demo(args.demo)
    except DemoError as exc:
        fail(str(exc), EXIT_USAGE)


def run(args: argparse.Namespace) -> int:
    from engine.demo.script import builtin_demos

    if args.list:
        for name in builtin_demos():
            print(name)
        return EXIT_OK
    script = load(args)
    if args.check:
        print(
            f"{script.source}: {len(script.steps)} steps, {script.turns} turns, {len(script.checks)} checks, "
            f"{len(script.model.rules)} model rules; it is playable."
        )
        return EXIT_OK
    if not args.headless:
        # Reached only when the console script could not open the workstation (no terminal).
        fail(
            "hws demo opens the workstation and needs a terminal; `hws demo --headless` plays it as text.",
            EXIT_USAGE,
        )
    return play_headless(script, args)


def play_headless(script: Any, args: argparse.Namespace) -> int:
    from engine.demo.player import HeadlessPlayer
    from engine.demo.printer import DemoPrinter, JsonDemoPrinter
    from engine.demo.report import build_report
    from engine.demo.script import DemoError
    from engine.demo.workspace import DemoWorkspace

    try:
        workspace = DemoWorkspace.create(script, keep=args.keep)
    except DemoError as exc:
        fail(str(exc), EXIT_USAGE)
    printer = JsonDemoPrinter() if args.json else DemoPrinter()
    try:
        workspace.start_server(chunk_delay=0.0)
        asyncio.run(HeadlessPlayer(workspace, printer.show).play())
        workspace.stop_server()
        report = build_report(workspace)
        printer.report(report)
        if workspace.temporary:
            printer.write(f"(the demo home {workspace.home.root} is removed; --keep PATH keeps one)")
        else:
            printer.write(
                f"Keep working in the demo home: hws --home {workspace.home.root}  "
                "(hws setup --home … picks your own model)"
            )
    finally:
        workspace.remove()
    if printer.errors:
        print(f"{printer.errors} turn(s) ended in an error.", file=sys.stderr)
    return EXIT_OK if report.ok and not printer.errors else EXIT_REFUSED
