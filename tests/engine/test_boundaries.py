"""The engine is a ground floor: importing all of it never pulls in the UI."""

from __future__ import annotations

import pkgutil
import subprocess
import sys
from pathlib import Path

import engine

ROOT = Path(__file__).resolve().parents[2]
UI_PACKAGES = ("textual", "tui", "widgets", "themes")


def test_importing_every_engine_module_loads_no_ui_package() -> None:
    names = [info.name for info in pkgutil.walk_packages(engine.__path__, "engine.")]
    assert "engine.config" in names and "engine.home" in names
    code = (
        "import importlib, sys\n"
        f"for name in {names!r}:\n"
        "    importlib.import_module(name)\n"
        f"bad = sorted(m for m in sys.modules if m.split('.')[0] in {UI_PACKAGES!r})\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_import_linter_contract_holds() -> None:
    lint = Path(sys.executable).with_name("lint-imports")
    out = subprocess.run([str(lint)], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr


def test_headless_command_does_not_import_textual() -> None:
    code = (
        "import sys\n"
        "from tui.main import main\n"
        "rc = main(['config', '--defaults'])\n"
        "print('TEXTUAL' if 'textual' in sys.modules else 'CLEAN', rc, file=sys.stderr)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stderr.strip().endswith("CLEAN 0")
