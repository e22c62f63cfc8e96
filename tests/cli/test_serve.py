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

from engine.cli.serve import port_free, processes_with_mark
from engine.cli.serve_access import is_loopback
from tests.support.serve_support import (
    ROOT,
    Served,
    free_port,
    open_tab,
    origin_of,
    token_of,
    workstations_of,
)

aiohttp = pytest.importorskip("aiohttp")
pytest.importorskip("textual_serve")


def test_a_page_loads_a_tab_starts_a_workstation_and_stopping_leaves_none(hermes_home: Path) -> None:
    port = free_port()
    served = Served(hermes_home, "--port", str(port))
    try:
        url = served.wait_ready()
        token = token_of(url)
        assert url == f"http://127.0.0.1:{port}/?token={token}"

        async def visit() -> tuple[int, str, int, list[int]]:
            async with aiohttp.ClientSession() as session, session.get(url) as page:
                html = await page.text()
                status = page.status
            # Keep one tab open while the server is stopped: its workstation must not outlive it.
            session = aiohttp.ClientSession()
            ws = await session.ws_connect(f"ws://127.0.0.1:{port}/ws/{token}?width=100&height=30")
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
    assert status == 200 and "textual.js" in html and f"ws://127.0.0.1:{port}/ws/{token}" in html
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
        tab = f"{origin_of(url)}/ws/{token_of(url)}?width=100&height=30"
        assert asyncio.run(open_tab(tab)) > 0
        asyncio.run(open_tab(tab))
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
    assert refused.returncode == 2 and "--public" in refused.stderr and "not a loopback" in refused.stderr
    served = Served(hermes_home, "--host", "0.0.0.0", "--public", "--port", str(free_port()))
    try:
        url = served.wait_ready()
    finally:
        code, err = served.stop()
    assert code == 0 and "warning: serving on 0.0.0.0 over plain http" in err
    assert "?token=" in url, "a public address still needs the token"


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
    assert processes_with_mark("no-such-mark") == []
