"""Open the workstation: `hws` on `$HERMES_HOME`, `hws --home PATH` on another home.

`hws --scripted [--scenario NAME|FILE]` runs it against the scripted model server (started in this
process, no API key) on a temporary home, unless `--home` names one; `hws --resume SESSION` opens
a past conversation (by id, id prefix or title) and goes on with it; `hws -c` goes on with the most
recent one.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from collections.abc import Sequence
from functools import partial
from pathlib import Path

from tui.crash import crash_code, exit_after_crash, redact_crash_output


def parse(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="hws",
        description="Open the workstation (subcommands run headless: `hws --help` lists them).",
    )
    parser.add_argument("--home", metavar="PATH", help="use this home instead of $HERMES_HOME")
    add_workstation_options(parser)
    return parser.parse_args(list(argv))


def add_workstation_options(parser: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    """The options of `hws` without a subcommand (`--home` aside, which the subcommands share)."""
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
    parser.add_argument("--version", action=_VersionAction, nargs=0, help="show the version and exit")


def print_help() -> None:
    """`hws --help`: the workstation's own options, then the headless subcommands."""
    from engine.cli import build_parser

    parser = build_parser()
    add_workstation_options(parser.add_argument_group("open the workstation (no COMMAND)"))
    parser.print_help()


class _VersionAction(argparse.Action):
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


def launch(argv: Sequence[str]) -> int:
    """Open the app; a home, config or scenario problem is one sentence on stderr and exit code 2."""
    args = parse(argv)
    from engine.config import ConfigError, load_config
    from engine.home import Home, HomeError

    scripted = bool(args.scripted or args.scenario)
    scratch: Path | None = None
    if scripted and not args.home:
        scratch = Path(tempfile.mkdtemp(prefix="hws-scripted-"))
    try:
        try:
            home = Home.resolve(str(scratch) if scratch else args.home).ensure()
            config = load_config(home.root)
        except (HomeError, ConfigError) as exc:
            print(exc, file=sys.stderr)
            return 2
        if args.continue_last:
            from engine.sessions.latest import most_recent_session

            found, problem = most_recent_session(home, config, "hws")
            if found is None:
                print(problem, file=sys.stderr)
                return 2
            args.resume = found
        served = "web_driver" in os.environ.get("TEXTUAL_DRIVER", "")  # under `hws serve`: a browser tab
        if not served and (not sys.stdout.isatty() or not sys.stdin.isatty()):
            print(
                "hws opens a full-screen workstation and needs a terminal; "
                "for scripts use the subcommands (`hws --help`).",
                file=sys.stderr,
            )
            return 2
        return _run(home, config, args, scripted, scratch is not None)
    except WorkstationCrashed as crash:
        code = crash.code
    finally:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
    exit_after_crash(code)


class WorkstationCrashed(Exception):
    """The app stopped on an unhandled error; Textual has printed it."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


def _run(home, config, args: argparse.Namespace, scripted: bool, temporary: bool) -> int:  # type: ignore[no-untyped-def]
    from engine.logs import setup_logging
    from tui.agent_port import AgentBuilder
    from tui.catalogs import session_catalog, skill_catalog

    setup_logging(home, config)  # logs/agent.log and errors.log, secrets redacted

    server = None
    builder = AgentBuilder(workdir=Path.cwd())
    note = ""
    if scripted:
        from tui.scripted import ScriptedModelError, start_scripted_model

        try:
            scripted_model = start_scripted_model(args.scenario or "default")
        except ScriptedModelError as exc:
            print(exc, file=sys.stderr)
            return 2
        server = scripted_model.server
        builder.overrides = scripted_model.overrides
        note = scripted_model.note(home.root, temporary)
        from tui.agent_port import with_overrides

        config = with_overrides(config, scripted_model.overrides)
    from tui.app import HwsApp

    app = HwsApp(
        home,
        config,
        agent_factory=builder,
        skill_source=partial(skill_catalog, home, config),
        session_source=partial(session_catalog, home, config, int(config.tui.palette_sessions)),
        resume=args.resume,
        note=note,
        offer_setup=bool(config.setup.offer_screen) and not scripted,
    )
    app.handle_terminate = True
    redact_crash_output(app, home.root, config)
    try:
        result = app.run()
    finally:
        if server is not None:
            server.stop()
    code = crash_code(app)
    if code is not None:
        raise WorkstationCrashed(code)
    return int(result or 0)
