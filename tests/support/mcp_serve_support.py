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

import pytest
import yaml
from mcp.shared.exceptions import MCPError

from tests.support.fault_support import ROOT, hws_env

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


async def store_session(home: Path, title: str, question: str, answer: str) -> None:
    """One past conversation in the home's state.db (the real store)."""
    from engine.sessions.store import SessionStore

    store = await SessionStore.open(home / "state.db")
    try:
        session = await store.create_session(title=title)
        await store.append_message(session.id, "user", question)
        await store.append_message(session.id, "assistant", answer)
    finally:
        await store.close()


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
async def http_client(
    url: str, token: str | None, client: str = "codex", statuses: list[int] | None = None
) -> AsyncIterator[Any]:
    """The SDK's streamable HTTP client at `url`, sending `token` as the bearer (or no Authorization);
    the status of every HTTP response it gets is added to `statuses`."""
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client
    from mcp_types import Implementation

    headers = {"Authorization": f"Bearer {token}"} if token else None
    async with create_mcp_http_client(headers=headers) as http:
        if statuses is not None:

            async def record(response: Any) -> None:
                statuses.append(response.status_code)

            http.event_hooks["response"].append(record)
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


async def seed_home(home: Path) -> Path:
    """A home with a stored conversation, a skill, both memory files and a SOUL.md."""
    write_config(home)
    await store_session(home, "Moving the blog", "Which host serves the blog?", "The host lantern does.")
    write_skill(home, "deploy-site", "Deploy the static site to the web host.", "1. Run make deploy.")
    memories = home / "memories"
    memories.mkdir(parents=True, exist_ok=True)
    (memories / "MEMORY.md").write_text("The web host is called lantern.", encoding="utf-8")
    (memories / "USER.md").write_text("Prefers short answers.", encoding="utf-8")
    (home / "SOUL.md").write_text("You are a careful old lighthouse keeper.\n", encoding="utf-8")
    return home


async def exercise_every_reader(client: Any) -> None:
    """Every tool that reads, every resource and the skill's prompt, through one connected client."""
    tools = {tool.name for tool in (await client.list_tools()).tools}
    assert tools == {"memory", "memory_read", "skills_list", "skill_view", "session_search"}

    read = payload(await client.call_tool("memory_read", {}))
    assert read["memory"]["entries"] == ["The web host is called lantern."]
    assert read["user"]["entries"] == ["Prefers short answers."]

    listed = payload(await client.call_tool("skills_list", {}))
    assert [s["name"] for s in listed["skills"]] == ["deploy-site"]
    viewed = payload(await client.call_tool("skill_view", {"name": "deploy-site"}))
    assert "Run make deploy." in viewed["content"]
    found = payload(await client.call_tool("session_search", {"query": "lantern"}))
    assert "The host lantern does." in json.dumps(found)
    assert "Moving the blog" in json.dumps(found)

    uris = {str(r.uri) for r in (await client.list_resources()).resources}
    assert uris == {
        "hermes://memory/MEMORY.md",
        "hermes://memory/USER.md",
        "hermes://soul",
        "hermes://skills/deploy-site",
    }
    memory_text = (await client.read_resource("hermes://memory/MEMORY.md")).contents[0].text
    assert memory_text == "The web host is called lantern."
    user_text = (await client.read_resource("hermes://memory/USER.md")).contents[0].text
    assert user_text == "Prefers short answers."
    soul = (await client.read_resource("hermes://soul")).contents[0].text
    assert "lighthouse keeper" in soul
    skill = (await client.read_resource("hermes://skills/deploy-site")).contents[0].text
    assert "Run make deploy." in skill
    with pytest.raises(MCPError, match="no resource"):
        await client.read_resource("hermes://memory/OTHER.md")

    prompts = (await client.list_prompts()).prompts
    assert [(p.name, p.description) for p in prompts] == [
        ("deploy-site", "Deploy the static site to the web host.")
    ]
    got = await client.get_prompt("deploy-site", {"instruction": "to staging"})
    text = got.messages[0].content.text
    assert got.messages[0].role == "user"
    assert "Run make deploy." in text and text.rstrip().endswith("to staging")
