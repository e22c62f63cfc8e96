"""`hws serve`: the workstation in a browser tab, on loopback only unless asked, and a stop that
leaves no app process behind (textual-serve's own children otherwise linger)."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine.serve import is_loopback, port_free, processes_with_token

ROOT = Path(__file__).resolve().parent.parent
aiohttp = pytest.importorskip("aiohttp")
pytest.importorskip("textual_serve")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def workstations_of(home: Path) -> list[int]:
    """PIDs of workstation processes running on this home (by their command line)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                argv = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"tui.main" in argv and str(home).encode() in argv:
                found.append(int(entry.name))
    return found


class Served:
    """`hws serve` as a real subprocess; its first stdout line says where it listens."""

    def __init__(self, home: Path, *args: str) -> None:
        env = {**os.environ, "HERMES_HOME": str(home), "PYTHONPATH": str(ROOT)}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tui.main", "serve", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            env=env,
            text=True,
        )

    def wait_ready(self) -> str:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        assert line.startswith("Serving the workstation on "), line + self.process.stderr.read()
        return line.split(" on ", 1)[1].split(" ", 1)[0]

    def stop(self, how: int = signal.SIGINT) -> tuple[int, str]:
        if self.process.poll() is None:
            self.process.send_signal(how)
        try:
            code = self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            raise
        return code, self.process.stderr.read() if self.process.stderr else ""


async def open_tab(url: str, wanted_bytes: int = 2000, timeout: float = 20.0) -> int:
    """Connect as a browser tab would, and read the app's first screen (bounded in bytes and time)."""
    got = 0
    deadline = time.monotonic() + timeout
    async with (
        aiohttp.ClientSession() as session,
        session.ws_connect(f"{url}/ws?width=100&height=30") as ws,
    ):
        while got < wanted_bytes and time.monotonic() < deadline:
            try:
                message = await asyncio.wait_for(ws.receive(), max(0.1, deadline - time.monotonic()))
            except TimeoutError:
                break
            if message.type not in (aiohttp.WSMsgType.BINARY, aiohttp.WSMsgType.TEXT):
                break
            got += len(message.data)
    return got


def test_a_page_loads_a_tab_starts_a_workstation_and_stopping_leaves_none(hermes_home: Path) -> None:
    port = free_port()
    served = Served(hermes_home, "--port", str(port))
    try:
        url = served.wait_ready()
        assert url == f"http://127.0.0.1:{port}"

        async def visit() -> tuple[int, str, int, list[int]]:
            async with aiohttp.ClientSession() as session, session.get(url + "/") as page:
                html = await page.text()
                status = page.status
            # Keep one tab open while the server is stopped: its workstation must not outlive it.
            session = aiohttp.ClientSession()
            ws = await session.ws_connect(f"{url}/ws?width=100&height=30")
            got = 0
            deadline = time.monotonic() + 20
            while got < 2000 and time.monotonic() < deadline:
                message = await asyncio.wait_for(ws.receive(), 20)
                if message.type not in (aiohttp.WSMsgType.BINARY, aiohttp.WSMsgType.TEXT):
                    break
                got += len(message.data)
            running = workstations_of(hermes_home)
            served.stop()
            await session.close()
            return status, html, got, running

        status, html, got, running = asyncio.run(visit())
    finally:
        if served.process.poll() is None:
            served.stop(signal.SIGKILL)
    assert status == 200 and "textual.js" in html and f"ws://127.0.0.1:{port}/ws" in html
    assert got >= 2000, "the workstation drew its first screen into the tab"
    assert running, "a workstation process ran for the tab"
    assert served.process.returncode == 0
    deadline = time.monotonic() + 5
    while workstations_of(hermes_home) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert workstations_of(hermes_home) == [], "no workstation outlives hws serve"
    assert port_free("127.0.0.1", port)


def test_sigterm_stops_it_too_and_says_how_many_ended(hermes_home: Path) -> None:
    port = free_port()
    served = Served(hermes_home, "--port", str(port))
    try:
        url = served.wait_ready()
        assert asyncio.run(open_tab(url)) > 0
        asyncio.run(open_tab(url))
    finally:
        code, err = served.stop(signal.SIGTERM)
    assert code == 0 and "Stopped;" in err and "workstation process" in err
    assert workstations_of(hermes_home) == []


def test_anything_but_loopback_needs_public_and_warns(hermes_home: Path) -> None:
    env = {**os.environ, "HERMES_HOME": str(hermes_home), "PYTHONPATH": str(ROOT)}
    refused = subprocess.run(
        [sys.executable, "-m", "tui.main", "serve", "--host", "0.0.0.0", "--port", str(free_port())],
        capture_output=True, text=True, env=env, timeout=30,
    )  # fmt: skip
    assert refused.returncode == 2 and "--public" in refused.stderr and "no password" in refused.stderr
    served = Served(hermes_home, "--host", "0.0.0.0", "--public", "--port", str(free_port()))
    try:
        served.wait_ready()
    finally:
        code, err = served.stop()
    assert code == 0 and "warning: serving on 0.0.0.0 with no authentication" in err


def test_a_taken_port_is_a_sentence(hermes_home: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        served = Served(hermes_home, "--port", str(port))
        code = served.process.wait(30)  # it refuses at once, before starting anything
        err = served.process.stderr.read() if served.process.stderr else ""
    assert code == 1 and "is taken" in err and "--port" in err


def test_loopback_addresses() -> None:
    assert all(is_loopback(h) for h in ("127.0.0.1", "127.3.2.1", "::1", "[::1]", "localhost"))
    assert not any(is_loopback(h) for h in ("0.0.0.0", "::", "192.168.1.4", "example.com"))
    assert processes_with_token("no-such-token") == []
