"""`hws serve` as a real subprocess, and a tab opened on it the way textual.js opens one."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import aiohttp

ROOT = Path(__file__).resolve().parents[2]


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


def origin_of(url: str) -> str:
    """`http://127.0.0.1:PORT` from the printed URL."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def token_of(url: str) -> str:
    return parse_qs(urlsplit(url).query)["token"][0]


class Served:
    """`hws serve` as a real subprocess; its first stdout line says where to open it."""

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
        """The URL it printed (with `?token=` unless started with --no-token)."""
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


async def read_tab(ws: aiohttp.ClientWebSocketResponse, wanted_bytes: int, timeout: float) -> int:
    """Bytes the app sent over an open tab, until `wanted_bytes` or `timeout` seconds."""
    got = 0
    deadline = time.monotonic() + timeout
    while got < wanted_bytes and time.monotonic() < deadline:
        try:
            message = await asyncio.wait_for(ws.receive(), max(0.1, deadline - time.monotonic()))
        except TimeoutError:
            break
        if message.type not in (aiohttp.WSMsgType.BINARY, aiohttp.WSMsgType.TEXT):
            break
        got += len(message.data)
    return got


async def open_tab(ws_url: str, wanted_bytes: int = 2000, timeout: float = 20.0, **options: Any) -> int:
    """Connect as a browser tab would, and read the app's first screen (bounded in bytes and time)."""
    async with aiohttp.ClientSession() as session, session.ws_connect(ws_url, **options) as ws:
        return await read_tab(ws, wanted_bytes, timeout)
