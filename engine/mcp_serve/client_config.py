"""The snippet each MCP client's config takes to start (or reach) `hws mcp serve`.

Formats, as each client documents them: Claude Code's `.mcp.json` (`mcpServers`, `type: http` with
`headers` for a URL, `${VAR}` expanded), Codex's `~/.codex/config.toml` (`[mcp_servers.NAME]` with
`command`/`args`, or `url` with `bearer_token_env_var`, since it refuses an inline token), and Cursor's
`~/.cursor/mcp.json` (`mcpServers`, `url` with `headers`, `${env:VAR}` expanded). The token itself is
never written into a snippet: it is read from the environment variable TOKEN_VARIABLE.
"""

from __future__ import annotations

import json
from typing import Any

CLIENTS = ("claude", "codex", "cursor")
SERVER_KEY = "hermes"
TOKEN_VARIABLE = "HWS_MCP_TOKEN"
WHERE = {
    "claude": "Claude Code: .mcp.json in a project (or `claude mcp add-json hermes '<the inner object>'`)",
    "codex": "Codex: ~/.codex/config.toml",
    "cursor": "Cursor: ~/.cursor/mcp.json (or .cursor/mcp.json in a project)",
}


def snippet(client: str, command: str, args: list[str], url: str = "") -> str:
    """The config text for `client`: a stdio server started as `command args`, or the server at `url`."""
    if client not in CLIENTS:
        raise ValueError(f"Unknown client '{client}'; choose one of: {', '.join(CLIENTS)}.")
    if client == "codex":
        return _codex(command, args, url)
    entry: dict[str, Any]
    if not url:
        entry = {"command": command, "args": args}
    elif client == "claude":
        entry = {"type": "http", "url": url, "headers": {"Authorization": f"Bearer ${{{TOKEN_VARIABLE}}}"}}
    else:
        entry = {"url": url, "headers": {"Authorization": f"Bearer ${{env:{TOKEN_VARIABLE}}}"}}
    return json.dumps({"mcpServers": {SERVER_KEY: entry}}, indent=2)


def _codex(command: str, args: list[str], url: str) -> str:
    lines = [f"[mcp_servers.{SERVER_KEY}]"]
    if url:
        lines += [f"url = {_toml(url)}", f"bearer_token_env_var = {_toml(TOKEN_VARIABLE)}"]
    else:
        lines += [f"command = {_toml(command)}", f"args = [{', '.join(_toml(a) for a in args)}]"]
    return "\n".join(lines)


def _toml(text: str) -> str:
    """A TOML basic string (JSON's escaping is valid TOML for these characters)."""
    return json.dumps(text, ensure_ascii=False)
