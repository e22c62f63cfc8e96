"""Drive `hws` in a real terminal: tmux sessions with a fixed size, keys sent, the screen captured.

with TmuxSession.start(["hws"], width=100, height=30, env={"HERMES_HOME": str(home)}) as tmux:
    tmux.wait_for("idle")
    tmux.send_keys("hello", "Enter")
    screen = tmux.capture()
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

POLL_S = 0.05
ROOT = Path(__file__).resolve().parents[2]


class TmuxTimeout(AssertionError):
    """What the screen showed when the awaited text never appeared."""


def tmux_available() -> bool:
    return shutil.which("tmux") is not None


@dataclass
class TmuxSession:
    name: str
    socket: str
    width: int
    height: int

    def _tmux(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["tmux", "-L", self.socket, *args], capture_output=True, text=True, check=check, timeout=10
        )

    @classmethod
    @contextmanager
    def start(
        cls,
        command: Sequence[str],
        *,
        width: int = 100,
        height: int = 30,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
    ) -> Iterator[TmuxSession]:
        """A detached session running `command`; killed (with its processes) on exit."""
        session = cls(f"hws-{uuid.uuid4().hex[:8]}", f"hws-test-{uuid.uuid4().hex[:8]}", width, height)
        # `hws` imports this checkout (an editable install may point at another one).
        env = {"PYTHONPATH": str(ROOT), **(env or {})}
        environment = dict(os.environ)
        environment.update(env)
        environment.setdefault("TERM", "xterm-256color")
        environment.pop("TMUX", None)
        for name in ("COLUMNS", "LINES"):  # pytest-xdist workers set 80x24; the app would size to it
            environment.pop(name, None)
        exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
        # The shell stays after the command, so its last screen (exit code, traceback) can be read.
        shell_command = f"env {exports} {shlex.join(command)}; echo '[exited '$?']'; sleep 120"
        subprocess.run(
            [
                "tmux",
                "-L",
                session.socket,
                "-f",
                "/dev/null",
                "new-session",
                "-d",
                "-s",
                session.name,
                "-x",
                str(width),
                "-y",
                str(height),
                shell_command,
            ],
            check=True,
            env=environment,
            cwd=cwd,
            timeout=10,
        )
        try:
            yield session
        finally:
            session._tmux("kill-server", check=False)

    def send_keys(self, *keys: str, literal: bool = False) -> None:
        """tmux key names (`Enter`, `C-q`, `F2`) or, with `literal`, text typed as is."""
        args = ["send-keys", "-t", self.name]
        if literal:
            args.append("-l")
        self._tmux(*args, *keys)

    def type(self, text: str) -> None:
        self.send_keys(text, literal=True)

    def capture(self) -> str:
        """The visible screen as plain text, one line per row."""
        return self._tmux("capture-pane", "-p", "-t", self.name).stdout

    def _screen_or_last(self, last: str, text: str) -> str:
        try:
            return self.capture()
        except subprocess.CalledProcessError as exc:  # the command ended long ago and its session with it
            raise TmuxTimeout(
                f"waiting for {text!r}: the tmux session is gone ({exc.stderr.strip()}); "
                f"the last screen was:\n{last}"
            ) from None

    def wait_for(self, text: str, timeout: float = 10.0) -> str:
        """Wait until `text` is on the screen; returns the screen, or fails showing the last one."""
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self._screen_or_last(screen, text)
            if text in screen:
                return screen
            time.sleep(POLL_S)
        raise TmuxTimeout(f"{text!r} did not appear within {timeout}s; the screen was:\n{screen}")

    def wait_until_gone(self, text: str, timeout: float = 10.0) -> str:
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self._screen_or_last(screen, text)
            if text not in screen:
                return screen
            time.sleep(POLL_S)
        raise TmuxTimeout(f"{text!r} was still on the screen after {timeout}s:\n{screen}")


# A loaded 2-core machine builds the agent and answers slowly; the tests are about what the screen shows.
SCRIPTED_WAIT_S = 60.0


def status_line(screen: str, model: str = "scripted") -> str:
    """The status bar: the last line that starts with the model's name."""
    return next(line for line in reversed(screen.splitlines()) if line.startswith(f" {model} │"))


def wait_idle(hws: TmuxSession, model: str = "scripted", timeout: float = SCRIPTED_WAIT_S) -> str:
    """Poll until the status bar says idle again (a turn ended); the screen then."""
    deadline = time.monotonic() + timeout
    screen = hws.capture()
    while time.monotonic() < deadline:
        screen = hws.capture()
        if f" {model} │" in screen and "│ idle" in status_line(screen, model):
            return screen
        time.sleep(0.1)
    raise AssertionError(f"the status bar never went back to idle:\n{screen}")
