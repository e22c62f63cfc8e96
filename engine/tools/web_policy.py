"""Which addresses `web_fetch` may reach, and whom it asks first (`web.*` in config.yaml).

Order: a refused domain (`web.blocked_domains`) is refused before anything else; then `web.allow`
(`all`, a listed domain, or `ask`: the person approves the domain, once or for the session); last,
the host's addresses: loopback, private, link-local and other non-public addresses (the machine
itself, the LAN, a cloud's metadata service) follow `web.private_addresses`, asked every time when
`ask`, even under --yolo. Every redirect's target passes the same checks, and the connection goes
to the address that was checked (`PinnedBackend`), never to what a second lookup might answer.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from typing import Any
from urllib.parse import urlsplit

from engine.tools.context import Decision, ToolContext
from engine.tools.errors import ToolError


def host_of(url: str) -> str:
    """The URL's host, lower case without a trailing dot; a URL web_fetch cannot use is a ToolError."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        raise ToolError(f"web_fetch reads http and https URLs, not {parts.scheme or 'this'}: {url}")
    host = (parts.hostname or "").rstrip(".").lower()
    if not host:
        raise ToolError(f"The URL has no host: {url}")
    return host


def matches(host: str, domains: list[str] | tuple[str, ...]) -> bool:
    """True when `host` is one of `domains` or under one of them (`docs.python.org` under `python.org`)."""
    for domain in domains:
        wanted = str(domain).strip().lower().lstrip("*").lstrip(".").rstrip(".")
        if wanted and (host == wanted or host.endswith("." + wanted)):
            return True
    return False


async def _addresses(host: str, port: int) -> list[ipaddress.IPv4Address | ipaddress.IPv6Address]:
    try:
        found = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        raise ToolError(f"{host} could not be resolved: {exc.strerror or exc}.") from None
    return [ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in found]


def _private(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return not address.is_global or address.is_multicast


async def check(url: str, ctx: ToolContext, tool: str = "web_fetch") -> tuple[str, str]:
    """Let `url` be fetched or raise a ToolError that says why not; returns its host and the address
    checked for it, which the connection must use (a second lookup could answer differently)."""
    web = ctx.config.web
    host = host_of(url)
    if matches(host, list(web.blocked_domains)):
        raise ToolError(f"{host} is refused by web.blocked_domains in config.yaml.")
    allow = str(web.allow)
    if allow == "off":
        raise ToolError("Web access is off (web.allow: off in config.yaml).")
    if allow == "ask" and not matches(host, list(web.domains)):
        decision = await ctx.ask(
            tool,
            url,
            f"fetch a page from {host}",
            (f"web:{host}",),
            rule="web.allow",
            scope=f"web_fetch from {host}",
        )
        if decision is Decision.DENY:
            raise ToolError(f"The user declined fetching from {host}; do not retry it.")
    port = urlsplit(url).port or (443 if url.lower().startswith("https") else 80)
    addresses = await _addresses(host, port)
    if not addresses:
        raise ToolError(f"{host} has no address.")
    private = [a for a in addresses if _private(a)]
    if private:
        mode = str(web.private_addresses)
        where = f"{host} is a non-public address ({private[0]})"
        if mode == "refuse":
            raise ToolError(f"{where}; web.private_addresses: refuse keeps web_fetch off it.")
        if mode == "ask":
            decision = await ctx.ask(
                tool,
                url,
                f"{where}: the machine itself, the local network or a cloud metadata service",
                (f"web_private:{host}",),
                rule="web.private_addresses",
                scope=f"web_fetch from {host}",
                always_ask=True,
            )
            if decision is Decision.DENY:
                raise ToolError(f"The user declined fetching from {host}, a non-public address.")
    return host, str(addresses[0])


class PinnedBackend:
    """httpcore's network backend, connecting each host only to the address `check` vetted for it."""

    def __init__(self) -> None:
        import httpcore

        self.pins: dict[str, str] = {}
        self._inner = httpcore.AnyIOBackend()

    async def connect_tcp(self, host: str, port: int, **options: Any) -> Any:
        import httpcore

        address = self.pins.get(host.rstrip(".").lower())
        if address is None:
            raise httpcore.ConnectError(f"{host} was not checked by the web policy; not connecting.")
        return await self._inner.connect_tcp(address, port, **options)

    async def connect_unix_socket(self, path: str, **options: Any) -> Any:
        import httpcore

        raise httpcore.ConnectError("web_fetch does not connect to Unix sockets.")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)
