"""The terminal's approval rules on the shell corpora: how many disguised destructive commands ask, how
many everyday commands ask, and what reading one command costs, against the former shlex checker
(bench/shell_danger_baseline.py) measured in the same run on the same commands.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench.common import Figure, Options, temp_home
from bench.shell_danger_baseline import find_dangers as old_find_dangers
from engine.tools.danger import find_dangers

DISGUISE_TARGET = 1.0  # every disguise asks
BENIGN_TARGET = 0.05  # at most this share of everyday commands asks


def _asks(check: Callable[[str, Path], list[object]], commands: list[str], cwd: Path) -> int:
    return sum(1 for command in commands if check(command, cwd))


def _median_us(
    check: Callable[[str, Path], list[object]], commands: list[str], cwd: Path, runs: int
) -> float:
    """The median over commands of each command's median time, in microseconds."""
    per_command = []
    for command in commands:
        check(command, cwd)
        samples = []
        for _ in range(runs):
            started = time.perf_counter()
            check(command, cwd)
            samples.append((time.perf_counter() - started) * 1e6)
        per_command.append(statistics.median(samples))
    return statistics.median(per_command)


def run(options: Options) -> list[Figure]:
    from tests.security.shell_corpus import BENIGN, DISGUISES
    from tests.security.victim_support import make_project, make_victim

    runs = 5 if options.quick else 25
    with temp_home(), tempfile.TemporaryDirectory(prefix="hws-bench-shell-") as root:
        old_home = os.environ.get("HOME")
        os.environ["HOME"] = str(Path(root) / "home")
        try:
            work, project = Path(root) / "work", Path(root) / "project"
            work.mkdir()
            project.mkdir()
            make_victim(work)
            make_project(project)
            disguises = [d.command for d in DISGUISES]
            new_caught = _asks(find_dangers, disguises, work)
            old_caught = _asks(old_find_dangers, disguises, work)
            new_benign = _asks(find_dangers, BENIGN, project)
            old_benign = _asks(old_find_dangers, BENIGN, project)
            everything = disguises + BENIGN
            new_us = _median_us(find_dangers, everything, work, runs)
            old_us = _median_us(old_find_dangers, everything, work, runs)
        finally:
            if old_home is None:
                os.environ.pop("HOME", None)
            else:
                os.environ["HOME"] = old_home
    total, benign = len(disguises), len(BENIGN)
    return [
        Figure(
            "disguised destructive commands that ask",
            100 * new_caught / total,
            "%",
            "100 %",
            baseline=f"shlex checker: {100 * old_caught / total:.1f} % ({old_caught}/{total})",
            note=f"{new_caught}/{total}, {len({d.family for d in DISGUISES})} families",
            met=new_caught / total >= DISGUISE_TARGET,
        ),
        Figure(
            "everyday commands that ask",
            100 * new_benign / benign,
            "%",
            "<= 5 %",
            baseline=f"shlex checker: {100 * old_benign / benign:.1f} % ({old_benign}/{benign})",
            note=f"{new_benign}/{benign}",
            met=new_benign / benign <= BENIGN_TARGET,
        ),
        Figure(
            "reading one command (parse and rules)",
            new_us,
            "µs",
            baseline=f"shlex checker: {old_us:,.0f} µs",
            note=f"median over {len(everything)} commands of each one's median of {runs} runs",
        ),
    ]
