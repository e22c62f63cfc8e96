"""`mcp_servers:` in config.yaml, read in Hermes' shape, each server checked on its own.

    mcp_servers:
      time: {command: mcp-server-time, args: [--local-timezone, UTC]}
      docs: {url: "https://example.com/mcp", headers: {Authorization: "Bearer ${DOCS_TOKEN}"}}

A server written wrongly is left out with one sentence naming it and its line; the others still
start. `${VAR}` in `env`, `headers`, `args` and `url` is replaced only when the server is started
(`resolved`), from the environment and then the home's `.env`; nothing here shows the values.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from engine.config import Config

TRUST_LEVELS = ("ask", "once", "allow")
TRANSPORTS = ("stdio", "http", "sse")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$")
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
# Keys Hermes Agent knows that hws reads past (its sampling and resource settings).
_HERMES_KEYS = frozenset({"sampling", "roots", "auth", "oauth", "description"})
_KEYS = frozenset(
    {"command", "args", "env", "cwd", "url", "headers", "transport", "enabled", "timeout", "connect_timeout"}
    | {"tools", "trust"}
)


@dataclass(frozen=True)
class ServerSpec:
    """One configured MCP server: how to start or reach it, and what of it the agent may use."""

    name: str
    command: str = ""
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    cwd: str = ""
    url: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    transport: str = "stdio"
    enabled: bool = True
    timeout: float = 0.0  # seconds per call; 0 uses mcp.call_timeout
    connect_timeout: float = 0.0  # seconds to start; 0 uses mcp.connect_timeout
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    trust: str = ""  # empty uses mcp.default_trust
    line: int = 0

    @property
    def where(self) -> str:
        """What a person recognises the server by: its command line or its address (no header values)."""
        if self.transport == "stdio":
            return " ".join([self.command, *self.args])
        return self.url

    def wants(self, tool: str) -> bool:
        """`tools.include` (when given) and `tools.exclude` allow this tool."""
        if self.include and tool not in self.include:
            return False
        return tool not in self.exclude

    def call_timeout(self, config: Config) -> float:
        return self.timeout or float(config.mcp.call_timeout)

    def start_timeout(self, config: Config) -> float:
        return self.connect_timeout or float(config.mcp.connect_timeout)

    def trust_level(self, config: Config) -> str:
        return self.trust or str(config.mcp.default_trust)


@dataclass(frozen=True)
class ServerList:
    """The servers that are written correctly, and a sentence for each one that is not."""

    servers: tuple[ServerSpec, ...] = ()
    problems: tuple[str, ...] = ()

    def enabled(self) -> tuple[ServerSpec, ...]:
        return tuple(s for s in self.servers if s.enabled)

    def get(self, name: str) -> ServerSpec | None:
        return next((s for s in self.servers if s.name == name), None)


class ResolveError(Exception):
    """A `${VAR}` a server needs is set nowhere; the message names it (never a value)."""


def read_servers(config: Config) -> ServerList:
    """The `mcp_servers` section of `config` (its raw YAML), each server checked on its own."""
    where = str(config.path) if config.path else "config.yaml"
    raw = config.raw.get("mcp_servers") if isinstance(config.raw, dict) else None
    if raw is None:
        return ServerList()
    if not isinstance(raw, dict):
        return ServerList((), (f"{where}: `mcp_servers` must be a mapping of server names to settings.",))
    lines = _lines(config.path)
    servers: list[ServerSpec] = []
    problems: list[str] = []
    for name, entry in raw.items():
        line = lines.get(str(name), 0)
        try:
            servers.append(parse_server(str(name), entry, line))
        except ValueError as exc:
            problems.append(f"{where} line {line}: MCP server `{name}` is left out: {exc}")
    return ServerList(tuple(servers), tuple(problems))


def parse_server(name: str, entry: Any, line: int = 0) -> ServerSpec:
    """One server's settings; ValueError (the end of a sentence) when they cannot be used."""
    if not _NAME.match(name):
        raise ValueError("its name must be letters, digits, _ or - (at most 32, not starting with _ or -).")
    if not isinstance(entry, dict):
        raise ValueError("its settings must be a mapping (command and args, or url).")
    unknown = sorted(str(k) for k in entry if k not in _KEYS and k not in _HERMES_KEYS)
    if unknown:
        raise ValueError(f"unknown setting(s) {', '.join(unknown)}.")
    command, url = entry.get("command"), entry.get("url")
    if bool(command) == bool(url):
        raise ValueError("give either `command` (a local program) or `url` (a server to reach), not both.")
    transport = str(entry.get("transport") or ("stdio" if command else _url_transport(str(url))))
    if transport in ("streamable_http", "streamable-http"):
        transport = "http"
    if transport not in TRANSPORTS or (transport == "stdio") != bool(command):
        raise ValueError(
            f"`transport` must be stdio for a command, http or sse for a url, not {transport!r}."
        )
    tools = entry.get("tools") or {}
    if not isinstance(tools, dict):
        raise ValueError("`tools` must be a mapping with `include` and/or `exclude` lists.")
    trust = entry.get("trust") or ""
    if trust and trust not in TRUST_LEVELS:
        raise ValueError(f"`trust` must be one of {', '.join(TRUST_LEVELS)}, not {trust!r}.")
    enabled = entry.get("enabled", True)
    if not isinstance(enabled, bool):
        raise ValueError("`enabled` must be true or false.")
    return ServerSpec(
        name=name,
        command=_text(entry, "command"),
        args=_strings(entry.get("args"), "args"),
        env=_mapping(entry.get("env"), "env"),
        cwd=_text(entry, "cwd"),
        url=_text(entry, "url"),
        headers=_mapping(entry.get("headers"), "headers"),
        transport=transport,
        enabled=enabled,
        timeout=_seconds(entry.get("timeout"), "timeout"),
        connect_timeout=_seconds(entry.get("connect_timeout"), "connect_timeout"),
        include=_strings(tools.get("include"), "tools.include"),
        exclude=_strings(tools.get("exclude"), "tools.exclude"),
        trust=str(trust),
        line=line,
    )


