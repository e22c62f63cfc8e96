"""What the fault, fuzz and security suites share: `hws` as a real subprocess, and checks on a home."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
HWS_TIMEOUT = 90  # seconds a single `hws` subprocess may take before the test fails (never a timing claim)


def hws_env(home: Path, **extra: str) -> dict[str, str]:
    env = {**os.environ, "HERMES_HOME": str(home), "PYTHONPATH": str(ROOT), **extra}
    env.pop("PYTHONWARNINGS", None)
    return env


def hws(
    *args: str, home: Path, cwd: Path | None = None, stdin: str = "", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run `hws ARGS` to the end, as a user would (a separate process, its own interpreter)."""
    return subprocess.run(
        [sys.executable, "-m", "tui.main", *args],
        capture_output=True,
        text=True,
        env=env or hws_env(home),
        cwd=cwd or home,
        input=stdin,
        timeout=HWS_TIMEOUT,
    )


def hws_popen(*args: str, home: Path, cwd: Path, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tui.main", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        env=env or hws_env(home),
        cwd=cwd,
    )


def write_scenario(folder: Path, text: str, name: str = "scenario.yaml") -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def write_config(home: Path, **sections: dict[str, Any]) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.yaml").write_text(yaml.safe_dump(sections), encoding="utf-8")


def assert_clean_exit(done: subprocess.CompletedProcess[str], codes: tuple[int, ...] = (0, 1, 2)) -> None:
    """The command ended with a sentence, not a crash: a known exit code and no traceback."""
    assert done.returncode in codes, (done.returncode, done.stderr[-2000:])
    assert "Traceback (most recent call last)" not in done.stderr, done.stderr[-3000:]
    assert "unexpected error" not in done.stderr, done.stderr[-2000:]


def integrity(db: Path) -> str:
    """`PRAGMA integrity_check` of a database as a fresh reader sees it (the WAL included)."""
    conn = sqlite3.connect(db, timeout=30)
    try:
        return str(conn.execute("PRAGMA integrity_check").fetchone()[0])
    finally:
        conn.close()


def stored_messages(db: Path) -> list[tuple[str, str, str | None]]:
    """(session id, role, content) of every message, oldest first."""
    if not db.exists():
        return []
    conn = sqlite3.connect(db, timeout=30)
    try:
        return [tuple(r) for r in conn.execute("SELECT session_id, role, content FROM messages ORDER BY id")]
    finally:
        conn.close()


def files_containing(root: Path, needle: bytes, skip: tuple[str, ...] = (".env",)) -> list[Path]:
    """Every file under `root` whose bytes hold `needle` (the database, its WAL, logs, journal…)."""
    found = []
    for path in root.rglob("*"):
        if path.is_file() and path.name not in skip and needle in path.read_bytes():
            found.append(path)
    return found
