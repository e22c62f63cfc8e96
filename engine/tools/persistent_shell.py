"""One long-lived bash per session: commands go in with a unique end marker that carries the exit status.

The backend runs a holder: a loop that starts a fresh `bash` each time it reads a line, and prints a
marker with the status when that bash ends. A command is sent as `eval 'COMMAND' </dev/null 2>&1`
followed by a call to a read-only function that prints `__HWS_END_<nonce> STATUS JOBS|PWD`; the
output up to the marker is the command's. So `cd`, `export`, `source venv/bin/activate` and
functions persist, a command that ends the shell (`exit`) is noticed at once, and a new shell takes
its place with the model told what was lost.

Job control (`set -m`) puts every command's processes in a process group of their own. A timeout
first tells the shell to skip whatever is left of the command (SIGUSR1, whose trap sets a DEBUG trap
until the end marker), then signals those groups (INT, then KILL), never the shell; only a command
that still does not give the shell back (a loop of builtins) costs the shell itself, which is then
restarted. Jobs a command left
running with `&` are stopped when it ends, as they were when every command had its own shell.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import secrets
import signal
import time
from dataclasses import dataclass

from engine.tools.backends.base import Backend, BackendError, Channel, Proc, drain
from engine.tools.capture import Capture

START_TIMEOUT = 30.0  # seconds a new shell may take to say it is ready (bwrap, an ssh channel, docker exec)
END = "__HWS_END_"
_TRACE = re.compile(r"(?m)^\++ __hws_end -?\d+ __HWS_END_ [0-9a-f]{16}\n?")
MARKER_ROOM = 200  # bytes kept back while scanning for a marker that may straddle two reads
INTERRUPT_EVERY = 0.2  # seconds between repeats of the signal that stops a timed-out command


def without_trace(output: str) -> str:
    """`output` without the line `set -x` prints for the end-of-command call."""
    if "__hws_end" not in output:
        return output
    return _TRACE.sub("", output)


def quoted(text: str) -> str:
    """`text` as one single-quoted shell word."""
    return "'" + text.replace("'", "'\\''") + "'"


def holder_script(nonce: str) -> str:
    return (
        f"exec 2>/dev/null; while IFS= read -r __hws_go; do bash --norc --noprofile 2>&1; "
        f"printf '%s %d\\n' '__HWS_EXITED_{nonce}' \"$?\"; done"
    )


# Sent to every new bash: its stderr joins stdout, job control is on, a command interrupted by SIGINT
# does not end the shell (non-interactive bash otherwise kills itself too), SIGUSR1 (sent to the shell when
# a command times out) makes a DEBUG trap skip whatever is left of the command (`a; b` does not go on to
# `b` once `a` was stopped), and the end-of-command function (read-only, so a command cannot replace it)
# lifts that trap, stops `&` jobs and prints the marker.
INIT = r"""exec 2>&1
set -m
trap : INT
__hws_stop() {
  __hws_stopping=1 __hws_xd=
  builtin shopt -q extdebug && __hws_xd=1
  builtin shopt -s extdebug
  builtin trap '[[ ${FUNCNAME[0]-} == __hws_end || $BASH_COMMAND == "__hws_end "* ]]' DEBUG
}
readonly -f __hws_stop
trap __hws_stop USR1
__hws_end() {
  local __hws_rc=$1 __hws_o=$- __hws_j __hws_k= IFS=$' \t\n'
  set +eux
  if [[ -n ${__hws_stopping-} ]]; then
    builtin trap - DEBUG
    [[ -n $__hws_xd ]] || builtin shopt -u extdebug
    __hws_stopping=
  fi
  for __hws_j in $(builtin jobs -p); do
    builtin kill -TERM -- "-$__hws_j" 2>/dev/null && __hws_k="$__hws_k $__hws_j"
  done
  builtin disown -a 2>/dev/null
  builtin printf '%s%s %d%s|%s\n' "$2" "$3" "$__hws_rc" "$__hws_k" "$PWD"
  case $__hws_o in *e*) set -e ;; esac
  case $__hws_o in *u*) set -u ;; esac
  case $__hws_o in *x*) set -x ;; esac
  return 0
}
readonly -f __hws_end
"""


@dataclass
class ShellRun:
    """What one command in the persistent shell came to."""

    exit_code: int | None
    output: bytes
    duration_s: float
    timed_out: bool = False
    stopped_jobs: int = 0  # jobs left running with `&`, stopped when the command ended
    lost_shell: str = ""  # why the shell was replaced during this command ("" when it was not)
    cwd: str = ""


@dataclass
class _Ending:
    kind: str  # end | exited | eof
    line: str = ""


class PersistentShell:
    """The session's shell on one backend. Calls are serialised: one command at a time."""

    def __init__(self, backend: Backend, start_cwd: str, *, kill_grace: float, restart_grace: float) -> None:
        self.backend = backend
        self.start_cwd = start_cwd
        self.kill_grace = kill_grace
        self.restart_grace = restart_grace
        self.lock = asyncio.Lock()
        self.channel: Channel | None = None
        self.pid = 0  # the current bash, as the backend numbers it
        self.cwd = start_cwd
        self.background_groups: set[int] = set()  # process groups of background processes (never interrupted)
        self._holder_nonce = ""
        self._leftover = b""
        self._tasks: set[asyncio.Future[None]] = set()

    @property
    def started(self) -> bool:
        return self.channel is not None and self.pid > 0

    # ── starting ─────────────────────────────────────────────────────────────────────────────────

    async def ensure(self) -> None:
        """Start the shell if it is not running (raises BackendError when it cannot start)."""
        if not self.started:
            await self._start_bash(new_channel=self.channel is None)

    async def _start_bash(self, *, new_channel: bool) -> None:
        if new_channel:
            if self.channel is not None:
                await self.channel.close()
            self._holder_nonce = secrets.token_hex(8)
            self.channel = await self.backend.start(holder_script(self._holder_nonce))
        assert self.channel is not None
        ready = f"__HWS_READY_{secrets.token_hex(8)}"
        go_to = f"cd -- {quoted(self.start_cwd)} 2>/dev/null\n" if self.start_cwd else ""
        script = f"go\n{INIT}{go_to}builtin printf '%s %d %s\\n' {ready} $$ \"$PWD\"\n"
        self.pid = 0
        try:
            await self.channel.write(script.encode())
        except BackendError as exc:  # it ended at once: what it printed says why (bwrap's complaint)
            said = (await drain(self.channel, START_TIMEOUT)).decode("utf-8", errors="replace").strip()[-500:]
            await self.channel.close()
            self.channel = None
            raise BackendError(
                f"The shell could not start on {self.backend.label}: {said or exc}", said
            ) from exc
        said = bytearray()
        deadline = time.monotonic() + START_TIMEOUT
        while not _line_after(said, ready.encode()):
            left = deadline - time.monotonic()
            try:
                chunk = await asyncio.wait_for(self.channel.read(), max(left, 0.001))
            except TimeoutError:
                chunk = None
            if not chunk:
                await self.channel.close()
                self.channel = None
                shown = bytes(said).decode("utf-8", errors="replace").strip()[-500:]
                why = f": {shown}" if shown else ""
                raise BackendError(f"The shell could not start on {self.backend.label}{why}", shown)
            said += chunk
        line = _line_after(said, ready.encode())
        _marker, pid, cwd = [*line.split(" ", 2), "", ""][:3]
        self.pid = int(pid)
        self.start_cwd = self.start_cwd or cwd
        self.cwd = cwd or self.start_cwd
        self._leftover = b""

    # ── running a command ────────────────────────────────────────────────────────────────────────

    async def run(self, command: str, timeout: float, capture: Capture) -> ShellRun:
        """Run `command` in the shell (start it first if needed); the caller holds `lock`."""
        await self.ensure()
        assert self.channel is not None
        token = secrets.token_hex(8)
        nonce = f"{END}{token}"
        # The end call has a line of its own: an interrupted command abandons the rest of its line (as
        # ctrl+c does). It does not start with `{`, which bash misreads after a syntax error inside eval.
        # The marker goes in two halves, so that `set -x` tracing the call does not print it whole.
        text = f"builtin eval {quoted(command)} </dev/null 2>&1\n__hws_end $? {END} {token} 2>/dev/null\n"
        started = time.perf_counter()
        scan = _Scan(self.channel, capture, nonce.encode(), f"__HWS_EXITED_{self._holder_nonce}".encode())
        if self._leftover:
            scan.feed(self._leftover)
            self._leftover = b""
        try:
            await self.channel.write(text.encode())
        except BackendError:
            await self._replace_channel()
            return ShellRun(None, b"", 0.0, lost_shell="The shell had ended before the command was sent.")
        run = ShellRun(None, b"", 0.0)
        try:
            ending = await scan.until(timeout)
            if ending is None:
                run.timed_out = True
                ending = await self._stop_command(scan)
        except asyncio.CancelledError:
            await asyncio.shield(self._stop_after_cancel(scan))
            raise
        await self._settle(ending, run, scan)
        run.duration_s = time.perf_counter() - started
        return run

    async def _settle(self, ending: _Ending, run: ShellRun, scan: _Scan) -> None:
        self._leftover = scan.rest
        if ending.kind == "end":
            status, _, cwd = ending.line.partition("|")
            fields = status.split()
            run.exit_code = int(fields[0]) if fields and fields[0].lstrip("-").isdigit() else None
            run.stopped_jobs = len(fields) - 1
            if run.stopped_jobs:
                task = asyncio.ensure_future(self._kill_later([int(f) for f in fields[1:] if f.isdigit()]))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)
            self.cwd = run.cwd = cwd or self.cwd
            return
        if ending.kind == "exited":
            code = ending.line.strip()
            run.exit_code = int(code) if code.lstrip("-").isdigit() else None
            run.lost_shell = (
                f"The command ended the shell (exit {code})."
                if not run.timed_out
                else "The command did not stop when it was killed, so its shell was ended."
            )
            self.pid = 0
            await self._start_bash(new_channel=False)
        else:
            run.lost_shell = "The shell ended unexpectedly."
            await self._replace_channel()
        run.cwd = self.cwd

    async def _replace_channel(self) -> None:
        self.pid = 0
        if self.channel is not None:
            await self.channel.close()
        self.channel = None
        await self._start_bash(new_channel=True)

    async def _kill_later(self, groups: list[int]) -> None:
        """`&` jobs got SIGTERM when their command ended; whatever ignores it gets SIGKILL."""
        await asyncio.sleep(self.kill_grace)
        with contextlib.suppress(Exception):
            await self.backend.signal(groups, signal.SIGKILL, groups=True)

    async def _stop_command(self, scan: _Scan) -> _Ending:
        """After a timeout: interrupt the command's process groups (SIGINT, as ctrl+c does), then KILL
        them, then end the shell. Each is repeated while it waits, so the rest of a list (`a; b`) is
        stopped as it starts."""
        with contextlib.suppress(Exception):  # first: the rest of the command is skipped, not run
            await self.backend.signal([self.pid], signal.SIGUSR1, groups=False)
        for number, seconds in ((signal.SIGINT, self.kill_grace), (signal.SIGKILL, self.restart_grace)):
            deadline = time.monotonic() + seconds
            while True:
                await self.interrupt(number)
                ending = await scan.until(min(INTERRUPT_EVERY, max(deadline - time.monotonic(), 0)))
                if ending is not None:
                    return ending
                if time.monotonic() >= deadline:
                    break
        with contextlib.suppress(Exception):
            await self.backend.signal([self.pid], signal.SIGKILL, groups=False)
        ending = await scan.until(self.restart_grace)
        return ending if ending is not None else _Ending("eof")

    async def _stop_after_cancel(self, scan: _Scan) -> None:
        """The turn was interrupted mid-command: stop it the way a timeout does and keep the shell usable."""
        try:
            ending = await self._stop_command(scan)
            await self._settle(ending, ShellRun(None, b"", 0.0, timed_out=True), scan)
        except Exception:  # the next command starts a fresh shell
            self.pid = 0
            if self.channel is not None:
                await self.channel.close()
            self.channel = None

    async def interrupt(self, number: int) -> None:
        """Signal the process groups under the shell, except the background processes'."""
        if not self.pid:
            return
        procs = await self.backend.processes()
        groups = foreground_groups(procs, self.pid, self.background_groups)
        await self.backend.signal(sorted(groups), number, groups=True)

    # ── the shell itself ─────────────────────────────────────────────────────────────────────────

    async def reset(self) -> None:
        """End this bash and start a fresh one in the starting folder (background processes go on)."""
        if not self.started:
            await self.ensure()
            return
        assert self.channel is not None
        scan = _Scan(self.channel, Capture(0, 0), b"\x00never", f"__HWS_EXITED_{self._holder_nonce}".encode())
        with contextlib.suppress(Exception):
            await self.backend.signal([self.pid], signal.SIGKILL, groups=False)
        ending = await scan.until(self.restart_grace + 5)
        self.pid = 0
        if ending is not None and ending.kind == "exited":
            await self._start_bash(new_channel=False)
        else:
            await self._replace_channel()

    async def close(self) -> None:
        if self.channel is not None:
            with contextlib.suppress(Exception):
                await self.channel.close()
        self.channel = None
        self.pid = 0


