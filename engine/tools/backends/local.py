"""The `local` backend: this machine, inside the sandbox (engine/tools/sandbox.py) when it starts.

The shell's holder runs under one bwrap for the whole session, so the shell and every background
process share its PID and network namespaces: a server started in the background answers a `curl`
from the shell on the sandbox's own loopback. The fifos of background processes live in the session's
folder under the home, which the sandbox sees read-only; a fifo stays writable through a read-only
mount, so nothing in the home becomes writable for them.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import errno
import os
import shutil
import signal
import threading
import time
from pathlib import Path

from engine.config import Config
from engine.home import Home
from engine.tools.backends.base import Backend, BackendError, Channel, Proc
from engine.tools.backends.local_procs import HostProc, processes_under
from engine.tools.command_env import command_environment
from engine.tools.sandbox import SandboxStatus, bwrap_argv

FEED_SECONDS = 5.0  # how long writing to a background process's input may wait for it to read
# Process groups of the shells this process started and has not closed: killed when it exits, so no
# sandbox or shell outlives hws (a session that ended normally has closed its own already).
_LIVE_GROUPS: set[int] = set()


def kill_leftovers() -> None:
    """Kill every local shell still running, with everything under it (its sandbox, its jobs)."""
    for group in list(_LIVE_GROUPS):
        kill_tree(group)
        _LIVE_GROUPS.discard(group)


def kill_tree(root: int) -> None:
    """SIGKILL the process group of `root` and of every process below it (background jobs have their own)."""
    with contextlib.suppress(OSError):
        groups = {p.host_pgid for p in processes_under(root)}
        for group in groups:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(group, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(root, signal.SIGKILL)


atexit.register(kill_leftovers)


def bash() -> str:
    return shutil.which("bash") or "/bin/bash"


class ProcessChannel(Channel):
    """A local child process in its own process group."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        super().__init__()
        self.process = process
        assert process.stdout is not None
        self.reader = process.stdout

    async def write(self, data: bytes) -> None:
        stdin = self.process.stdin
        if stdin is None or stdin.is_closing():
            raise BackendError("The shell's input is closed.")
        try:
            stdin.write(data)
            await stdin.drain()
        except (BrokenPipeError, ConnectionResetError) as exc:
            raise BackendError("The shell is gone.") from exc

    async def close_input(self) -> None:
        if self.process.stdin is not None and not self.process.stdin.is_closing():
            self.process.stdin.close()

    async def close(self) -> None:
        await self.close_input()
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)
        _LIVE_GROUPS.discard(self.process.pid)
        with contextlib.suppress(TimeoutError, ProcessLookupError):
            await asyncio.wait_for(self.process.wait(), 5)
        transport = getattr(self.process, "_transport", None)
        if transport is not None:
            transport.close()