def resolved(spec: ServerSpec, config: Config) -> ServerSpec:
    """The spec with every `${VAR}` replaced (the environment, then `.env`); ResolveError if one is unset."""
    missing: list[str] = []

    def sub(text: str) -> str:
        def repl(match: re.Match[str]) -> str:
            value = config.secret(match.group(1))
            if not value:
                missing.append(match.group(1))
            return value

        return _VAR.sub(repl, text)

    out = replace(
        spec,
        command=sub(spec.command),
        args=tuple(sub(a) for a in spec.args),
        env={k: sub(v) for k, v in spec.env.items()},
        headers={k: sub(v) for k, v in spec.headers.items()},
        url=sub(spec.url),
        cwd=sub(spec.cwd),
    )
    if missing:
        names = ", ".join(f"${{{n}}}" for n in dict.fromkeys(missing))
        raise ResolveError(f"{names} is set neither in the environment nor in the home's .env.")
    return out


def server_entry(spec: ServerSpec) -> dict[str, Any]:
    """The YAML mapping `hws mcp add` writes for a server (only what differs from the defaults)."""
    entry: dict[str, Any] = {}
    if spec.command:
        entry["command"] = spec.command
        if spec.args:
            entry["args"] = list(spec.args)
    else:
        entry["url"] = spec.url
        if spec.transport == "sse":
            entry["transport"] = "sse"
    for key in ("env", "headers"):
        if getattr(spec, key):
            entry[key] = dict(getattr(spec, key))
    if spec.trust:
        entry["trust"] = spec.trust
    if spec.timeout:
        entry["timeout"] = spec.timeout
    return entry


def _url_transport(url: str) -> str:
    return "sse" if url.rstrip("/").endswith("/sse") else "http"


def _text(entry: Mapping[str, Any], key: str) -> str:
    value = entry.get(key) or ""
    if not isinstance(value, (str, int, float)) or isinstance(value, bool):
        raise ValueError(f"`{key}` must be text.")
    return str(value)


def _strings(value: Any, key: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, (str, int, float)) for v in value):
        raise ValueError(f"`{key}` must be a list of words.")
    return tuple(str(v) for v in value)


def _mapping(value: Any, key: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValueError(f"`{key}` must be a mapping of names to values.")
    return {str(k): "" if v is None else str(v) for k, v in value.items()}


def _seconds(value: Any, key: str) -> float:
    if value is None:
        return 0.0
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise ValueError(f"`{key}` must be a number of seconds above 0.")
    return float(value)


def _lines(path: Path | None) -> dict[str, int]:
    """The line of each server's name under `mcp_servers:` (0 when the file cannot say)."""
    if path is None or not path.exists():
        return {}
    found: dict[str, int] = {}
    inside = False
    indent = ""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return {}
    for number, line in enumerate(text.splitlines(), 1):
        if re.match(r"^mcp_servers\s*:", line):
            inside = True
            continue
        if inside and line[:1] not in ("", " ", "\t", "#"):
            break
        match = re.match(r"^(\s+)([A-Za-z0-9_-]+)\s*:", line) if inside else None
        if match and (not indent or match.group(1) == indent):
            indent = match.group(1)
            found[match.group(2)] = number
    return found
