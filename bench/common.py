"""What every benchmark shares: a figure row, a timer, and a throwaway home."""

from __future__ import annotations

import contextlib
import os
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any


@dataclass
class Options:
    quick: bool = False
    large: bool = False


@dataclass
class Figure:
    """One printed figure: what, how much, the aim, and a baseline measured in the same run."""

    name: str
    value: float
    unit: str
    target: str = ""
    baseline: str = ""
    note: str = ""
    met: bool | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def time_ms(fn: Callable[[], object], runs: int, warmup: int = 3) -> list[float]:
    """Wall time of each call of `fn` in milliseconds, after a few warm-up calls."""
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def median(samples: list[float]) -> float:
    return statistics.median(samples)


@contextlib.contextmanager
def temp_home() -> Iterator[Path]:
    """A fresh `$HERMES_HOME` for the duration of a benchmark; the real one is never touched."""
    with tempfile.TemporaryDirectory(prefix="hws-bench-") as root:
        old = os.environ.get("HERMES_HOME")
        os.environ["HERMES_HOME"] = root
        try:
            yield Path(root)
        finally:
            if old is None:
                os.environ.pop("HERMES_HOME", None)
            else:
                os.environ["HERMES_HOME"] = old
