"""The README keeps its promises: the two commands CI and newcomers run, a configuration reference
that matches the defaults, the screenshot, and every command listed."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from engine.config_reference import END, main, reference_markdown, replace_block

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
INSTALL = "python3 -m venv .venv && .venv/bin/pip install -q -e '.[dev]' && "


def readme() -> str:
    return README.read_text(encoding="utf-8")


def test_the_configuration_reference_matches_the_defaults() -> None:
    text = readme()
    assert replace_block(text, reference_markdown()) == text, (
        "README's configuration reference differs from engine/config_schema.py: "
        "run python -m engine.config_reference --write README.md"
    )
    assert main(["--check", str(README)]) == 0


def test_a_changed_default_is_caught(tmp_path: Path) -> None:
    copy = tmp_path / "README.md"
    copy.write_text(readme().replace("| `nudge_interval` | `10` |", "| `nudge_interval` | `11` |"))
    assert main(["--check", str(copy)]) == 1
    assert main(["--write", str(copy)]) == 0 and copy.read_text() == readme()
    copy.write_text("no markers here\n")
    with pytest.raises(ValueError, match=re.escape(END)):
        main(["--check", str(copy)])


def test_the_first_command_installs_and_runs_the_demo_in_a_temporary_home() -> None:
    lines = [line for line in readme().splitlines() if line.startswith("python3 -m venv .venv")]
    assert len(lines) >= 2
    demo, tests = lines[0], lines[1]
    assert demo == INSTALL + "HERMES_HOME=$(mktemp -d) .venv/bin/hws demo"
    assert tests == INSTALL + ".venv/bin/python -m pytest -n 2 -q"


def test_ci_picks_the_test_line() -> None:
    """.ci/run evals the first line that starts with the venv command and mentions pytest."""
    found = subprocess.run(
        ["grep", "-m1", "-E", r"^python3 -m venv \.venv .*pytest", str(README)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert found.stdout.strip().endswith("-m pytest -n 2 -q")
    assert "grep -m1 -E '^python3 -m venv \\.venv .*pytest' README.md" in (ROOT / ".ci" / "run").read_text()


def test_the_screenshot_is_the_apps_own_svg_of_the_demo() -> None:
    assert "](docs/workstation.svg)" in readme()
    svg = (ROOT / "docs" / "workstation.svg").read_text(encoding="utf-8")
    assert svg.lstrip().startswith("<svg") and "terminal-" in svg, "written by Textual's save_screenshot"
    assert "USER.md" in svg and "compression" in svg.lower().replace("&#160;", " ")


def test_every_command_is_in_the_readme() -> None:
    names = sorted(
        p.stem.removesuffix("_cmd").replace("_", "-") for p in (ROOT / "engine" / "cli").glob("*_cmd.py")
    )
    missing = [name for name in names if f"`hws {name}" not in readme()]
    assert missing == []
    headings = [line for line in readme().splitlines() if line.startswith("## ")]
    for wanted in ("Your own model", "The panes", "Files under the home", "Compatibility", "Reliability",
                   "Configuration reference", "Benchmarks", "Status", "Commands"):  # fmt: skip
        assert f"## {wanted}" in headings


@pytest.mark.slow
def test_the_screenshot_script_regenerates_it(tmp_path: Path) -> None:
    out = tmp_path / "shot.svg"
    done = subprocess.run(
        [sys.executable, str(ROOT / "docs" / "screenshot.py"), str(out)],
        capture_output=True, text=True, timeout=400,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    text = out.read_text(encoding="utf-8")
    assert text.startswith("<svg") or text.lstrip().startswith("<svg")
    assert "The&#160;demo&#160;is&#160;over" in text
