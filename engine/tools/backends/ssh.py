"""The `ssh` backend: the persistent shell and background processes on a host reached with asyncssh.

The host's key is checked against known_hosts; a host that is not there is asked about once (the
person sees its fingerprint) and added. Keys come from the file terminal.ssh_key names or from the
ssh agent, never from the model. Nothing of this machine's environment is sent.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable

from engine.config import Config
from engine.tools.backends.base import BackendError, Channel
from engine.tools.backends.remote import RemoteBackend, quiet_exports
from engine.tools.backends.ssh_target import SshTarget, ssh_target
from engine.tools.persistent_shell import quoted

# Asked when the host's key is not in known_hosts: (question, fingerprint) -> trusted?
TrustHostKey = Callable[[str, str], Awaitable[bool]]


class SshChannel(Channel):
    def __init__(self, process: object) -> None:
        super().__init__()
        self.process = process
        self._pump = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        stdout = self.process.stdout  # type: ignore[attr-defined]
        try:
            while chunk := await stdout.read(65536):
                self.reader.feed_data(chunk)
        except Exception:  # a closed connection ends the stream like EOF
            pass
        finally:
            self.reader.feed_eof()

    async def write(self, data: bytes) -> None:
        stdin = self.process.stdin  # type: ignore[attr-defined]
        try:
            stdin.write(data)
            await stdin.drain()
        except Exception as exc:
            raise BackendError("The ssh channel is closed.") from exc

    async def close_input(self) -> None:
        with contextlib.suppress(Exception):
            self.process.stdin.write_eof()  # type: ignore[attr-defined]

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            self.process.close()  # type: ignore[attr-defined]
        self._pump.cancel()
        with contextlib.suppress(BaseException):
            await self._pump


class SshBackend(RemoteBackend):
    name = "ssh"

    def __init__(self, config: Config, trust: TrustHostKey | None = None) -> None:
        self.config = config
        self.target: SshTarget = ssh_target(config)
        self.trust = trust
        self.connection: object | None = None

    @property
    def label(self) -> str:
        return f"ssh {self.target.shown}"

    async def open(self) -> None:
        import asyncssh

        target = self.target
        try:
            self.connection = await self._connect()
        except asyncssh.HostKeyNotVerifiable:
            await self._ask_about_host_key()
            self.connection = await self._connect()
        status, out = await self.run("mktemp -d /tmp/hws-XXXXXXXX")
        self.work_dir = out.decode().strip()
        if status != 0 or not self.work_dir:
            raise BackendError(f"No work folder could be made on {target.shown}: {out.decode().strip()}")

    async def _connect(self) -> object:
        import asyncssh

        target = self.target
        timeout = float(self.config.terminal.connect_timeout)
        if not target.known_hosts.exists():  # an empty file: every host is unknown, none is trusted blindly
            target.known_hosts.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            target.known_hosts.touch(mode=0o600)
        try:
            return await asyncssh.connect(
                target.host,
                port=target.port,
                username=target.user,
                client_keys=[target.key] if target.key else (),
                agent_path=None if target.key else (),
                known_hosts=str(target.known_hosts),
                connect_timeout=timeout,
            )
        except asyncssh.HostKeyNotVerifiable:
            raise
        except asyncssh.PermissionDenied as exc:
            how = f"the key {target.key}" if target.key else "the keys of your ssh agent"
            raise BackendError(
                f"ssh {target.shown} refused {how} ({exc.reason}); set terminal.ssh_key to a key it accepts."
            ) from exc
        except (OSError, asyncssh.Error, TimeoutError) as exc:
            raise BackendError(f"ssh {target.shown} cannot be reached: {exc}.") from exc

    async def _ask_about_host_key(self) -> None:
        import asyncssh

        target = self.target
        try:
            key = await asyncio.wait_for(
                asyncssh.get_server_host_key(target.host, target.port),
                float(self.config.terminal.connect_timeout),
            )
        except (OSError, asyncssh.Error, TimeoutError) as exc:
            raise BackendError(f"ssh {target.shown} cannot be reached: {exc}.") from exc
        if key is None:
            raise BackendError(f"ssh {target.shown} showed no host key.")
        fingerprint = key.get_fingerprint()
        question = (
            f"The ssh host {target.known_hosts_name} is not in {target.known_hosts}; its key is "
            f"{key.get_algorithm()} {fingerprint}. Trust it and add it there?"
        )
        if self.trust is None or not await self.trust(question, fingerprint):
            raise BackendError(
                f"The key of ssh host {target.known_hosts_name} ({fingerprint}) was not trusted, so nothing "
                f"was run there; add it to {target.known_hosts} (ssh-keyscan) if it is the right one."
            )
        line = f"{target.known_hosts_name} {key.export_public_key('openssh').decode().strip()}\n"
        target.known_hosts.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        with open(target.known_hosts, "a", encoding="ascii") as handle:
            handle.write(line)

    async def start(self, script: str) -> Channel:
        import asyncssh

        assert self.connection is not None
        command = f"exec bash --norc --noprofile -c {quoted(quiet_exports() + script)}"
        try:
            process = await self.connection.create_process(  # type: ignore[attr-defined]
                command, stderr=asyncssh.STDOUT, encoding=None
            )
        except (OSError, asyncssh.Error) as exc:
            raise BackendError(f"ssh {self.target.shown}: {exc}") from exc
        return SshChannel(process)

    async def stream(self, script: str) -> Channel:
        return await self.start(script)

    async def run(self, script: str, data: bytes = b"") -> tuple[int, bytes]:
        import asyncssh

        assert self.connection is not None
        try:
            done = await self.connection.run(  # type: ignore[attr-defined]
                f"sh -c {quoted(script)}",
                input=data or None,
                stderr=asyncssh.STDOUT,
                encoding=None,
                check=False,
            )
        except (OSError, asyncssh.Error) as exc:
            raise BackendError(f"ssh {self.target.shown}: {exc}") from exc
        return int(done.exit_status or 0), bytes(done.stdout or b"")

    async def remove_fifos(self, name: str) -> None:
        with contextlib.suppress(Exception):
            await super().remove_fifos(name)

    async def close(self) -> None:
        if self.connection is None:
            return
        with contextlib.suppress(Exception):
            if self.work_dir.startswith("/tmp/hws-"):
                await self.run(f"rm -rf {quoted(self.work_dir)}")
        with contextlib.suppress(Exception):
            self.connection.close()  # type: ignore[attr-defined]
            await self.connection.wait_closed()  # type: ignore[attr-defined]
        self.connection = None
