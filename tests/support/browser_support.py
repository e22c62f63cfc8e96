"""A real headless Chromium, driven over the Chrome DevTools Protocol with aiohttp's WebSocket client.

Debian's `chromium` package; nothing is downloaded. Each browser gets a new empty profile and its
own process group, which is killed when it closes.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import aiohttp

BINARIES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-features=HttpsUpgrades",  # plain http to a test name stays plain http
    "--window-size=1200,800",
    "--remote-debugging-port=0",  # Chromium picks a port and writes it to DevToolsActivePort
)
START_TIMEOUT = 30.0


def find_chromium() -> str | None:
    for name in BINARIES:
        found = shutil.which(name)
        if found:
            return found
    return None


class Chromium:
    """One headless browser with one page; `events` holds every DevTools event the page sent."""

    def __init__(self, binary: str, profile: Path, *flags: str) -> None:
        self.binary, self.profile, self.flags = binary, profile, flags
        self.events: list[dict[str, Any]] = []
        self._ids = itertools.count(1)
        self._waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._process: subprocess.Popen[bytes] | None = None
        self._session: aiohttp.ClientSession | None = None
        self._ws: aiohttp.ClientWebSocketResponse | None = None
        self._reader: asyncio.Task[None] | None = None

    async def __aenter__(self) -> Chromium:
        self.profile.mkdir(parents=True, exist_ok=True)
        self._process = subprocess.Popen(
            [self.binary, *FLAGS, *self.flags, f"--user-data-dir={self.profile}", "about:blank"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        port = await self._devtools_port()
        self._session = aiohttp.ClientSession()
        async with self._session.get(f"http://127.0.0.1:{port}/json/list") as listing:
            targets = await listing.json()
        page = next(target for target in targets if target["type"] == "page")
        self._ws = await self._session.ws_connect(page["webSocketDebuggerUrl"], max_msg_size=0)
        self._reader = asyncio.create_task(self._read())
        await self.call("Network.enable")
        await self.call("Page.enable")
        return self

    async def __aexit__(self, *_: object) -> None:
        if self._reader is not None:
            self._reader.cancel()
        if self._ws is not None:
            await self._ws.close()
        if self._session is not None:
            await self._session.close()
        if self._process is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self._process.pid, signal.SIGKILL)
            self._process.wait(10)

    async def _devtools_port(self) -> int:
        port_file = self.profile / "DevToolsActivePort"
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            assert self._process is not None
            if self._process.poll() is not None:
                raise RuntimeError(f"Chromium exited at start (code {self._process.returncode}).")
            with contextlib.suppress(OSError, ValueError, IndexError):
                return int(port_file.read_text().split()[0])
            await asyncio.sleep(0.05)
        raise RuntimeError(f"Chromium did not open its DevTools port within {START_TIMEOUT:g} s.")

    async def _read(self) -> None:
        assert self._ws is not None
        async for message in self._ws:
            if message.type != aiohttp.WSMsgType.TEXT:
                break
            data = message.json()
            if "id" in data and data["id"] in self._waiting:
                self._waiting.pop(data["id"]).set_result(data)
            elif "method" in data:
                self.events.append(data)

    async def call(self, method: str, **params: Any) -> dict[str, Any]:
        """Send one DevTools command and return its result (an error raises)."""
        assert self._ws is not None
        call_id = next(self._ids)
        answer = asyncio.get_running_loop().create_future()
        self._waiting[call_id] = answer
        await self._ws.send_json({"id": call_id, "method": method, "params": params})
        reply = await asyncio.wait_for(answer, 30)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        result: dict[str, Any] = reply.get("result", {})
        return result

    async def evaluate(self, expression: str) -> Any:
        result = await self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        return result["result"].get("value")

    def named(self, method: str) -> list[dict[str, Any]]:
        """The parameters of every event of this kind so far."""
        return [event["params"] for event in self.events if event["method"] == method]

    async def until(self, check: Any, timeout: float, what: str) -> Any:
        """Poll `check()` (sync or async) until it returns something true; fail saying `what`."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = check()
            if asyncio.iscoroutine(value):
                value = await value
            if value:
                return value
            await asyncio.sleep(0.1)
        raise AssertionError(f"within {timeout:g} s: {what}")
