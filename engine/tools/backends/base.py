"""What every place a terminal command can run offers: a long-lived shell, its processes, and fifos.

A backend runs the persistent shell's holder (a loop that starts a fresh bash whenever it is asked)
as one channel: bytes in, stdout and stderr out. Besides the shell it can list the processes under
the shell, signal them, and carry a background process's input and output through a pair of fifos
in its work folder, without going through the (possibly busy) shell.
"""

from __future__ import annotations

import asyncio
import contextlib
from abc import ABC, abstractmethod
from dataclasses import dataclass

from engine.tools.errors import ToolError


class BackendError(ToolError):
    """The backend cannot be reached or cannot start what was asked; the message says why and what to do.

    `output` is what the failed program printed, when there is any (bwrap's own complaint, say).
    """

    def __init__(self, message: str, output: str = "") -> None:
        super().__init__(message)
        self.output = output


@dataclass(frozen=True)
class Proc:
    """A process as the backend numbers it."""

    pid: int
    ppid: int
    pgid: int


class Channel(ABC):
    """A program running on the backend: its standard input, and its output (stderr merged) as a stream."""

    def __init__(self) -> None:
        self.reader = asyncio.StreamReader(limit=2**24)

    @abstractmethod
    async def write(self, data: bytes) -> None:
        """Send `data` to its standard input (BackendError when it is gone)."""

    @abstractmethod
    async def close_input(self) -> None:
        """End its standard input."""

    @abstractmethod
    async def close(self) -> None:
        """Stop it and release what carries it."""

    async def read(self, size: int = 65536) -> bytes:
        """The next bytes of output; b"" once it has ended."""
        return await self.reader.read(size)


class Backend(ABC):
    """One place commands run. `open` connects (or starts a container); `close` undoes it."""

    name = ""

    @property
    @abstractmethod
    def label(self) -> str:
        """Where commands run, in a few words (`local`, `ssh dev@box`, `docker python:3.12`)."""

    @abstractmethod
    async def open(self) -> None:
        """Connect, or start what the shell runs in; raises BackendError with a sentence."""

    @abstractmethod
    async def start(self, script: str) -> Channel:
        """Run `bash -c script` there with the session's environment, in the working folder."""

    @abstractmethod
    async def processes(self) -> list[Proc]:
        """Every process under the shell's holder (remote backends may list more)."""

    @abstractmethod
    async def signal(self, targets: list[int], signal_number: int, *, groups: bool) -> None:
        """Send a signal to processes, or to process groups when `groups` (numbers as `processes` gives)."""

    @abstractmethod
    async def make_fifos(self, name: str) -> tuple[str, str]:
        """(input, output) fifos for a background process, as paths the shell can open."""

    @abstractmethod
    async def follow(self, path: str) -> Channel:
        """A channel whose output is what a writer puts into the fifo at `path` (open before the writer)."""

    @abstractmethod
    async def feed(self, path: str, data: bytes) -> bool:
        """Write `data` into the fifo at `path`; False when nobody reads it any more."""

    @abstractmethod
    async def remove_fifos(self, name: str) -> None:
        """Remove a background process's fifos (best effort)."""

    @abstractmethod
    async def close(self) -> None:
        """Disconnect, or remove the container; best effort and never raises."""


async def drain(channel: Channel, seconds: float) -> bytes:
    """What `channel` prints until it ends (or `seconds` pass)."""
    out = bytearray()
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(seconds):
            while chunk := await channel.read():
                out += chunk
    return bytes(out)
