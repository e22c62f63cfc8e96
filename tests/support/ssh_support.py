"""A real sshd on 127.0.0.1 at a free port, with a throwaway host key and user key, for the ssh backend.

It logs in as the user running the tests. Where sshd or ssh-keygen is missing, the test is skipped with
a reason that says so (CI installs openssh-server).
"""

from __future__ import annotations

import getpass
import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.shell_support import free_port


@dataclass(frozen=True)
class SshServer:
    port: int
    user: str
    key: Path
    known_hosts: Path  # holds the server's host key
    host_key_line: str

    def settings(self, **more: object) -> dict[str, object]:
        """The terminal settings that point the ssh backend at this server."""
        return {
            "backend": "ssh",
            "ssh_host": "127.0.0.1",
            "ssh_port": self.port,
            "ssh_user": self.user,
            "ssh_key": str(self.key),
            "ssh_known_hosts": str(self.known_hosts),
            **more,
        }


def sshd_binary() -> str:
    found = shutil.which("sshd") or ("/usr/sbin/sshd" if Path("/usr/sbin/sshd").exists() else "")
    if not found or not shutil.which("ssh-keygen"):
        pytest.skip(
            "sshd is not installed here (Debian: apt-get install openssh-server); .ci/run installs it"
        )
    return found


def _keygen(path: Path) -> None:
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(path)], check=True)


@contextmanager
def running_sshd(folder: Path) -> Iterator[SshServer]:
    binary = sshd_binary()
    folder.mkdir(parents=True, exist_ok=True)
    host_key, user_key = folder / "host_key", folder / "user_key"
    _keygen(host_key)
    _keygen(user_key)
    authorized = folder / "authorized_keys"
    authorized.write_text(user_key.with_suffix(".pub").read_text())
    os.chmod(authorized, 0o600)
    port = free_port()
    config = folder / "sshd_config"
    config.write_text(
        f"Port {port}\nListenAddress 127.0.0.1\nHostKey {host_key}\nPidFile {folder / 'sshd.pid'}\n"
        f"AuthorizedKeysFile {authorized}\nStrictModes no\nPubkeyAuthentication yes\n"
        "PasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM no\n"
        "PermitRootLogin prohibit-password\nLogLevel ERROR\n"
    )
    if os.geteuid() == 0:
        Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)  # its privilege separation folder
    server = subprocess.Popen([binary, "-D", "-e", "-f", str(config)], stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    said = server.stderr.read() if server.stderr else ""
                    pytest.skip(f"sshd could not start here: {said.strip()[-300:]}")
                time.sleep(0.05)
        kind, blob = host_key.with_suffix(".pub").read_text().split()[:2]
        line = f"[127.0.0.1]:{port} {kind} {blob}"
        known = folder / "known_hosts"
        known.write_text(line + "\n")
        yield SshServer(port, getpass.getuser(), user_key, known, line)
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
