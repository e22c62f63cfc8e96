"""`hws bench [SUITE…] [--quick] [--large] [--json]`: every benchmark in one table (as `python -m bench`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from engine.cli.common import EXIT_USAGE, fail


def register(sub: Any) -> None:
    parser = sub.add_parser(
        "bench",
        help="run the benchmarks and print one table: figure, value, target, baseline",
        description=(
            "Run every benchmark (bench/bench_*.py) and print one table of figures, each with its target "
            "and the baseline measured in the same run; the report is also written to "
            "bench/results/latest.json. Needs a source checkout (the benchmarks are not installed)."
        ),
    )
    parser.add_argument("only", nargs="*", help="run only suites whose name contains this")
    parser.add_argument("--quick", action="store_true", help="fewer runs and smaller data, about a minute")
    parser.add_argument("--large", action="store_true", help="add the large-data variants")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.set_defaults(handler=run)


def _bench_main() -> Any:
    """`bench.__main__.main`, from the checkout this engine runs from when it is not on the path."""
    try:
        from bench.__main__ import main
    except ImportError:
        checkout = Path(__file__).resolve().parents[2]
        if not (checkout / "bench" / "__main__.py").is_file():
            fail(
                "The benchmarks live in the source tree (bench/), which this installation does not have; "
                "run `hws bench` from a checkout of hermes-workstation.",
                EXIT_USAGE,
            )
        sys.path.insert(0, str(checkout))
        from bench.__main__ import main
    return main


def run(args: argparse.Namespace) -> int:
    main = _bench_main()
    argv = list(args.only)
    flags = (("--quick", args.quick), ("--large", args.large), ("--json", args.json))
    argv += [flag for flag, on in flags if on]
    return int(main(argv) or 0)
