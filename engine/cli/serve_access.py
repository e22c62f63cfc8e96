"""Who may use `hws serve`: its own page on its own address, holding the token of this start.

A web page elsewhere can make the browser open a WebSocket to 127.0.0.1, and a name that rebinds to
127.0.0.1 (DNS rebinding) makes it look same-origin. So every request must name one of our own
addresses in `Host`, any `Origin` it carries must be the origin it was served from, and (unless
started with --no-token) it must present the random token printed in the URL at start.
"""

from __future__ import annotations

import hmac
import ipaddress
import re
import secrets
import socket
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import urlsplit

TOKEN_BYTES = 32  # entropy of the access token; token_urlsafe turns it into 43 characters
WILDCARDS = {"0.0.0.0", "::", ""}
LOOPBACK_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"}
_HOST_HEADER = re.compile(r"^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.\-]+)(?::([0-9]{1,5}))?$")


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def split_host(value: str) -> tuple[str, int | None] | None:
    """`Host` header → (lower-case name without brackets, port or None), or None if malformed."""
    match = _HOST_HEADER.match(value.strip())
    if match is None:
        return None
    name, port = match.group(1).lower().strip("[]"), match.group(2)
    if port is None:
        return name, None
    return (name, int(port)) if 0 < int(port) < 65536 else None


def is_loopback(host: str) -> bool:
    """A loopback name or address (any of 127.0.0.0/8, ::1), brackets allowed."""
    if host.lower() in LOOPBACK_NAMES:
        return True
    address = _ip(host.strip("[]"))
    return address is not None and address.is_loopback


def _ip(name: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(name)
    except ValueError:
        return None


@lru_cache(maxsize=256)
def is_own_address(name: str) -> bool:
    """True when `name` is an IP address of this machine (binding to it succeeds)."""
    address = _ip(name)
    if address is None or address.is_unspecified or address.is_multicast:
        return False
    family = socket.AF_INET6 if address.version == 6 else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        try:
            probe.bind((name, 0))
        except OSError:
            return False
    return True


@dataclass(frozen=True)
class ServeAccess:
    """The rules one running `hws serve` applies to every request."""

    bound_host: str
    port: int
    token: str | None  # None: started with --no-token
    public_url: str | None = None

    def cookie_name(self) -> str:
        """Per port, since a browser shares cookies between every port of one host."""
        return f"hws_serve_token_{self.port}"

    def _public(self) -> tuple[str, str, int] | None:
        if not self.public_url:
            return None
        parts = urlsplit(self.public_url)
        default = 443 if parts.scheme == "https" else 80
        return parts.scheme, (parts.hostname or "").lower(), parts.port or default

    def host_allowed(self, header: str) -> bool:
        """Loopback names, the bound address and the public URL's host, each with its own port."""
        parsed = split_host(header)
        if parsed is None:
            return False
        name, port = parsed
        public = self._public()
        if public is not None and name == public[1] and (port or public[2]) == public[2]:
            return True
        if (port or 80) != self.port:
            return False
        if is_loopback(name):
            return True
        bound = self.bound_host.strip("[]").lower()
        if bound in WILDCARDS:
            # Reachable on every address of this machine: accept those, never a name that may rebind.
            return is_own_address(name) or name in {socket.gethostname().lower(), socket.getfqdn().lower()}
        return name == bound

    def origin_allowed(self, origin: str, host_header: str) -> bool:
        """The origin the page was served from (`http://` + its Host), or the public URL's origin."""
        served = f"http://{host_header.strip()}".lower()
        public = self._public()
        if origin.lower() == served:
            return True
        if public is None:
            return False
        scheme, name, port = public
        parts = urlsplit(origin.lower())
        default = 443 if parts.scheme == "https" else 80
        try:
            same_port = (parts.port or default) == port
        except ValueError:
            return False
        return parts.scheme == scheme and parts.hostname == name and same_port and not parts.path

    def token_matches(self, presented: str | None) -> bool:
        if self.token is None:
            return True
        if not presented:
            return False
        return hmac.compare_digest(presented.encode(), self.token.encode())

    def refusal(
        self, hosts: list[str], origins: list[str], presented: list[str], *, needs_token: bool
    ) -> str | None:
        """Why a request is refused (one short sentence), or None when it may go on."""
        if len(hosts) != 1 or not self.host_allowed(hosts[0]):
            return "Refused: this server answers only to its own address (Host)."
        if len(origins) > 1 or (origins and not self.origin_allowed(origins[0], hosts[0])):
            return "Refused: requests from another site (Origin) are not accepted."
        if needs_token and not any(self.token_matches(value) for value in presented or [None]):
            return "Refused: open the URL hws serve printed, with its token."
        return None
