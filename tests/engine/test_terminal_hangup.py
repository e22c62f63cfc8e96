"""A terminal window closed under `hws`: the session ends in state.db as ctrl+q ends it, and hws exits.

The terminal here is a pty whose master side the test closes, as a terminal emulator does when its
window closes: the kernel sends SIGHUP (and SIGCONT) to hws, and every write to the terminal fails.
Before, SIGHUP killed hws outright and left the session open; handled naively, the writes to the dead
terminal stalled the app for good.
"""

from __future__ import annotations

import fcntl
import os
import pty
import select
import sqlite3
import struct
import sys
import termios
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WAIT_S = 60.0


def _read_for(fd: int, seconds: float) -> bytes:
    seen = b""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            try:
                seen += os.read(fd, 65536)
            except OSError:
                break
    return seen


def _answered(db: Path) -> bool:
    if not db.exists():
        return False
    try:
        with sqlite3.connect(db) as conn:
            return bool(conn.execute("SELECT count(*) FROM messages WHERE role = 'assistant'").fetchone()[0])
    except sqlite3.Error:  # not made yet
        return False


def _exit_code(pid: int, timeout: float) -> int | None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        time.sleep(0.05)
    return None


def test_closing_the_terminal_window_ends_the_session_and_hws(tmp_path: Path) -> None:
    home = tmp_path / "home"
    pid, fd = pty.fork()
    if pid == 0:  # the child: hws on the pty, at a size a person would have
        try:
            fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
            os.environ.update(
                HOME=str(tmp_path), TERM="xterm-256color", TEXTUAL_ANIMATIONS="none", PYTHONPATH=str(ROOT)
            )
            os.environ.pop("HERMES_HOME", None)
            os.execv(sys.executable, [sys.executable, "-m", "tui.main", "--scripted", "--home", str(home)])
        finally:
            os._exit(127)
    try:
        deadline = time.monotonic() + WAIT_S
        seen = b""
        while b"Scripted model" not in seen and time.monotonic() < deadline:
            seen += _read_for(fd, 0.5)
        assert b"Scripted model" in seen, seen[-2000:]
        os.write(fd, b"hello there")
        _read_for(fd, 0.5)
        os.write(fd, b"\r")
        while not _answered(home / "state.db") and time.monotonic() < deadline:
            _read_for(fd, 0.2)
        assert _answered(home / "state.db"), "the scripted model never answered"
        _read_for(fd, 0.5)
    finally:
        os.close(fd)  # the window closes
    code = _exit_code(pid, WAIT_S)
    if code is None:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
    assert code == 0, f"hws did not end after its terminal closed (exit {code})"
    with sqlite3.connect(home / "state.db") as db:
        ended = db.execute("SELECT ended_at IS NOT NULL, end_reason FROM sessions").fetchall()
    assert ended == [(1, "user_exit")]
    errors = home / "logs" / "errors.log"
    assert "Traceback" not in (errors.read_text(encoding="utf-8") if errors.exists() else "")
