"""The workstation's threads import the engine at the same moment at start; none gets a half-made module."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

RACE = textwrap.dedent(
    """
    import threading
    from tui.engine_imports import load_engine

    errors = []
    go = threading.Event()

    def first(what):
        go.wait()
        try:
            load_engine()
            if what == 0:
                from engine.sessions.session_search import RECAP_INSTRUCTIONS  # noqa: F401
            elif what == 1:
                from engine.sessions.store import SessionStore  # noqa: F401
            else:
                from engine.sessions import SESSION_SEARCH_SCHEMA  # noqa: F401
        except Exception as exc:
            errors.append(repr(exc))

    threads = [threading.Thread(target=first, args=(n % 3,)) for n in range(9)]
    for t in threads:
        t.start()
    go.set()
    for t in threads:
        t.join()
    print("ERRORS" if errors else "OK", *errors)
    """
)


def test_threads_importing_the_session_package_at_once_all_get_it_whole() -> None:
    for _ in range(4):  # fresh interpreters: the race is on the first import only
        done = subprocess.run(
            [sys.executable, "-c", RACE], capture_output=True, text=True, cwd=ROOT, timeout=60, check=False
        )
        assert done.stdout.startswith("OK"), done.stdout + done.stderr
