"""`hws doctor`'s line per MCP server: started and listed, or why not (not started with --offline)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.cli.doctor import ERROR, OK, WARNING, Finding
from engine.config import Config
from engine.home import Home

if TYPE_CHECKING:
    from engine.mcp.hub import ServerView


def check_mcp(home: Home, config: Config, *, start: bool = True) -> list[Finding]:
    """One finding per configured server (and per server written wrongly); none when there are none."""
    from engine.mcp.servers import read_servers

    servers = read_servers(config)
    findings = [
        Finding("mcp", ERROR, problem, "fix the server's settings in config.yaml")
        for problem in servers.problems
    ]
    if not servers.servers:
        return findings
    if not start:
        for spec in servers.servers:
            state = "configured" if spec.enabled else "disabled"
            findings.append(Finding("mcp", OK, f"{spec.name}: {state}, not started (--offline)"))
        return findings
    for view in _views(home, config):
        if view.state == "disabled":
            findings.append(Finding("mcp", OK, f"{view.name}: disabled (enabled: false)"))
        elif view.state != "ready":
            findings.append(
                Finding(
                    "mcp", WARNING, f"{view.name}: did not start: {view.error}", f"hws mcp test {view.name}"
                )
            )
        else:
            deferred = ", deferred behind tool_search" if view.deferred else ""
            findings.append(
                Finding(
                    "mcp",
                    OK,
                    f"{view.name}: {view.tools} tools, {view.schema_tokens:,} schema tokens{deferred}",
                )
            )
        for flag in view.flags:
            findings.append(
                Finding(
                    "mcp",
                    WARNING,
                    f"{view.name}: a tool description was cut as a prompt injection ({flag})",
                    "check who publishes this server before you trust it",
                )
            )
    return findings


def _views(home: Home, config: Config) -> list[ServerView]:
    from engine.mcp.hub import look

    return look(home, config, log_dir=False)[1]  # read-only: nothing is written to the home