def _line_after(data: bytearray, marker: bytes) -> str:
    """The whole line that starts with `marker` in `data` ("" until its newline has arrived)."""
    at = data.find(marker)
    newline = data.find(b"\n", at) if at >= 0 else -1
    return bytes(data[at:newline]).decode("utf-8", errors="replace") if newline >= 0 else ""


def foreground_groups(procs: list[Proc], shell_pid: int, background: set[int]) -> set[int]:
    """The process groups of everything below the shell, except its own and the background processes'."""
    by_pid = {p.pid: p for p in procs}
    shell = by_pid.get(shell_pid)
    if shell is None:
        return set()
    children: dict[int, list[Proc]] = {}
    for proc in procs:
        children.setdefault(proc.ppid, []).append(proc)
    holder = by_pid.get(shell.ppid)
    spared = {shell.pgid, *background} | ({holder.pgid} if holder else set())
    groups: set[int] = set()
    stack = [p for p in children.get(shell_pid, ()) if p.pgid not in background]
    while stack:
        proc = stack.pop()
        if proc.pgid not in spared:
            groups.add(proc.pgid)
        stack.extend(children.get(proc.pid, ()))
    return groups


class _Scan:
    """Reads the shell's output into a capture until the end marker, the holder's marker, or EOF."""

    def __init__(self, channel: Channel, capture: Capture, end: bytes, exited: bytes) -> None:
        self.channel = channel
        self.capture = capture
        self.markers = ((end, "end"), (exited, "exited"))
        self.pending = bytearray()
        self.rest = b""
        self.done: _Ending | None = None

    def feed(self, chunk: bytes) -> None:
        self.pending += chunk

    def _found(self) -> _Ending | None:
        hits = [(self.pending.find(m), m, kind) for m, kind in self.markers]
        hits = [h for h in hits if h[0] >= 0]
        if not hits:
            keep = MARKER_ROOM
            if len(self.pending) > keep:
                self.capture.add(bytes(self.pending[:-keep]))
                del self.pending[:-keep]
            return None
        at, marker, kind = min(hits)
        newline = self.pending.find(b"\n", at)
        if newline < 0:
            return None
        self.capture.add(bytes(self.pending[:at]))
        line = bytes(self.pending[at + len(marker) : newline]).decode("utf-8", errors="replace").strip()
        self.rest = bytes(self.pending[newline + 1 :])
        self.pending.clear()
        return _Ending(kind, line)

    async def until(self, seconds: float) -> _Ending | None:
        """The ending, or None when `seconds` pass first."""
        if self.done is not None:
            return self.done
        deadline = time.monotonic() + seconds
        while True:
            found = self._found()
            if found is not None:
                self.done = found
                return found
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            try:
                chunk = await asyncio.wait_for(self.channel.read(), left)
            except TimeoutError:
                return None
            if not chunk:
                self.capture.add(bytes(self.pending))
                self.pending.clear()
                self.done = _Ending("eof")
                return self.done
            self.pending += chunk
