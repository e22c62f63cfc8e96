"""Checkpoints: what saving a 2,000-file project costs the turn, first and unchanged.

A project of 2,000 small files (100 folders of 20, 1–4 KB each, plus an ignored build folder) is saved
by `CheckpointStore.take`, as the agent does before its first change of a turn. `first` is a fresh
shadow repository (every file read and stored); `unchanged` is the common case (git's stat cache:
nothing is read, no checkpoint made); `one file changed` stores one blob and a commit. Baselines,
measured in the same run on the same tree: copying the project (`shutil.copytree`), and `git status`
of the project as its own repository.
"""

from __future__ import annotations

import random
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from bench.common import Figure, Options, median, temp_home

FILES = 2000
FOLDERS = 100
FIRST_TARGET_MS = 2000.0
UNCHANGED_TARGET_MS = 150.0


def make_project(root: Path) -> Path:
    project = root / "project"
    rng = random.Random(7)
    for folder in range(FOLDERS):
        where = project / f"pkg{folder:03d}"
        where.mkdir(parents=True)
        for number in range(FILES // FOLDERS):
            lines = rng.randint(20, 80)
            text = "".join(
                f"line {i} of file {number} in {folder}: {rng.random():.12f}\n" for i in range(lines)
            )
            (where / f"module_{number:02d}.py").write_text(text)
    (project / ".gitignore").write_text("build/\n")
    (project / "build").mkdir()
    for number in range(200):
        (project / "build" / f"out{number}.o").write_bytes(b"\0" * 4096)
    return project


def timed_ms(fn: object) -> float:
    start = time.perf_counter()
    fn()  # type: ignore[operator]
    return (time.perf_counter() - start) * 1000


def run(options: Options) -> list[Figure]:
    from engine.checkpoints.store import CheckpointStore
    from engine.config import load_config
    from engine.home import Home

    runs = 3 if options.quick else 7
    with tempfile.TemporaryDirectory(prefix="hws-bench-ckpt-") as scratch:
        project = make_project(Path(scratch))
        first, unchanged, changed, copies = [], [], [], []
        for run_number in range(runs):
            with temp_home() as root:
                home = Home(root).ensure()
                store = CheckpointStore(home, load_config(home.root), project)
                first.append(timed_ms(lambda s=store: s.take("bench first")))
                for _ in range(3):
                    unchanged.append(timed_ms(lambda s=store: s.take("bench unchanged")))
                target = project / "pkg000" / "module_00.py"
                target.write_text(target.read_text() + f"# run {run_number}\n")
                taken = []
                changed.append(timed_ms(lambda s=store, t=taken: t.append(s.take("bench one file"))))
                assert taken[0].checkpoint is not None and not taken[0].unchanged
            copy = Path(scratch) / f"copy{run_number}"
            copies.append(timed_ms(lambda c=copy: shutil.copytree(project, c, symlinks=True)))
            shutil.rmtree(copy)
        subprocess.run(["git", "init", "-q"], cwd=project, check=True)
        subprocess.run(["git", "add", "-A"], cwd=project, check=True)
        statuses = [
            timed_ms(
                lambda: subprocess.run(["git", "status", "--porcelain"], cwd=project, capture_output=True)
            )
            for _ in range(runs * 3)
        ]
    first_ms, unchanged_ms = median(first), median(unchanged)
    return [
        Figure(
            f"first checkpoint, {FILES:,} files",
            first_ms,
            "ms",
            target=f"<= {FIRST_TARGET_MS:,.0f} ms",
            baseline=f"copytree {median(copies):,.0f} ms",
            note=f"median of {runs}",
            met=first_ms <= FIRST_TARGET_MS,
        ),
        Figure(
            "checkpoint of an unchanged project",
            unchanged_ms,
            "ms",
            target=f"<= {UNCHANGED_TARGET_MS:,.0f} ms",
            baseline=f"git status {median(statuses):,.0f} ms",
            note=f"median of {len(unchanged)}",
            met=unchanged_ms <= UNCHANGED_TARGET_MS,
        ),
        Figure(
            "checkpoint after one file changed",
            median(changed),
            "ms",
            note=f"median of {runs}",
        ),
    ]
