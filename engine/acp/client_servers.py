"""The MCP servers an ACP client passes with `session/new` or `session/load`, as `mcp_servers` entries.

The session's config gets them beside the home's own servers (the home's win on a name clash), so the
same hub starts them, with the same trust settings and approvals. A server that cannot be used (a
name the hub refuses, a transport it does not know) is left out with one logged sentence.
"""

from __future__ import annotations

import dataclasses
import logging
import re
from collections.abc import Sequence
from typing import Any

import acp  # noqa: F401  first the whole SDK: a thread importing one of its submodules alone races its __init__
from acp.schema import HttpMcpServer, McpServerStdio, SseMcpServer

from engine.config import Config
from engine.mcp.servers import parse_server

log = logging.getLogger(__name__)
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")


def _name(raw: str) -> str:
    return _UNSAFE.sub("-", raw).strip("-_")[:32] or "client"


def _entry(server: Any) -> dict[str, Any] | None:
    if isinstance(server, McpServerStdio):
        env = {item.name: item.value for item in server.env}
        return {"command": server.command, "args": list(server.args), "env": env}
    if isinstance(server, HttpMcpServer | SseMcpServer):
        headers = {item.name: item.value for item in server.headers}
        return {"url": server.url, "headers": headers, "transport": server.type}
    return None


def with_client_servers(config: Config, servers: Sequence[Any] | None) -> Config:
    """`config` with the client's MCP servers added to `mcp_servers` (itself when there are none)."""
    if not servers:
        return config
    raw = config.raw if isinstance(config.raw, dict) else {}
    own = raw.get("mcp_servers") if isinstance(raw.get("mcp_servers"), dict) else {}
    added: dict[str, Any] = {}
    for server in servers:
        name, entry = _name(str(server.name)), _entry(server)
        if entry is None:
            log.warning("the client's MCP server %s is left out: hws cannot reach it over ACP", server.name)
            continue
        if name in own or name in added:
            log.warning("the client's MCP server %s is left out: the home has a server of that name", name)
            continue
        try:
            parse_server(name, entry)
        except ValueError as exc:
            log.warning("the client's MCP server %s is left out: %s", server.name, exc)
            continue
        added[name] = entry
    if not added:
        return config
    log.info("MCP servers from the client: %s", ", ".join(sorted(added)))
    return dataclasses.replace(config, raw={**raw, "mcp_servers": {**own, **added}})
