"""`hws mcp serve --http`: the SDK's streamable HTTP client with the token gets everything; else 401."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest

from tests.support.fault_support import hws
from tests.support.mcp_serve_support import (
    exercise_every_reader,
    free_port,
    http_client,
    payload,
    seed_home,
    start_http,
    stop,
)

TOKEN = "a-test-token-of-forty-characters-or-so-1234"


@pytest.fixture
async def home(hermes_home: Path) -> Path:
    return await seed_home(hermes_home)


@pytest.fixture
def token_file(tmp_path: Path) -> Path:
    path = tmp_path / "token"
    path.write_text(TOKEN + "\n", encoding="utf-8")
    return path


async def test_with_the_token_every_tool_resource_and_prompt(home: Path, token_file: Path) -> None:
    port = free_port()
    server = start_http(home, port, "--token-file", str(token_file))
    try:
        async with http_client(f"http://127.0.0.1:{port}/mcp", TOKEN, client="Codex CLI") as client:
            await exercise_every_reader(client)
            added = await client.call_tool(
                "memory", {"action": "add", "target": "memory", "content": "NAS: tarn."}
            )
            assert not added.is_error, added.content[0].text
            assert payload(added)["entries"][-1] == "NAS: tarn."
    finally:
        printed = stop(server)
    assert TOKEN not in printed  # a token from a file is never printed
    history = hws("memory", "history", home=home)
    assert "mcp:codex-cli" in next(row for row in history.stdout.splitlines() if "tarn" in row)


async def test_without_or_with_a_wrong_token_401(home: Path, token_file: Path) -> None:
    port = free_port()
    server = start_http(home, port, "--token-file", str(token_file))
    url = f"http://127.0.0.1:{port}/mcp"
    hello = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "x", "version": "1"},
        },
    }
    accept = {"Accept": "application/json, text/event-stream"}
    try:
        async with httpx.AsyncClient() as raw:
            missing = await raw.post(url, json=hello, headers=accept)
            wrong = await raw.post(url, json=hello, headers={**accept, "Authorization": "Bearer nope"})
            right = await raw.post(url, json=hello, headers={**accept, "Authorization": f"Bearer {TOKEN}"})
        statuses: list[int] = []
        with pytest.raises(BaseException) as refused:  # the SDK's client: an error group around the 401
            async with http_client(url, None, statuses=statuses) as client:
                await client.list_tools()
    finally:
        stop(server)
    assert missing.status_code == 401 and wrong.status_code == 401
    assert missing.headers["www-authenticate"] == "Bearer"
    assert right.status_code == 200
    assert statuses and set(statuses) == {401} and "error response" in " ".join(_messages(refused.value))


async def test_a_token_made_at_start_is_printed_once_and_works(home: Path) -> None:
    port = free_port()
    server = start_http(home, port)
    try:
        line = ""
        assert server.stdout is not None
        while "Bearer token" not in line:
            line = server.stdout.readline()
            assert line, "the server stopped before printing its token"
        token = line.rsplit(" ", 1)[-1].strip()
        assert re.fullmatch(r"[A-Za-z0-9_-]{40,}", token)
        async with http_client(f"http://127.0.0.1:{port}/mcp", token) as client:
            assert "memory_read" in {t.name for t in (await client.list_tools()).tools}
    finally:
        rest = stop(server)
    assert token not in rest


def test_a_non_loopback_bind_is_refused_without_allow_remote(home: Path) -> None:
    refused = hws("mcp", "serve", "--http", "--host", "0.0.0.0", "--port", str(free_port()), home=home)
    assert refused.returncode == 2
    assert "not a loopback address" in refused.stderr and "--allow-remote" in refused.stderr


def _messages(exc: BaseException) -> list[str]:
    """The messages of an exception and everything it groups or was raised from."""
    found = [str(exc)]
    for inner in getattr(exc, "exceptions", ()):
        found += _messages(inner)
    if exc.__cause__ is not None:
        found += _messages(exc.__cause__)
    return found
