"""The options of `hws` without a subcommand (the workstation), defined once.

`tui/launch.py` parses them; `hws --help` (this package's parser) lists them beside the subcommands,
so an option added here is both accepted and shown. Plain argparse: nothing here imports the UI.
"""

from __future__ import annotations

import argparse
from typing import Any

WORKSTATION_GROUP = "open the workstation (no COMMAND)"


def add_workstation_options(parser: argparse.ArgumentParser | Any) -> None:
    """The workstation's own options (`--home` is the parser's already: every command takes it)."""
    parser.add_argument(
        "--scripted",
        action="store_true",
        help="answer from the built-in scripted model server (no API key) on a temporary home (or on --home)",
    )
    parser.add_argument(
        "--scenario",
        metavar="NAME|FILE",
        help="the scripted model's scenario: a shipped name or a YAML file (implies --scripted)",
    )
    going_on = parser.add_mutually_exclusive_group()
    going_on.add_argument(
        "--resume", metavar="SESSION", help="go on with a past session (its id, an id prefix or its title)"
    )
    going_on.add_argument(
        "-c",
        "--continue",
        dest="continue_last",
        action="store_true",
        help="go on with the most recent session",
    )
    parser.add_argument("--version", action=VersionAction, nargs=0, help="show the version and exit")


class VersionAction(argparse.Action):
    """`--version`, looked up only when asked (reading the package metadata cost every start ~40 ms)."""

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        print(f"hws {version()}")  # on stdout, as argparse's own version action prints it
        parser.exit()


def version() -> str:
    """The installed package's version (a checkout that is not installed says so)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as package_version

    try:
        return package_version("hermes-workstation")
    except PackageNotFoundError:
        return "(not installed: run pip install .)"
