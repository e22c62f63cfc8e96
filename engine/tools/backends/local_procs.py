"""The processes under one local process, read from /proc, numbered as they see themselves.

A sandboxed shell lives in its own PID namespace: it says `$$` is 3 while the host calls it 48121.
/proc/PID/status lists each process's numbers in every namespace it belongs to (NSpid, NSpgid), so
the tree under the sandbox can be shown in the sandbox's numbers and signalled with the host's.
"""

from __future__ import annotations

import os
from dataclasses import dataclass


@dataclass(frozen=True)
class HostProc:
    host_pid: int
    host_pgid: int
    pid: int  # in the innermost namespace
    ppid: int  # in the innermost namespace (0: the parent is outside it)
    pgid: int  # in the innermost namespace


def _stat_table() -> dict[int, int]:
    """host pid -> host parent pid, for every process."""
    parents: dict[int, int] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields and fields[0] != b"Z":  # a zombie is gone; only its parent's wait is left
            parents[int(entry.name)] = int(fields[1])
    return parents


def _status_numbers(pid: int) -> tuple[list[int], list[int]] | None:
    """(NSpid, NSpgid) of `pid`, outermost first."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return None
    found: dict[str, list[int]] = {}
    for line in lines:
        key, _, value = line.partition(":")
        if key in ("NSpid", "NSpgid"):
            found[key] = [int(v) for v in value.split()]
    if "NSpid" not in found or "NSpgid" not in found:
        return None
    return found["NSpid"], found["NSpgid"]


def processes_under(root: int) -> list[HostProc]:
    """Every live process below host pid `root` (not `root` itself), in its own namespace's numbers."""
    parents = _stat_table()
    children: dict[int, list[int]] = {}
    for pid, parent in parents.items():
        children.setdefault(parent, []).append(pid)
    found: list[tuple[int, int]] = []  # (host pid, host parent)
    stack = list(children.get(root, ()))
    while stack:
        pid = stack.pop()
        found.append((pid, parents[pid]))
        stack.extend(children.get(pid, ()))
    numbers = {pid: _status_numbers(pid) for pid, _ in found}
    inner = {pid: n[0][-1] for pid, n in numbers.items() if n is not None}
    procs = []
    for pid, parent in found:
        n = numbers.get(pid)
        if n is None:
            continue
        ns_pids, ns_pgids = n
        ppid = inner.get(parent, 0) if len(ns_pids) == len((numbers.get(parent) or ([], []))[0]) else 0
        procs.append(HostProc(pid, ns_pgids[0], ns_pids[-1], ppid, ns_pgids[-1]))
    return procs
