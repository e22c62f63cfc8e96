"""Open the workstation: `hws` on `$HERMES_HOME`, `hws --home PATH` on another home."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence


def parse(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="hws",
        description="Open the workstation (subcommands run headless: `hws --help` lists them).",
    )
    parser.add_argument("--home", metavar="PATH", help="use this home instead of $HERMES_HOME")
    parser.add_argument("--version", action="version", version=f"hws {version()}")
    return parser.parse_args(list(argv))


def version() -> str:
    """The installed package's version (a checkout that is not installed says so)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as package_version

    try:
        return package_version("hermes-workstation")
    except PackageNotFoundError:
        return "(not installed: run pip install .)"


def launch(argv: Sequence[str]) -> int:
    """Open the app; a home or config problem is one sentence on stderr and exit code 2."""
    args = parse(argv)
    from engine.config import ConfigError, load_config
    from engine.home import Home, HomeError

    try:
        home = Home.resolve(args.home).ensure()
        config = load_config(home.root)
    except (HomeError, ConfigError) as exc:
        print(exc, file=sys.stderr)
        return 2
    served = "web_driver" in os.environ.get("TEXTUAL_DRIVER", "")  # under `hws serve`: a browser tab
    if not served and (not sys.stdout.isatty() or not sys.stdin.isatty()):
        print(
            "hws opens a full-screen workstation and needs a terminal; "
            "for scripts use the subcommands (`hws --help`).",
            file=sys.stderr,
        )
        return 2
    from engine.logs import setup_logging
    from tui.agent_port import build_agent
    from tui.app import HwsApp

    setup_logging(home, config)  # logs/agent.log and errors.log, secrets redacted

    app = HwsApp(home, config, agent_factory=build_agent, offer_setup=bool(config.setup.offer_screen))
    result = app.run()
    return int(result or 0)
