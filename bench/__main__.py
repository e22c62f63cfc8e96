"""`python -m bench`: run every `bench_*.py` module and print one table of figures.

Each module has `run(options) -> list[Figure]`. The table is also written to
`bench/results/latest.json` so figures can be compared across versions; running some suites
replaces only their figures there, keeping the other suites' from earlier runs (each figure
says when it was measured).
"""

from __future__ import annotations

import argparse
import importlib
import json
import pkgutil
import sys
import time
from pathlib import Path

import bench
from bench.common import Figure, Options

RESULTS = Path(__file__).parent / "results"


def modules(only: list[str]) -> list[str]:
    names = sorted(
        info.name for info in pkgutil.iter_modules(bench.__path__) if info.name.startswith("bench_")
    )
    if only:
        names = [n for n in names if any(o in n for o in only)]
    return names


def earlier_figures(path: Path) -> list[dict[str, object]]:
    """Figures of an earlier report (none when there is none, or it cannot be read)."""
    try:
        figures = json.loads(path.read_text(encoding="utf-8")).get("figures", [])
    except (OSError, ValueError, AttributeError):
        return []
    return [f for f in figures if isinstance(f, dict)] if isinstance(figures, list) else []


def render(rows: list[tuple[str, Figure]]) -> str:
    header = ("suite", "figure", "value", "target", "baseline (same run)", "")
    table = [header]
    for suite, fig in rows:
        mark = "" if fig.met is None else ("ok" if fig.met else "MISS")
        table.append(
            (suite, fig.name, f"{fig.value:,.3f} {fig.unit}".rstrip(), fig.target, fig.baseline, mark)
        )
    widths = [max(len(str(r[i])) for r in table) for i in range(len(header))]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in table]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("only", nargs="*", help="run only suites whose name contains this")
    parser.add_argument("--quick", action="store_true", help="fewer runs, about a minute in all")
    parser.add_argument("--large", action="store_true", help="add the large-data variants")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args(argv)
    options = Options(quick=args.quick, large=args.large)
    rows: list[tuple[str, Figure]] = []
    started = time.perf_counter()
    for name in modules(args.only):
        suite = name.removeprefix("bench_")
        print(f"running {suite}…", file=sys.stderr, flush=True)
        module = importlib.import_module(f"bench.{name}")
        for fig in module.run(options):
            rows.append((suite, fig))
            print(f"  {fig.name}: {fig.value:,.3f} {fig.unit}", file=sys.stderr, flush=True)
    measured = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    report = {
        "elapsed_s": round(time.perf_counter() - started, 1),
        "quick": args.quick,
        "figures": [{"suite": s, "measured": measured, "quick": args.quick, **f.as_dict()} for s, f in rows],
    }
    out = RESULTS
    out.mkdir(exist_ok=True)
    latest = out / "latest.json"
    kept = [f for f in earlier_figures(latest) if f.get("suite") not in {s for s, _ in rows}]
    saved = {**report, "figures": kept + report["figures"]}
    latest.write_text(json.dumps(saved, indent=2), encoding="utf-8")
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(render(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
