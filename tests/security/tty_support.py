"""`hws run` with a person at a terminal: stdin and stderr on a pseudo-terminal, so it asks and waits.

The test reads what `hws run` writes to the terminal, waits for a question, may change files while
the question is open (as a person, or another program, could), and types the answer.
"""

from __future__ import annotations

import contextlib
import os
import pty
import select
import subprocess
import sys
import termios
import time
from pathlib import Path

from tests.support.fault_support import HWS_TIMEOUT, hws_env

QUESTION = "Allow `"


class TtyRun:
    """One `hws run ARGS` whose stdin and stderr are a terminal; stdout is a pipe."""

    def __init__(self, *args: str, home: Path, cwd: Path) -> None:
        master, slave = pty.openpty()
        attrs = termios.tcgetattr(slave)
        attrs[3] &= ~termios.ECHO  # the typed answers are not echoed into what the test reads
        termios.tcsetattr(slave, termios.TCSANOW, attrs)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tui.main", "run", *args],
            stdin=slave,
            stderr=slave,
            stdout=subprocess.PIPE,
            env=hws_env(home),
            cwd=cwd,
        )
        os.close(slave)
        self.master = master
        self.screen = ""  # everything written to the terminal so far
        self.read_to = 0  # how far `wait_for` has consumed

    def _read_some(self, deadline: float) -> bool:
        ready, _, _ = select.select([self.master], [], [], max(deadline - time.monotonic(), 0))
        if not ready:
            return True
        try:
            chunk = os.read(self.master, 65536)
        except OSError:  # EIO: the process closed the terminal
            return False
        if not chunk:
            return False
        self.screen += chunk.decode("utf-8", errors="replace").replace("\r\n", "\n")
        return True

    def wait_for(self, text: str) -> str:
        """Wait until `text` appears after what was already consumed; returns the screen up to its end."""
        deadline = time.monotonic() + HWS_TIMEOUT
        while True:
            at = self.screen.find(text, self.read_to)
            if at >= 0:
                self.read_to = at + len(text)
                return self.screen[: self.read_to]
            if time.monotonic() > deadline or not self._read_some(deadline):
                raise AssertionError(f"`{text}` never appeared; the terminal shows:\n{self.screen[-3000:]}")

    def answer(self, line: str) -> None:
        os.write(self.master, (line + "\n").encode())

    def finish(self) -> tuple[int, str, str]:
        """Exit code, stdout and the whole terminal text once the process ends."""
        deadline = time.monotonic() + HWS_TIMEOUT
        while self.proc.poll() is None or self._pending():
            if time.monotonic() > deadline:
                self.proc.kill()
                raise AssertionError(f"hws run did not end; the terminal shows:\n{self.screen[-3000:]}")
            if not self._read_some(min(deadline, time.monotonic() + 0.2)):
                break
        stdout = self.proc.stdout.read().decode("utf-8", errors="replace") if self.proc.stdout else ""
        code = self.proc.wait(timeout=HWS_TIMEOUT)
        with contextlib.suppress(OSError):
            os.close(self.master)
        return code, stdout, self.screen

    def _pending(self) -> bool:
        ready, _, _ = select.select([self.master], [], [], 0)
        return bool(ready)
