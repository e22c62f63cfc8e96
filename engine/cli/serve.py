"""`hws serve`'s process keeper: the web server in a process group of its own, and a stop that ends
every app process it started.

textual-serve starts one app process per browser tab and, when the server stops, may leave them
running (they ignore SIGTERM and spin; see reference/stack.md §9). So the server runs in a new
session (its own process group, which its app processes inherit) with a mark in its environment,
which they inherit too. Stopping sends the server SIGINT, waits, then kills by PID every process
that still carries the mark, and finally the whole group.

The mark only finds processes; the access token (engine/cli/serve_access.py) is another value, handed
to the server on its stdin so that no workstation process, nor the commands its agent runs, sees it.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import socket
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from engine.cli.serve_access import new_token

MARK_ENV = "HWS_SERVE_MARK"
READY_TIMEOUT = 20.0  # seconds for the server to accept connections; startup imports aiohttp
POLL = 0.05


class ServeError(Exception):
    """The server could not start; one sentence saying why."""


def url_for(host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host and not host.startswith("[") else host
    return f"http://{shown}:{port}"


def port_free(host: str, port: int) -> bool:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host.strip("[]"), port))
        except OSError:
            return False
    return True


def _accepts(host: str, port: int) -> bool:
    if host in ("0.0.0.0", ""):
        target = "127.0.0.1"  # a wildcard bind is reachable on loopback
    elif host in ("::", "[::]"):
        target = "::1"
    else:
        target = host.strip("[]")
    try:
        with socket.create_connection((target, port), timeout=0.5):
            return True
    except OSError:
        return False


def processes_with_mark(mark: str) -> list[int]:
    """PIDs whose environment carries `HWS_SERVE_MARK=mark` (Linux /proc; elsewhere none are found)."""
    marker = f"{MARK_ENV}={mark}".encode()
    found = []
    proc = Path("/proc")
    if not proc.is_dir():
        return found
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            if marker in (entry / "environ").read_bytes().split(b"\0"):
                found.append(int(entry.name))
    return sorted(found)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    with contextlib.suppress(OSError):  # a zombie is dead for our purpose
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        return state != "Z"
    return True


@dataclass
class ServedWorkstation:
    """One `hws serve`: the server process, its mark, its group and its access token (None: none)."""

    home: Path
    host: str
    port: int
    stop_grace: float
    public_url: str | None = None
    access_token: str | None = field(default_factory=new_token)
    mark: str = field(default_factory=lambda: uuid.uuid4().hex)
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return self.public_url or url_for(self.host, self.port)

    @property
    def browser_url(self) -> str:
        """The address to open, with the token (as Jupyter prints it)."""
        page = self.url.rstrip("/") + "/"
        return f"{page}?token={self.access_token}" if self.access_token else page

    def app_command(self) -> str:
        """The shell command textual-serve runs for each browser tab: the workstation on this home."""
        return shlex.join([sys.executable, "-m", "tui.main", "--home", str(self.home)])

    def start(self, ready_timeout: float = READY_TIMEOUT) -> None:
        if not port_free(self.host, self.port):
            raise ServeError(
                f"{url_for(self.host, self.port)} is taken (another server listens there); "
                "choose another port with --port."
            )
        env = {**os.environ, MARK_ENV: self.mark, "HERMES_HOME": str(self.home)}
        # So `-m tui.serve` resolves from a checkout as well as from an installed package.
        source_root = str(Path(__file__).resolve().parent.parent)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (source_root, env.get("PYTHONPATH", "")) if p)
        command = [
            sys.executable, "-m", "tui.serve",
            "--host", self.host.strip("[]"), "--port", str(self.port),
            "--command", self.app_command(),
        ]  # fmt: skip
        if self.public_url:
            command += ["--url", self.public_url]
        if self.access_token is None:
            command.append("--no-token")
        self.process = subprocess.Popen(
            command,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,  # its own process group: the app processes it starts join it
        )
        assert self.process.stdin is not None
        with contextlib.suppress(BrokenPipeError):
            if self.access_token is not None:
                self.process.stdin.write(f"{self.access_token}\n".encode())
            self.process.stdin.close()
        deadline = time.monotonic() + ready_timeout
        while not _accepts(self.host, self.port):
            if self.process.poll() is not None:
                errors = (self.process.stderr.read() if self.process.stderr else b"").decode(errors="replace")
                lines = errors.strip().splitlines()
                last = lines[-1] if lines else f"exit code {self.process.returncode}"
                self.process = None
                raise ServeError(f"The web server stopped while starting: {last}")
            if time.monotonic() > deadline:
                self.stop()
                raise ServeError(f"The web server did not answer within {ready_timeout:g} s; it was stopped.")
            time.sleep(POLL)

    def app_pids(self) -> list[int]:
        """The app processes started so far (every process with the mark but the server itself)."""
        server = self.process.pid if self.process is not None else -1
        return [pid for pid in processes_with_mark(self.mark) if pid != server and pid != os.getpid()]

    def wait(self) -> int | None:
        """Block until the server exits (returns its code) — or a signal interrupts the wait."""
        assert self.process is not None
        return self.process.wait()

    def stop(self) -> int:
        """Stop the server, then every app process it started; returns how many app processes ended."""
        process = self.process
        apps = set(self.app_pids())
        if process is not None and process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                process.send_signal(signal.SIGINT)  # textual-serve's graceful exit
            try:
                process.wait(self.stop_grace)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    process.kill()
                process.wait()
        apps.update(self.app_pids())
        self._end(sorted(apps), process.pid if process is not None else None)
        if process is not None and process.stderr is not None:
            process.stderr.close()
        self.process = None
        return len(apps)

    def _end(self, pids: list[int], group: int | None) -> None:
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + min(self.stop_grace, 1.0)
        while any(_alive(pid) for pid in pids) and time.monotonic() < deadline:
            time.sleep(POLL)
        for pid in pids:
            if _alive(pid):
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)  # the apps textual-serve leaves behind ignore SIGTERM
        if group is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(group, signal.SIGKILL)
        for pid in [*self.app_pids(), *pids]:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
