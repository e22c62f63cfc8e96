"""The ssh host terminal commands run on, as the ssh_* settings name it (no connection is made here)."""

from __future__ import annotations

import getpass
from dataclasses import dataclass
from pathlib import Path

from engine.config import Config


@dataclass(frozen=True)
class SshTarget:
    host: str
    port: int
    user: str
    key: str  # a private key file; "" for the agent's keys and ~/.ssh's default ones
    known_hosts: Path

    @property
    def shown(self) -> str:
        """`dev@box`, or `dev@box:2222` off the default port."""
        where = f"{self.user}@{self.host}"
        return where if self.port == 22 else f"{where}:{self.port}"

    @property
    def known_hosts_name(self) -> str:
        """How known_hosts names this host: `box`, or `[box]:2222` off the default port."""
        return self.host if self.port == 22 else f"[{self.host}]:{self.port}"


def ssh_target(config: Config) -> SshTarget:
    section = config.terminal
    known = str(section.ssh_known_hosts or "").strip()
    key = str(section.ssh_key or "").strip()
    return SshTarget(
        host=str(section.ssh_host or "").strip(),
        port=int(section.ssh_port or 22),
        user=str(section.ssh_user or "").strip() or getpass.getuser(),
        key=str(Path(key).expanduser()) if key else "",
        known_hosts=Path(known).expanduser() if known else Path.home() / ".ssh" / "known_hosts",
    )
