"""Helpers every subcommand shares: opening the home, printing JSON, failing with a sentence."""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path
from typing import Any, NoReturn

from engine.config import Config, ConfigError, load_config
from engine.home import Home, HomeError

EXIT_OK, EXIT_REFUSED, EXIT_USAGE = 0, 1, 2


class CliExit(Exception):
    """Leave the command with an exit code and one readable sentence on stderr."""

    def __init__(self, code: int, message: str = "") -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def fail(message: str, code: int = EXIT_USAGE) -> NoReturn:
    raise CliExit(code, message)


def open_home(args: argparse.Namespace) -> tuple[Home, Config]:
    """The home named by `--home` or `$HERMES_HOME`, created if new, with its validated config."""
    try:
        home = Home.resolve(getattr(args, "home", None)).ensure()
        config = load_config(home.root)
    except (HomeError, ConfigError) as exc:
        fail(str(exc), EXIT_USAGE)
    from engine.logs import setup_logging

    setup_logging(home, config)
    for warning in config.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    return home, config


def hws_command(home: Home) -> str:
    """The shell command that opens this home: `hws` for `~/.hermes`, else `hws --home PATH`, quoted.

    A home chosen by `--home` or by `$HERMES_HOME` set for one command is not what a later plain `hws`
    opens, so any other home is named.
    """
    if home.root == (Path.home() / ".hermes").absolute():
        return "hws"
    return f"hws --home {shlex.quote(str(home.root))}"


def print_json(value: Any) -> None:
    json.dump(value, sys.stdout, ensure_ascii=False, indent=2, default=str)
    sys.stdout.write("\n")
