"""`hws` subcommands: the headless face of the engine, shared with the workstation."""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Callable, Sequence
from typing import Any


def command_modules() -> list[str]:
    """Every `*_cmd` module in this package adds its subcommands; discovered, so none is forgotten."""
    return sorted(
        f"{__name__}.{info.name}" for info in pkgutil.iter_modules(__path__) if info.name.endswith("_cmd")
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="hws",
        description="Hermes Workstation: a keyboard-driven workstation around a self-improving agent.",
    )
    parser.add_argument("--home", metavar="PATH", help="use this home instead of $HERMES_HOME")
    from engine.cli.launch_options import WORKSTATION_GROUP, add_workstation_options

    add_workstation_options(parser.add_argument_group(WORKSTATION_GROUP))
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in command_modules():
        importlib.import_module(name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one subcommand and return its exit code: 0 ok, 1 refused, 2 usage or config error.

    Everything the command prints passes the home's redactor (`.env`, settings, key shapes), so a key
    that reaches a message, a stored text or an endpoint's echo is never shown.
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 2
    redact = _home_redaction(args)
    stdout, stderr = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _redacting(stdout, redact), _redacting(stderr, redact)
    try:
        return _run(args, handler, redact)
    finally:
        sys.stdout, sys.stderr = stdout, stderr


def _run(args: argparse.Namespace, handler: Any, redact: Callable[[str], str]) -> int:
    from engine.cli.common import CliExit  # here, not above: an __init__ importing its submodules races

    try:
        return int(handler(args) or 0)
    except CliExit as exc:
        if exc.message:
            print(exc.message, file=sys.stderr)
        return exc.code
    except KeyboardInterrupt:
        print("Interrupted.", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # the last line of defence: a sentence, never a traceback
        import logging

        logging.getLogger("engine.cli").exception("hws %s failed", getattr(args, "command", "?"))
        detail = redact(f"{type(exc).__name__}: {exc}")
        print(
            f"hws {getattr(args, 'command', '')}: unexpected error ({detail}). "
            "This is a bug; the details are in the home's logs/errors.log.",
            file=sys.stderr,
        )
        return 1


def _home_redaction(args: argparse.Namespace) -> Callable[[str], str]:
    """Redaction by the home's keys as they stand at each write (a command may add one to `.env`)."""
    from engine.home import Home
    from engine.threats.redact import Redactor, home_redactor

    try:
        root = Home.resolve(getattr(args, "home", None)).root
    except (OSError, RuntimeError):  # no home to be found: the environment's keys and the shapes
        return Redactor.from_environ()

    def redact(text: str) -> str:
        return home_redactor(root)(text)

    return redact


def _redacting(stream: Any, redact: Callable[[str], str]) -> Any:
    from engine.threats.redact import RedactingStream

    return stream if stream is None else RedactingStream(stream, redact)
