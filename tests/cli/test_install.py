"""`pip install .` (what pipx and uv tool install do) gives a working `hws`, its data files included."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_hws_version_names_the_package() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "tui.main", "--version"],
        capture_output=True, text=True, timeout=60, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 0 and done.stdout.startswith("hws ")


@pytest.mark.slow
def test_a_non_editable_install_runs_version_doctor_and_the_headless_demo(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    pip = subprocess.run(
        [str(venv / "bin" / "pip"), "install", "-q", str(ROOT)], capture_output=True, text=True, timeout=900
    )
    assert pip.returncode == 0, pip.stderr[-3000:]
    hws = str(venv / "bin" / "hws")
    home = tmp_path / "home"
    home.mkdir(mode=0o700)  # a new, empty home
    env = {**os.environ, "HERMES_HOME": str(home)}
    env.pop("PYTHONPATH", None)
    outside = tmp_path  # not the checkout: only the installed package can answer
    version = subprocess.run([hws, "--version"], capture_output=True, text=True, env=env, cwd=outside)
    assert version.returncode == 0 and version.stdout.strip() == "hws 0.1.0"
    doctor = subprocess.run([hws, "doctor"], capture_output=True, text=True, env=env, cwd=outside)
    assert "no model is configured" in doctor.stdout and doctor.returncode in (0, 1)
    demo = subprocess.run(
        [hws, "demo", "--headless"], capture_output=True, text=True, env=env, cwd=outside, timeout=600
    )
    assert demo.returncode == 0, demo.stderr[-3000:]
    assert "✓ memories/USER.md contains 'hates light themes'" in demo.stdout
