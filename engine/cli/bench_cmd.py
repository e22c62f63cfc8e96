"""`hws bench [SUITE…] [--quick] [--large] [--json]`: every benchmark in one table (as `python -m bench`)."""

from __future__ import annotations

import argparse
import os
import subprocess
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


def _checkout() -> Path:
    """The source checkout this engine runs from; its bench/ is not installed with the package."""
    checkout = Path(__file__).resolve().parents[2]
    if not (checkout / "bench" / "__main__.py").is_file():
        fail(
            "The benchmarks live in the source tree (bench/), which this installation does not have; "
            "run `hws bench` from a checkout of hermes-workstation.",
            EXIT_USAGE,
        )
    return checkout


def run(args: argparse.Namespace) -> int:
    """`python -m bench` in a child process, from the checkout (nothing of bench/ is imported here)."""
    checkout = _checkout()
    argv = list(args.only)
    flags = (("--quick", args.quick), ("--large", args.large), ("--json", args.json))
    argv += [flag for flag, on in flags if on]
    environment = dict(os.environ)
    path = environment.get("PYTHONPATH", "")
    environment["PYTHONPATH"] = str(checkout) + (os.pathsep + path if path else "")
    return subprocess.run([sys.executable, "-m", "bench", *argv], env=environment).returncode
