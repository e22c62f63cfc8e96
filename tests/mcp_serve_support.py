"""What the `hws mcp serve` tests share: the real command as a subprocess, reached with the SDK's client."""

from __future__ import annotations

import contextlib
import json
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import yaml

from tests.fault_support import ROOT, hws_env

START_TIMEOUT = 60  # seconds `hws mcp serve --http` may take to listen (a loaded machine), never a claim


def write_config(home: Path, **sections: Any) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.yaml").write_text(yaml.safe_dump(sections, sort_keys=False), encoding="utf-8")


def write_skill(home: Path, name: str, description: str, body: str, category: str = "tools") -> Path:
    folder = home / "skills" / category / name
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "SKILL.md"
    path.write_text(f"---\nname: {name}\ndescription: {description}\n---\n{body}\n", encoding="utf-8")
    return path


@contextlib.asynccontextmanager
async def stdio_client(home: Path, *args: str, client: str = "claude-code") -> AsyncIterator[Any]:
    """`hws mcp serve ARGS` started by the SDK's stdio client, which introduces itself as `client`."""
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters
    from mcp.client.stdio import stdio_client as open_stdio
    from mcp_types import Implementation

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "tui.main", "mcp", "serve", *args],
        env=hws_env(home),
        cwd=str(ROOT),
    )
    errlog = open(home.parent / "mcp-serve.stderr", "a", encoding="utf-8")  # noqa: SIM115
    try:
        async with Client(
            open_stdio(params, errlog=errlog), client_info=Implementation(name=client, version="1")
        ) as c:
            yield c
    finally:
        errlog.close()


@contextlib.asynccontextmanager
async def http_client(url: str, token: str | None, client: str = "codex") -> AsyncIterator[Any]:
    """The SDK's streamable HTTP client at `url`, sending `token` as the bearer (or no Authorization)."""
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client
    from mcp_types import Implementation

    headers = {"Authorization": f"Bearer {token}"} if token else None
    async with create_mcp_http_client(headers=headers) as http:
        transport = streamable_http_client(url, http_client=http)
        async with Client(transport, client_info=Implementation(name=client, version="1")) as c:
            yield c


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_http(home: Path, port: int, *args: str) -> subprocess.Popen[str]:
    """`hws mcp serve --http --port PORT ARGS`, returned once it accepts connections."""
    process = subprocess.Popen(
        [sys.executable, "-m", "tui.main", "mcp", "serve", "--http", "--port", str(port), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        env=hws_env(home),
        cwd=ROOT,
    )
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(
                f"hws mcp serve --http exited: {process.stderr.read() if process.stderr else ''}"
            )
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
            return process
        time.sleep(0.1)
    process.kill()
    raise AssertionError("hws mcp serve --http did not listen in time")


def stop(process: subprocess.Popen[str]) -> str:
    """Stop the server (SIGTERM, then kill) and return what it printed on stdout."""
    process.terminate()
    try:
        out, _ = process.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        out, _ = process.communicate()
    return out or ""


def payload(result: Any) -> dict[str, Any]:
    """The JSON result dict in a tool result's text (after the error sentence, for an error)."""
    text = result.content[0].text
    return json.loads(text[text.index("{") :])
