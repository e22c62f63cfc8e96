"""The workstation's threads import the engine at the same moment at start; none gets a half-made module.

Every engine package names its exports lazily (engine/lazy_names.py); these tests race every engine
module's first import across threads in fresh interpreters, and check that what each package tells
type checkers matches what it serves at run time.
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

ROOT = Path(__file__).resolve().parent.parent

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


def typed_names(package: str) -> dict[str, str]:
    """Name -> submodule, as the package's `if TYPE_CHECKING:` imports say."""
    tree = ast.parse(Path(importlib.import_module(package).__file__ or "").read_text(encoding="utf-8"))
    found: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for stmt in node.body:
                if isinstance(stmt, ast.ImportFrom) and (stmt.module or "").startswith(package + "."):
                    found.update({a.asname or a.name: stmt.module or "" for a in stmt.names})
    return found


@pytest.mark.parametrize("package", PACKAGES)
def test_a_package_imports_no_submodule_and_serves_what_it_declares(package: str) -> None:
    tree = ast.parse(Path(importlib.import_module(package).__file__ or "").read_text(encoding="utf-8"))
    eager = [
        n.module
        for n in tree.body
        if isinstance(n, ast.ImportFrom) and (n.module or "").startswith(package + ".")
    ]
    assert not eager, f"{package}/__init__ imports {eager} at once: name them in lazy_names instead"
    module = importlib.import_module(package)
    submodules = {m.name for m in pkgutil.iter_modules(module.__path__)}
    for name, home in typed_names(package).items():
        assert name not in submodules, f"{package}.{name} is both a name and a submodule"
        assert getattr(module, name) is getattr(importlib.import_module(home), name)
    lazy = {n for n in dir(module) if not n.startswith("_")} - set(vars(module))
    assert lazy <= set(typed_names(package)), f"{package} serves {lazy - set(typed_names(package))} untyped"
