"""What the MCP tests share: a home whose config names MCP servers, and `hws run` with a scripted model."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import yaml

from tests.support.fault_support import ROOT, assert_clean_exit, hws, write_scenario

BIN = Path(sys.executable).parent


def program(name: str) -> str:
    """A console script installed beside this interpreter (the dev extras' MCP servers)."""
    return str(BIN / name)


def support_server(kind: str, **settings: Any) -> dict[str, Any]:
    """A server of tests/support/mcp_servers.py as an `mcp_servers` entry."""
    return {
        "command": sys.executable,
        "args": ["-m", "tests.support.mcp_servers", kind],
        "cwd": str(ROOT),
        **settings,
    }


def write_home(home: Path, servers: dict[str, Any], **sections: Any) -> None:
    home.mkdir(parents=True, exist_ok=True)
    data = {"mcp_servers": servers, **sections}
    (home / "config.yaml").write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")


def run(
    home: Path, cwd: Path, scenario: str, *extra: str, prompt: str = "go", codes: tuple[int, ...] = (0,)
) -> tuple[subprocess.CompletedProcess[str], list[dict[str, Any]], list[dict[str, Any]]]:
    """`hws run --json` with the scenario: the process, its events, and the requests the model got."""
    path = write_scenario(cwd, scenario)
    log = cwd / "requests.jsonl"
    log.unlink(missing_ok=True)
    done = hws(
        "run",
        "--json",
        "--scenario",
        str(path),
        "--request-log",
        str(log),
        *extra,
        prompt,
        home=home,
        cwd=cwd,
    )
    assert_clean_exit(done, codes)
    events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    logged = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    requests = [r for r in logged if "messages" in (r.get("body") or {})]  # the chat calls, not /models
    return done, events, requests


def finished(events: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == "tool_finished" and e["name"] == name]


def offered(request: dict[str, Any]) -> list[str]:
    """The tool names a model request carried, in order."""
    return [t["function"]["name"] for t in request["body"].get("tools") or []]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_port(port: int, process: subprocess.Popen[bytes], limit: float = 30.0) -> None:
    """Wait until something listens on 127.0.0.1:port (a bound on the wait, not a timing claim)."""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        if process.poll() is not None:
            raise AssertionError(f"the test server exited with {process.returncode}")
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise AssertionError(f"nothing listened on port {port}")
