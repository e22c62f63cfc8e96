"""The workstation's threads import the engine at the same moment at start; none gets a half-made module.

No engine package's `__init__` imports its own submodules (each name has one import path, its
submodule's); these tests race every engine module's first import across threads in fresh
interpreters, and check that no `__init__` imports a submodule back.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import engine

ROOT = Path(__file__).resolve().parents[2]

RACE = textwrap.dedent(
    """
    import importlib, pkgutil, random, sys, threading
    import engine

    names = [m.name for m in pkgutil.walk_packages(engine.__path__, "engine.") if "__main__" not in m.name]
    names += [n.rsplit(".", 1)[0] for n in names if "." in n]  # packages raced against their own modules
    random.Random(int(sys.argv[1])).shuffle(names)
    errors, go = [], threading.Event()

    def first(name):
        go.wait()
        try:
            importlib.import_module(name)
        except Exception as exc:
            errors.append(f"{name}: {exc!r}")

    threads = [threading.Thread(target=first, args=(n,)) for n in names]
    for t in threads:
        t.start()
    go.set()
    for t in threads:
        t.join()
    print("ERRORS" if errors else "OK", *errors[:3])
    """
)


def test_threads_importing_every_engine_module_at_once_all_get_them_whole() -> None:
    # An __init__ importing its submodules failed this in 20 of 20 runs; the race is on the first import.
    for seed in range(3):
        done = subprocess.run(
            [sys.executable, "-c", RACE, str(seed)],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=120,
            check=False,
        )
        assert done.stdout.startswith("OK"), done.stdout + done.stderr


PACKAGES = sorted(m.name for m in pkgutil.walk_packages(engine.__path__, "engine.") if m.ispkg)


@pytest.mark.parametrize("package", PACKAGES)
def test_a_package_imports_none_of_its_submodules(package: str) -> None:
    # Each name has one import path, its submodule's; an __init__ importing one would race (above).
    tree = ast.parse(Path(importlib.import_module(package).__file__ or "").read_text(encoding="utf-8"))
    eager = [
        node.module
        for node in tree.body  # a function may import one when it runs
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(package + ".")
    ]
    assert not eager, f"{package}/__init__ imports {eager}: import them from their submodules instead"
