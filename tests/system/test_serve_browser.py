"""The tab `hws serve` prints works in a real browser, and the same browser on a hostile page or a
rebound name gets nothing: headless Chromium (Debian's `chromium`) over the DevTools protocol."""

from __future__ import annotations

import base64
import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from tests.support.browser_support import Chromium, find_chromium
from tests.support.serve_support import Served, free_port, token_of, workstations_of

pytest.importorskip("textual_serve")
CHROMIUM = find_chromium()
pytestmark = pytest.mark.skipif(
    CHROMIUM is None and not os.environ.get("CI"),
    reason="Chromium is not installed (apt-get install chromium); CI installs it and runs this test",
)
ANSI = re.compile(r"\x1b\[[0-9;?$]*[A-Za-z]")
# Bright pixels on xterm's text canvas: text drawn on the dark page (an empty terminal has none).
PAINTED = """(() => {
  const canvas = document.querySelector("canvas.xterm-text-layer");
  const context = canvas && canvas.getContext("2d");
  if (!context) return 0;
  const pixels = context.getImageData(0, 0, canvas.width, canvas.height).data;
  let bright = 0;
  for (let i = 0; i < pixels.length; i += 4) if (pixels[i] + pixels[i + 1] + pixels[i + 2] > 300) bright++;
  return bright;
})()"""
# Opens each target and, where one opens, types "y" (the approve key) into the workstation.
HOSTILE_PAGE = """<!doctype html><script>
const targets = TARGETS;
let opened = 0, closed = 0;
for (const target of targets) {
  const ws = new WebSocket(target);
  ws.onopen = () => { opened++; document.title = "opened"; ws.send(JSON.stringify(["stdin", "y"])); };
  ws.onclose = () => { closed++; if (!opened && closed === targets.length) document.title = "refused"; };
}
</script>"""


def received_text(browser: Chromium, ws_prefix: str) -> str:
    """What the app sent the page over its WebSocket, escape sequences removed."""
    sockets = {
        s["requestId"] for s in browser.named("Network.webSocketCreated") if s["url"].startswith(ws_prefix)
    }
    chunks = []
    for frame in browser.named("Network.webSocketFrameReceived"):
        if frame["requestId"] in sockets:
            payload = frame["response"]["payloadData"]
            binary = frame["response"]["opcode"] == 2
            chunks.append(base64.b64decode(payload).decode(errors="replace") if binary else payload)
    return ANSI.sub("", "".join(chunks))


def handshake(browser: Chromium, ws_prefix: str) -> int | None:
    """The HTTP status the page's WebSocket upgrade got (101 when it opened)."""
    sockets = {
        s["requestId"] for s in browser.named("Network.webSocketCreated") if s["url"].startswith(ws_prefix)
    }
    for answer in browser.named("Network.webSocketHandshakeResponseReceived"):
        if answer["requestId"] in sockets:
            status: int = answer["response"]["status"]
            return status
    return None


def document_status(browser: Chromium, url: str) -> int | None:
    for response in browser.named("Network.responseReceived"):
        if response["type"] == "Document" and response["response"]["url"] == url:
            status: int = response["response"]["status"]
            return status
    return None


async def hostile_site(page: str) -> tuple[web.AppRunner, int]:
    """Another site on this machine (a different port is a different origin) serving `page`."""

    async def index(_: web.Request) -> web.Response:
        return web.Response(text=page, content_type="text/html")

    app = web.Application()
    app.router.add_get("/", index)
    runner = web.AppRunner(app)
    await runner.setup()
    port = free_port()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    return runner, port


async def test_the_printed_url_runs_the_workstation_in_chromium_and_hostile_pages_get_nothing(
    hermes_home: Path, tmp_path: Path
) -> None:
    if CHROMIUM is None:
        pytest.fail("CI must install Chromium for this test: apt-get install -y chromium")
    served = Served(hermes_home, "--port", str(port := free_port()))
    runner: web.AppRunner | None = None
    try:
        url = served.wait_ready()
        token = token_of(url)
        ws_prefix = f"ws://127.0.0.1:{port}/ws"
        # A rebound name: evil.test resolves to 127.0.0.1, as an attacker's DNS would make it.
        rules = "--host-resolver-rules=MAP evil.test 127.0.0.1"
        async with Chromium(CHROMIUM, tmp_path / "profile", rules) as browser:
            await browser.call("Page.navigate", url=url)
            await browser.until(lambda: handshake(browser, ws_prefix), 20, "the tab's WebSocket answered")
            assert handshake(browser, f"{ws_prefix}/{token}?") == 101, "the tab's WebSocket opened"
            await browser.until(
                lambda: "palette" in received_text(browser, ws_prefix),
                30,
                "the workstation drew its status bar",
            )
            painted = await browser.until(lambda: browser.evaluate(PAINTED), 20, "xterm painted text")
            classes = await browser.evaluate("document.body.className")
            assert painted > 2000 and "-first-byte" in classes, (painted, classes)
            legitimate = set(workstations_of(hermes_home))
            assert legitimate, "the tab runs a workstation"

            # Another site on this machine is same-site for cookies (ports do not count), so the
            # browser sends the token's cookie along; it even knows the token. Origin stops it.
            browser.events.clear()
            targets = [f"{ws_prefix}?width=80&height=24", f"{ws_prefix}/{token}?width=80&height=24"]
            runner, other = await hostile_site(HOSTILE_PAGE.replace("TARGETS", json.dumps(targets)))
            await browser.call("Page.navigate", url=f"http://127.0.0.1:{other}/")
            title = await browser.until(
                lambda: _title_once_settled(browser), 20, "the hostile page's WebSockets settled"
            )
            assert title == "refused" and handshake(browser, ws_prefix) in (None, 403)
            assert len(browser.named("Network.webSocketCreated")) == 2, "the hostile page tried both"

            browser.events.clear()
            rebound = f"http://evil.test:{port}/?token={token}"
            await browser.call("Page.navigate", url=rebound)
            await browser.until(lambda: document_status(browser, rebound), 20, "the rebound page answered")
            assert document_status(browser, rebound) == 403
            assert set(workstations_of(hermes_home)) <= legitimate, "no hostile page started a workstation"
    finally:
        if runner is not None:
            await runner.cleanup()
        code, _ = served.stop()
    assert code == 0 and workstations_of(hermes_home) == []


async def _title_once_settled(browser: Chromium) -> Any:
    title = await browser.evaluate("document.title")
    return title if title in ("opened", "refused") else None
