"""What the `ssh` and `docker` backends share: processes, signals and fifos through short `sh` scripts.

Each remote backend only has to run a script (`run`, with optional input) and stream one (`stream`);
the rest is the same on any Linux host or container with a POSIX shell: /proc is read for the
process tree, `kill` sends signals, `mkfifo` makes the fifos, `cat` carries their bytes.
"""

from __future__ import annotations

import signal
from abc import abstractmethod

from engine.tools.backends.base import Backend, BackendError, Channel, Proc
from engine.tools.command_env import QUIET_ENV
from engine.tools.persistent_shell import quoted

# Every process: "pid ppid pgid" (field 3 of /proc/PID/stat is the state; zombies are left out).
PROCESSES = r"""for d in /proc/[0-9]*; do
  IFS= read -r l < "$d/stat" 2>/dev/null || continue
  r=${l##*) }; set -- $r
  [ "$1" = Z ] || echo "${d#/proc/} $2 $3"
done"""


def quiet_exports() -> str:
    """The settings that keep commands from waiting on a pager, as shell exports."""
    return "".join(f"export {name}={quoted(value)}; " for name, value in QUIET_ENV.items())


class RemoteBackend(Backend):
    """A backend reached through scripts: `run` one to its end, or `stream` one's output."""

    work_dir = ""  # where the fifos live there, made by `open`

    @abstractmethod
    async def run(self, script: str, data: bytes = b"") -> tuple[int, bytes]:
        """(exit status, stdout and stderr) of `sh -c script` there, with `data` on its input."""

    @abstractmethod
    async def stream(self, script: str) -> Channel:
        """A channel running `sh -c script` there."""

    async def processes(self) -> list[Proc]:
        _status, out = await self.run(PROCESSES)
        found = []
        for line in out.decode(errors="replace").splitlines():
            fields = line.split()
            if len(fields) == 3 and all(f.isdigit() for f in fields):
                found.append(Proc(int(fields[0]), int(fields[1]), int(fields[2])))
        return found

    async def signal(self, targets: list[int], signal_number: int, *, groups: bool) -> None:
        if not targets:
            return
        name = signal.Signals(signal_number).name.removeprefix("SIG")
        numbers = " ".join(f"-{t}" if groups else str(t) for t in targets)
        await self.run(f"kill -s {name} -- {numbers} 2>/dev/null; true")

    def _fifo(self, name: str, suffix: str) -> str:
        return f"{self.work_dir}/{name}.{suffix}"

    async def make_fifos(self, name: str) -> tuple[str, str]:
        paths = (self._fifo(name, "in"), self._fifo(name, "out"))
        status, out = await self.run(f"mkfifo -m 600 {quoted(paths[0])} {quoted(paths[1])}")
        if status != 0:
            raise BackendError(f"The fifos of a background process could not be made: {out.decode().strip()}")
        return paths

    async def follow(self, path: str) -> Channel:
        return await self.stream(f"exec cat {quoted(path)}")

    async def feed(self, path: str, data: bytes) -> bool:
        # Opened read-write, the fifo never blocks the writer; the process holds it open while it runs.
        status, _ = await self.run(f"[ -p {quoted(path)} ] && exec cat 1<>{quoted(path)}", data)
        return status == 0

    async def remove_fifos(self, name: str) -> None:
        await self.run(f"rm -f {quoted(self._fifo(name, 'in'))} {quoted(self._fifo(name, 'out'))}")
