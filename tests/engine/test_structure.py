"""The shape of the house, checked on the source: short functions, no mixins, few loose engine modules."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PRODUCT = ("engine", "tui", "widgets", "themes")
LONGEST_FUNCTION = 80  # lines, decorators aside
MOST_LOOSE_ENGINE_MODULES = 12


def product_files() -> list[Path]:
    return sorted(p for package in PRODUCT for p in (ROOT / package).rglob("*.py"))


def parsed(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def test_no_product_function_is_longer_than_80_lines() -> None:
    long = []
    for path in product_files():
        for node in ast.walk(parsed(path)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > LONGEST_FUNCTION:
                    long.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({lines} lines)")
    assert not long, "functions to split:\n" + "\n".join(long)


def test_no_class_is_assembled_from_mixins() -> None:
    mixed = []
    for path in product_files():
        for node in ast.walk(parsed(path)):
            if isinstance(node, ast.ClassDef):
                if node.name.endswith("Mixin"):
                    mixed.append(f"{path.relative_to(ROOT)}: class {node.name}")
                for base in node.bases:
                    name = base.id if isinstance(base, ast.Name) else getattr(base, "attr", "")
                    if name.endswith("Mixin"):
                        mixed.append(f"{path.relative_to(ROOT)}: {node.name}({name})")
    assert not mixed, "compose instead:\n" + "\n".join(mixed)


def test_the_engine_keeps_its_modules_in_rooms() -> None:
    loose = sorted(p.name for p in (ROOT / "engine").glob("*.py") if p.name != "__init__.py")
    assert len(loose) <= MOST_LOOSE_ENGINE_MODULES, loose


def test_every_room_says_what_lives_there() -> None:
    silent = []
    for package in PRODUCT:
        for init in (ROOT / package).rglob("__init__.py"):
            if ast.get_docstring(parsed(init)) is None:
                silent.append(str(init.relative_to(ROOT)))
    assert not silent, "folders without a docstring:\n" + "\n".join(silent)
