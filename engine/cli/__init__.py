"""`hws` subcommands: the headless face of the engine, shared with the workstation."""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence


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
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in command_modules():
        importlib.import_module(name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one subcommand and return its exit code: 0 ok, 1 refused, 2 usage or config error."""
    from engine.cli.common import CliExit  # here, not above: engine/lazy_names.py says why

    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 2
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

        from engine.redact import Redactor

        logging.getLogger("engine.cli").exception("hws %s failed", getattr(args, "command", "?"))
        detail = Redactor.from_environ()(f"{type(exc).__name__}: {exc}")
        print(
            f"hws {getattr(args, 'command', '')}: unexpected error ({detail}). "
            "This is a bug; the details are in the home's logs/errors.log.",
            file=sys.stderr,
        )
        return 1
