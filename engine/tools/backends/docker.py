"""The `docker` backend: one long-lived container per session, from terminal.docker_image.

The working folder is mounted at the same path (so paths in approvals and results mean the same
inside and out), with the home's control files read-only and its secrets hidden where the folder holds
them. The container has no network, no capabilities and no new privileges, runs as this user, and is
removed when the session ends (terminal.docker_keep keeps it). Images are never pulled: a missing one
is said, with how to get it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import socket
import struct
import threading
from pathlib import Path
from typing import Any

from engine.config import Config
from engine.home import Home
from engine.tools.backends.base import BackendError, Channel
from engine.tools.backends.remote import RemoteBackend, quiet_exports
from engine.tools.command_env import QUIET_ENV
from engine.tools.sandbox import CONTROL_FILES, PROJECT_CONTROL, SECRET_FILES

WORK_DIR = "/tmp/hws"  # inside the container: the fifos of background processes
RUN_TIMEOUT = 60.0  # seconds a control script (signals, fifos) may take


def _within(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def protected_mounts(cwd: Path, home: Path) -> dict[str, dict[str, str]]:
    """The working folder read-write, and over it the files the sandbox protects, read-only or hidden."""
    work = cwd.resolve()
    mounts = {str(work): {"bind": str(work), "mode": "rw"}}
    hermes = home.resolve()
    guarded = [work / name for name in PROJECT_CONTROL]
    if _within(hermes, work):
        guarded += [hermes / name for name in CONTROL_FILES if name not in SECRET_FILES]
        for name in SECRET_FILES:
            if (hermes / name).exists():
                mounts[os.devnull] = {"bind": str(hermes / name), "mode": "ro"}
    for path in guarded:
        if path.exists():
            mounts[str(path.resolve())] = {"bind": str(path.resolve()), "mode": "ro"}
    return mounts


class DockerChannel(Channel):
    """An `exec` in the container: its input, and its output read by a thread and demultiplexed."""

    def __init__(self, sock: Any) -> None:
        super().__init__()
        self.raw = getattr(sock, "_sock", sock)
        self._loop = asyncio.get_running_loop()
        self._thread = threading.Thread(target=self._pump, name="docker exec", daemon=True)
        self._thread.start()

    def _recv_exactly(self, size: int) -> bytes:
        data = bytearray()
        while len(data) < size:
            chunk = self.raw.recv(size - len(data))
            if not chunk:
                break
            data += chunk
        return bytes(data)

    def _pump(self) -> None:
        try:
            while True:
                header = self._recv_exactly(8)
                if len(header) < 8:
                    break
                _stream, size = struct.unpack(">BxxxL", header)
                payload = self._recv_exactly(size)
                if payload:
                    self._loop.call_soon_threadsafe(self.reader.feed_data, payload)
                if len(payload) < size:
                    break
        except OSError:
            pass
        finally:
            with contextlib.suppress(RuntimeError):
                self._loop.call_soon_threadsafe(self.reader.feed_eof)

    async def write(self, data: bytes) -> None:
        try:
            await asyncio.to_thread(self.raw.sendall, data)
        except OSError as exc:
            raise BackendError("The container's shell is gone.") from exc

    async def close_input(self) -> None:
        with contextlib.suppress(OSError):
            self.raw.shutdown(socket.SHUT_WR)

    async def close(self) -> None:
        with contextlib.suppress(OSError):
            self.raw.shutdown(socket.SHUT_RDWR)
        with contextlib.suppress(OSError):
            self.raw.close()
        await asyncio.to_thread(self._thread.join, 2)


class DockerBackend(RemoteBackend):
    name = "docker"

    def __init__(self, config: Config, cwd: Path, home: Home) -> None:
        self.config = config
        self.cwd = cwd
        self.home = home
        self.image = str(config.terminal.docker_image).strip()
        self.client: Any = None
        self.container: Any = None
        self.work_dir = WORK_DIR

    @property
    def label(self) -> str:
        return f"docker {self.image}"

    async def open(self) -> None:
        await asyncio.to_thread(self._open)

    def _open(self) -> None:
        import docker
        from docker.errors import DockerException, ImageNotFound

        try:
            self.client = docker.from_env(timeout=int(float(self.config.terminal.connect_timeout)))
            self.client.ping()
        except DockerException as exc:
            raise BackendError(
                f"The docker daemon cannot be reached ({exc}); start it (`sudo dockerd`, or the docker "
                "service), or set terminal.backend: local."
            ) from exc
        try:
            self.client.images.get(self.image)
        except ImageNotFound:
            raise BackendError(
                f"The docker image {self.image} is not here and hws does not pull images: "
                f"`docker pull {self.image}` (or build it), then try again."
            ) from None
        try:
            self.container = self.client.containers.run(
                self.image,
                ["sh", "-c", "while :; do sleep 3600; done"],
                detach=True,
                init=True,
                network_mode="none",
                cap_drop=["ALL"],
                security_opt=["no-new-privileges"],
                user=f"{os.getuid()}:{os.getgid()}",
                volumes=protected_mounts(self.cwd, self.home.root),
                working_dir=str(self.cwd.resolve()),
                environment={**QUIET_ENV, "HOME": "/tmp"},
                labels={"hws": "terminal"},
                name=f"hws-{secrets.token_hex(5)}",
            )
            self.container.exec_run(["mkdir", "-p", WORK_DIR])
        except DockerException as exc:
            raise BackendError(f"A container of {self.image} could not start: {exc}") from exc

    def _exec_socket(self, argv: list[str], stdin: bool) -> tuple[str, Any]:
        api = self.client.api
        created = api.exec_create(
            self.container.id, argv, stdin=stdin, stdout=True, stderr=True, tty=False, workdir=str(self.cwd)
        )
        return created["Id"], api.exec_start(created["Id"], socket=True)

    async def start(self, script: str) -> Channel:
        argv = ["bash", "--norc", "--noprofile", "-c", quiet_exports() + script]
        try:
            _exec_id, sock = await asyncio.to_thread(self._exec_socket, argv, True)
        except Exception as exc:
            raise BackendError(f"The container's shell could not start: {exc}") from exc
        return DockerChannel(sock)

    async def stream(self, script: str) -> Channel:
        _exec_id, sock = await asyncio.to_thread(self._exec_socket, ["sh", "-c", script], True)
        return DockerChannel(sock)

    async def run(self, script: str, data: bytes = b"") -> tuple[int, bytes]:
        exec_id, sock = await asyncio.to_thread(self._exec_socket, ["sh", "-c", script], True)
        channel = DockerChannel(sock)
        try:
            if data:
                await channel.write(data)
            await channel.close_input()
            out = bytearray()
            async with asyncio.timeout(RUN_TIMEOUT):
                while chunk := await channel.read():
                    out += chunk
        finally:
            await channel.close()
        inspected = await asyncio.to_thread(self.client.api.exec_inspect, exec_id)
        return int(inspected.get("ExitCode") or 0), bytes(out)

    async def close(self) -> None:
        container = self.container
        self.container = None
        if container is None:
            return
        with contextlib.suppress(Exception):
            if self.config.terminal.docker_keep:
                await asyncio.to_thread(container.stop, timeout=1)
            else:
                await asyncio.to_thread(container.remove, force=True)
        with contextlib.suppress(Exception):
            await asyncio.to_thread(self.client.close)
