"""`hws doctor`: check the home, the database, the config and the model endpoint; each ok / warning /
error with the fix. Exit code: 0 all ok, 1 a warning at worst, 3 an error."""

from __future__ import annotations

import argparse
from typing import Any

from engine.cli.common import EXIT_USAGE, fail, print_json

EXIT_WARNING, EXIT_ERROR = 1, 3
MARKS = {"ok": "ok     ", "warning": "warning", "error": "error  "}


def register(sub: Any) -> None:
    parser = sub.add_parser(
        "doctor",
        help="check the home, state.db, config.yaml and the model endpoint, with a fix for each problem",
        description=(
            "Check the home (permissions, files, sizes, drifted memory files, skills that fail to parse, "
            "guard verdicts), state.db (integrity, schema, size), config.yaml and the model endpoint (one "
            "tiny request). Nothing is changed. Exit code: 0 all ok, 1 a warning, 3 an error."
        ),
    )
    parser.add_argument("--offline", action="store_true", help="skip the request to the model endpoint")
    parser.add_argument("--json", action="store_true", help="print the findings as JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from engine.cli.doctor import ERROR, WARNING, run_checks, worst
    from engine.home import Home, resolve_home_path

    path = resolve_home_path(getattr(args, "home", None)).absolute()
    if not path.exists():
        fail(f"There is no home at {path} yet; run hws (or `hws setup`) once to make it.", EXIT_USAGE)
    findings = run_checks(Home(path), endpoint=not args.offline)
    level = worst(findings)
    if args.json:
        print_json({"home": str(path), "worst": level, "findings": [f.as_dict() for f in findings]})
    else:
        print(f"hws doctor: {path}")
        for finding in findings:
            print(f"  {MARKS[finding.level]}  {finding.area:<9} {finding.message}")
            if finding.fix and finding.level != "ok":
                print(f"  {'':7}  {'':<9} fix: {finding.fix}")
        counts = {name: sum(1 for f in findings if f.level == name) for name in ("ok", "warning", "error")}
        print(
            f"{counts['ok']} ok, {counts['warning']} warning{'' if counts['warning'] == 1 else 's'}, "
            f"{counts['error']} error{'' if counts['error'] == 1 else 's'}"
        )
    return {ERROR: EXIT_ERROR, WARNING: EXIT_WARNING}.get(level, 0)
