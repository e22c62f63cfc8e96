"""A package's names, each imported from its submodule on first use (PEP 562 module `__getattr__`).

A package `__init__` that imports its submodules eagerly is a cycle through the package: importing
`pkg.sub` runs `pkg/__init__`, which imports `pkg.sub` back. In one thread Python sorts that out;
in two threads importing the package and a submodule for the first time at the same moment (the
workstation starts several) each can hold the lock the other waits for, and one of them gets a
half-made module ("cannot import name ... from partially initialized module"). So the engine's
package `__init__` files import nothing: they name where each of their names lives.

    __getattr__, __dir__ = lazy_names(__name__, {"errors": "StoreError StoreLocked", "store": "SessionStore"})
    if TYPE_CHECKING:  # for type checkers and editors; tests/test_engine_imports checks both agree
        from pkg.errors import StoreError as StoreError
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any

Hooks = tuple[Callable[[str], Any], Callable[[], list[str]]]


def lazy_names(package: str, homes: Mapping[str, str]) -> Hooks:
    """`__getattr__` and `__dir__` for `package`, whose names live in the submodules `homes` lists."""
    where = {name: f"{package}.{module}" for module, names in homes.items() for name in names.split()}

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)  # found at once from now on
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[package]), *where})

    return __getattr__, __dir__
