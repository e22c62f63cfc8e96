"""A web page elsewhere, a rebound name or a client without the token cannot drive `hws serve`:
the real server, refused on the page and on the WebSocket upgrade, before any workstation starts."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import aiohttp
import pytest

from tests.support.serve_support import (
    ROOT,
    Served,
    free_port,
    open_tab,
    origin_of,
    token_of,
    workstations_of,
)

pytest.importorskip("textual_serve")


async def page_status(url: str, headers: dict[str, str] | None = None) -> tuple[int, str]:
    async with aiohttp.ClientSession() as session, session.get(url, headers=headers) as page:
        return page.status, await page.text()


async def upgrade_status(url: str, headers: dict[str, str] | None = None) -> int:
    """101 when the WebSocket opened, else the HTTP status it was refused with."""
    try:
        async with aiohttp.ClientSession() as session, session.ws_connect(url, headers=headers):
            return 101
    except aiohttp.WSServerHandshakeError as refused:
        return refused.status


def hostile_requests(origin: str, port: int, token: str) -> list[tuple[str, str, dict[str, str], str]]:
    """(what, path, headers, the word the refusal names): each is refused whatever else it gets right."""
    evil = f"evil.example:{port}"
    return [
        ("a hostile page's origin", f"/?token={token}", {"Origin": "http://evil.example"}, "Origin"),
        ("an opaque origin", f"/?token={token}", {"Origin": "null"}, "Origin"),
        ("a look-alike origin", f"/?token={token}", {"Origin": f"{origin}.evil.example"}, "Origin"),
        ("DNS rebinding", f"/?token={token}", {"Host": evil, "Origin": f"http://{evil}"}, "Host"),
        ("a foreign Host", f"/?token={token}", {"Host": evil}, "Host"),
        ("another port's Host", f"/?token={token}", {"Host": f"127.0.0.1:{port + 1}"}, "Host"),
        ("no token", "/", {}, "token"),
        ("a wrong token", f"/?token={token[:-2]}xy", {}, "token"),
        ("an empty token", "/?token=", {}, "token"),
        ("a cookie with a wrong token", "/", {"Cookie": f"hws_serve_token_{port}=nope"}, "token"),
    ]


async def test_hostile_origins_foreign_hosts_and_missing_tokens_are_refused(hermes_home: Path) -> None:
    port = free_port()
    served = Served(hermes_home, "--port", str(port))
    try:
        url = served.wait_ready()
        origin, token = origin_of(url), token_of(url)
        ws_base = origin.replace("http:", "ws:", 1)
        for what, path, headers, word in hostile_requests(origin, port, token):
            status, text = await page_status(origin + path, headers)
            assert (status, word in text) == (403, True), f"page, {what}: {status} {text[:80]!r}"
            ws_path = path.replace("/?", "/ws?", 1) if path != "/" else "/ws"
            assert await upgrade_status(ws_base + ws_path, headers) == 403, f"WebSocket, {what}"
        # The token in the WebSocket's path, as the page hands it on, is refused just the same.
        evil = {"Origin": "http://evil.example"}
        assert await upgrade_status(f"{ws_base}/ws/{token}?width=80&height=24", evil) == 403
        assert await upgrade_status(f"{ws_base}/ws/{token[:-1]}?width=80&height=24") == 403
        assert workstations_of(hermes_home) == [], "no refused request started a workstation"
    finally:
        code, _ = served.stop()
    assert code == 0


async def test_the_printed_url_opens_the_page_which_hands_its_token_to_the_websocket(
    hermes_home: Path,
) -> None:
    port = free_port()
    served = Served(hermes_home, "--port", str(port))
    try:
        url = served.wait_ready()
        origin, token = origin_of(url), token_of(url)
        # unsafe=True: aiohttp's jar otherwise keeps no cookie for an IP address; browsers do.
        async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as session:
            async with session.get(url, headers={"Origin": origin}) as page:
                html = await page.text()
                assert page.status == 200 and page.headers["Cache-Control"] == "no-store"
                cookie = page.cookies[f"hws_serve_token_{port}"]
                assert cookie.value == token and cookie["httponly"] and cookie["samesite"] == "Strict"
            async with session.get(origin + "/") as reload:  # the cookie opens a reload without ?token
                assert reload.status == 200
        ws_url = f"ws://127.0.0.1:{port}/ws/{token}"
        assert f'data-session-websocket-url="{ws_url}"' in html
        assert await open_tab(f"{ws_url}?width=100&height=30", origin=origin) >= 2000
        # localhost is our own name too: its page points its WebSocket at localhost.
        status, html = await page_status(f"http://localhost:{port}/?token={token}")
        assert status == 200 and f"ws://localhost:{port}/ws/{token}" in html
    finally:
        code, err = served.stop()
    assert code == 0 and "warning" not in err


async def test_no_token_opens_without_one_and_warns_but_still_checks_host_and_origin(
    hermes_home: Path,
) -> None:
    port = free_port()
    served = Served(hermes_home, "--port", str(port), "--no-token")
    try:
        url = served.wait_ready()
        assert url == f"http://127.0.0.1:{port}/"
        status, html = await page_status(url)
        assert status == 200 and f'data-session-websocket-url="ws://127.0.0.1:{port}/ws"' in html
        assert await open_tab(f"ws://127.0.0.1:{port}/ws?width=100&height=30") >= 2000
        assert (await page_status(url, {"Origin": "http://evil.example"}))[0] == 403
        assert (await page_status(url, {"Host": f"evil.example:{port}"}))[0] == 403
        ws = f"ws://127.0.0.1:{port}/ws"
        assert await upgrade_status(ws, {"Origin": "http://evil.example"}) == 403
    finally:
        code, err = served.stop()
    assert code == 0 and "warning: --no-token" in err


async def test_a_public_address_still_needs_the_token(hermes_home: Path) -> None:
    env = {**os.environ, "HERMES_HOME": str(hermes_home), "PYTHONPATH": str(ROOT)}
    refused = subprocess.run(
        [sys.executable, "-m", "tui.main", "serve", "--host", "0.0.0.0", "--public", "--no-token",
         "--port", str(free_port())],
        capture_output=True, text=True, env=env, timeout=30,
    )  # fmt: skip
    assert refused.returncode == 2 and "--no-token is refused on 0.0.0.0" in refused.stderr
    port = free_port()
    served = Served(hermes_home, "--host", "0.0.0.0", "--public", "--port", str(port))
    try:
        page = f"http://127.0.0.1:{port}/?token={token_of(served.wait_ready())}"
        assert (await page_status(f"http://127.0.0.1:{port}/"))[0] == 403
        assert await upgrade_status(f"ws://127.0.0.1:{port}/ws") == 403
        assert (await page_status(page))[0] == 200
        assert (await page_status(page, {"Host": f"evil.example:{port}"}))[0] == 403
    finally:
        served.stop()
