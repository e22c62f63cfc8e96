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

from engine.cli.launch_options import add_workstation_options
from tui.crash import crash_code, exit_after_crash, redact_crash_output


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="hws",
        description="Open the workstation (subcommands run headless: `hws --help` lists them).",
    )
    parser.add_argument("--home", metavar="PATH", help="use this home instead of $HERMES_HOME")
    add_workstation_options(parser)
    return parser


def print_help() -> None:
    """`hws --help`: the workstation's own options beside the headless subcommands, on one page."""
    from engine.cli import build_parser as full_parser

    full_parser().print_help()


def parse(argv: Sequence[str]) -> argparse.Namespace:
    return build_parser().parse_args(list(argv))


def launch(argv: Sequence[str], open_hub: bool = False) -> int:
    """Open the app (on the skills hub screen with `open_hub`); a home, config or scenario problem is
    one sentence on stderr and exit code 2."""
    from tui import heap

    heap.hold_for_start()  # the app's first frame turns collections back on (`heap.settle`)
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
            from engine.sessions.last_session import most_recent_session

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
        return _run(home, config, args, scripted, scratch is not None, open_hub)
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


def _run(  # type: ignore[no-untyped-def]
    home, config, args: argparse.Namespace, scripted: bool, temporary: bool, open_hub: bool = False
) -> int:
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
        offer_setup=bool(config.setup.offer_screen) and not scripted and not open_hub,
        open_hub=open_hub,
    )
    app.handle_terminate = True
    from tui.hangup import hangup_safe

    app.driver_class = hangup_safe(app.driver_class)
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