class FifoChannel(Channel):
    """What a writer puts into a local fifo, read by a thread (a blocking open waits for the writer)."""

    def __init__(self, path: str) -> None:
        super().__init__()
        self.path = path
        self._loop = asyncio.get_running_loop()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._pump, name=f"fifo {Path(path).name}", daemon=True)
        self._thread.start()

    def _pump(self) -> None:
        try:
            with open(self.path, "rb", buffering=0) as handle:
                while not self._stop.is_set():
                    chunk = handle.read(65536)
                    if not chunk:
                        break
                    self._loop.call_soon_threadsafe(self.reader.feed_data, chunk)
        except OSError:
            pass
        finally:
            with contextlib.suppress(RuntimeError):  # the loop is closed: nobody reads any more
                self._loop.call_soon_threadsafe(self.reader.feed_eof)

    async def write(self, data: bytes) -> None:
        raise BackendError("A followed fifo takes no input.")

    async def close_input(self) -> None:
        pass

    async def close(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            # A thread still waiting in open() for a writer that never came: be that writer, once.
            with contextlib.suppress(OSError):
                os.close(os.open(self.path, os.O_WRONLY | os.O_NONBLOCK))
            await asyncio.to_thread(self._thread.join, 2)


class LocalBackend(Backend):
    """This machine: the shell under bwrap when the sandbox starts, else a plain bash."""

    name = "local"

    def __init__(self, home: Home, config: Config, cwd: Path, sandbox: SandboxStatus, fifo_dir: Path) -> None:
        self.home = home
        self.config = config
        self.cwd = cwd
        self.sandbox = sandbox
        self.fifo_dir = fifo_dir
        self._roots: list[int] = []  # host pids of the channels started (the holder's bwrap or bash)

    @property
    def label(self) -> str:
        return "local" if self.sandbox.active else "local, no sandbox"

    async def open(self) -> None:
        pass

    def environment(self) -> dict[str, str]:
        if self.sandbox.active:
            return command_environment(self.config, os.environ, TMPDIR="/tmp")
        return command_environment(self.config, os.environ)

    def argv(self, script: str, *, network: bool = False) -> list[str]:
        """The command line of `bash -c script`, under bwrap when the sandbox is active."""
        command = [bash(), "--norc", "--noprofile", "-c", script]
        if not self.sandbox.active:
            return command
        home = os.environ.get("HOME")
        prefix = bwrap_argv(
            self.sandbox.binary,
            self.cwd,
            self.home.root,
            network=network,
            user_home=Path(home) if home else None,
        )
        return [*prefix, *command]

    async def start(self, script: str) -> Channel:
        if not self.cwd.is_dir():
            raise BackendError(f"The working directory {self.cwd} no longer exists; nothing was run.")
        process = await asyncio.create_subprocess_exec(
            *self.argv(script),
            cwd=self.cwd,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,
            env=self.environment(),
        )
        self._roots.append(process.pid)
        _LIVE_GROUPS.add(process.pid)
        return ProcessChannel(process)

    def _host_processes(self) -> list[HostProc]:
        found: list[HostProc] = []
        for root in self._roots:
            found += processes_under(root)
        return found

    async def processes(self) -> list[Proc]:
        return [Proc(p.pid, p.ppid, p.pgid) for p in await asyncio.to_thread(self._host_processes)]

    async def signal(self, targets: list[int], signal_number: int, *, groups: bool) -> None:
        if not targets:
            return
        procs = await asyncio.to_thread(self._host_processes)
        wanted = set(targets)
        for proc in procs:
            if groups and proc.pgid in wanted:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(proc.host_pgid, signal_number)
            elif not groups and proc.pid in wanted:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(proc.host_pid, signal_number)

    async def make_fifos(self, name: str) -> tuple[str, str]:
        self.fifo_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        paths = (self.fifo_dir / f"{name}.in", self.fifo_dir / f"{name}.out")
        for path in paths:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
            os.mkfifo(path, 0o600)
        return str(paths[0]), str(paths[1])

    async def follow(self, path: str) -> Channel:
        return FifoChannel(path)

    async def feed(self, path: str, data: bytes) -> bool:
        return await asyncio.to_thread(_feed, path, data)

    async def remove_fifos(self, name: str) -> None:
        for suffix in (".in", ".out"):
            with contextlib.suppress(OSError):
                (self.fifo_dir / f"{name}{suffix}").unlink()

    async def close(self) -> None:
        for root in self._roots:
            await asyncio.to_thread(kill_tree, root)
            _LIVE_GROUPS.discard(root)
        self._roots.clear()


def _feed(path: str, data: bytes) -> bool:
    """Write `data` into a fifo somebody reads; give up after FEED_SECONDS of it not reading."""
    deadline = time.monotonic() + FEED_SECONDS
    while True:
        try:
            fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
            break
        except OSError as exc:
            if exc.errno == errno.ENXIO and time.monotonic() < deadline:
                time.sleep(0.02)  # a process started a moment ago may not have opened its input yet
                continue
            if exc.errno in (errno.ENXIO, errno.ENOENT):
                return False
            raise
    try:
        view = memoryview(data)
        while view:
            try:
                written = os.write(fd, view)
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise BackendError(
                        f"The process did not read its input for {FEED_SECONDS:g}s; "
                        f"{len(data) - len(view):,} of {len(data):,} bytes were written."
                    ) from None
                time.sleep(0.01)
                continue
            except BrokenPipeError:
                return False
            view = view[written:]
    finally:
        os.close(fd)
    return True
