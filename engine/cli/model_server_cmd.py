"""`hws model-server [SCENARIO]`: run the scripted OpenAI-compatible model server on 127.0.0.1."""

from __future__ import annotations

import argparse
import signal
import sys
from typing import Any

from engine.cli.common import EXIT_OK, EXIT_USAGE, fail


def register(sub: Any) -> None:
    parser = sub.add_parser(
        "model-server",
        help="serve a scripted OpenAI-compatible model on 127.0.0.1 (no API key needed)",
        description=(
            "Serve /v1/models and /v1/chat/completions on 127.0.0.1, answering from a scenario file "
            "(see docs/scenarios.md). Point `model.base_url` at the printed URL."
        ),
    )
    parser.add_argument(
        "scenario",
        nargs="?",
        default="default",
        help="a scenario YAML file, or a shipped one by name (default)",
    )
    parser.add_argument("--port", type=int, default=0, help="port to listen on (default: any free port)")
    parser.add_argument("--log", metavar="FILE", help="append every request received to FILE as JSON lines")
    parser.add_argument("--check", action="store_true", help="only check the scenario file and exit")
    parser.add_argument("--list", action="store_true", help="list the shipped scenarios and exit")
    parser.add_argument("--verbose", action="store_true", help="print one line per HTTP request")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from engine.model_server.parsing import builtin_scenarios, load_scenario
    from engine.model_server.scenario import ScenarioError
    from engine.model_server.server import ScriptedModelServer

    if args.list:
        for name in builtin_scenarios():
            print(name)
        return EXIT_OK
    if not 0 <= args.port <= 65535:
        fail(f"--port must be between 0 and 65535, not {args.port}.", EXIT_USAGE)
    try:
        scenario = load_scenario(args.scenario)
    except ScenarioError as exc:
        fail(str(exc), EXIT_USAGE)
    if args.check:
        print(f"{scenario.source}: {rules(len(scenario.rules))}, model {scenario.model!r}; it is playable.")
        return EXIT_OK
    try:
        server = ScriptedModelServer(
            scenario, port=args.port, log_path=args.log, verbose=args.verbose
        ).start()
    except OSError as exc:
        fail(
            f"Cannot listen on 127.0.0.1 port {args.port}: {exc.strerror}; choose another --port.", EXIT_USAGE
        )
    print(
        f"Scripted model server playing {scenario.name!r} ({len(scenario.rules)} rules) at {server.base_url}"
    )
    print("Use it with:  model: {base_url: " + server.base_url + ", default: " + scenario.model + "}")
    print("Press Ctrl-C to stop.", flush=True)
    signal.signal(signal.SIGTERM, _stop_on_term)  # `kill PID` stops it as cleanly as Ctrl-C
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print(f"\nStopped after {len(server.chat_requests)} chat requests.", file=sys.stderr)
    return EXIT_OK


def rules(count: int) -> str:
    return f"{count} rule" if count == 1 else f"{count} rules"


def _stop_on_term(signum: int, frame: object) -> None:
    raise KeyboardInterrupt
