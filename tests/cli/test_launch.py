"""`hws` with no subcommand opens the workstation; without a terminal it says so instead of hanging."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_hws(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tui.main", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
        env={"PATH": "/usr/bin:/bin", "HOME": str(home.parent), "HERMES_HOME": str(home)},
    )


def test_without_a_terminal_hws_explains_and_exits_2(tmp_path: Path) -> None:
    done = run_hws("--home", str(tmp_path / "other"), home=tmp_path / "home")
    assert done.returncode == 2
    assert "needs a terminal" in done.stderr and "Traceback" not in done.stderr
    assert (tmp_path / "other" / "SOUL.md").exists()  # --home was used, and created
    assert not (tmp_path / "home").exists()


def test_a_broken_config_is_one_sentence_and_exit_2(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.yaml").write_text("tui:\n  fold_below_columns: wide\n", encoding="utf-8")
    done = run_hws(home=home)
    assert done.returncode == 2
    assert "tui.fold_below_columns" in done.stderr and "line 2" in done.stderr
    assert "Traceback" not in done.stderr


def test_subcommands_still_go_to_the_headless_cli(tmp_path: Path) -> None:
    done = run_hws("config", "--defaults", home=tmp_path / "home")
    assert done.returncode == 0
    assert "tui.fold_below_columns = 110" in done.stdout


def test_hws_help_lists_every_option_hws_accepts(tmp_path: Path) -> None:
    """`hws --help` left out --scripted, --resume and --version, which only the workstation's parser knew."""
    from engine.cli import build_parser as commands_parser
    from tui.launch import build_parser as workstation_parser

    done = run_hws("--help", home=tmp_path / "home")
    assert done.returncode == 0, done.stderr
    shown: set[str] = set()
    for line in done.stdout.splitlines():
        column = re.match(r"^  ((?:-{1,2}[\w-]+(?: [A-Z|_]+)?(?:, )?)+)(?:\s|$)", line)
        if column:
            shown.update(re.findall(r"-{1,2}[\w-]+", column.group(1)))
    accepted = {
        option
        for parser in (workstation_parser(), commands_parser())
        for action in parser._actions
        for option in action.option_strings
    }
    assert {"--scripted", "--scenario", "--resume", "--version", "--home"} <= accepted
    assert shown == accepted, (
        f"accepted but not shown: {accepted - shown}; shown but not accepted: {shown - accepted}"
    )
