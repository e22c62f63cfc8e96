"""Token counting: exact offline counts, and the vocabulary loaded once however many threads ask first."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from engine.text import tokens

ROOT = Path(__file__).resolve().parents[2]

RACE = textwrap.dedent(
    """
    import threading
    import toktok

    loads = []
    real = toktok._Tokenizer

    def counted(*args):
        loads.append(args)
        return real(*args)

    toktok._Tokenizer = counted  # every vocabulary load goes through here
    from engine.text import tokens

    go = threading.Event()
    counts = []

    def first():
        go.wait()
        counts.append(tokens.count_many(["hello world", "the navbar"]))

    threads = [threading.Thread(target=first) for _ in range(4)]
    for t in threads:
        t.start()
    go.set()
    for t in threads:
        t.join()
    print(len(loads), counts == [counts[0]] * 4)
    """
)


def test_counts_are_exact_cl100k() -> None:
    assert tokens.count("hello world") == 2
    assert tokens.count_many(["hello world", ""]) == [2, 0]
    assert tokens.count("") == 0


def test_threads_counting_first_at_once_load_the_vocabulary_once() -> None:
    """A load holds the interpreter ~100 ms; before the lock, 4 threads loaded it 2-4 times."""
    for _ in range(3):  # fresh interpreters: only the first count loads
        done = subprocess.run(
            [sys.executable, "-c", RACE], capture_output=True, text=True, cwd=ROOT, timeout=60, check=False
        )
        assert done.stdout.split() == ["1", "True"], done.stdout + done.stderr
