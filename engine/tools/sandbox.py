"""The terminal's sandbox: bubblewrap's command line, a probe of whether it starts, and its refusals.

A sandboxed command sees the whole file system read-only except the working folder and a private
`/tmp`; a fresh `/proc` and `/dev`; no network unless asked for; no capabilities. Whatever the
working folder is, the home's control files stay read-only and `.env`/`auth.json` cannot be read;
when the working folder holds the user's home folder, its hidden entries (shell profiles, `~/.ssh`,
`~/.config`) stay read-only and nothing new appears at its top level; shell profiles linked into the
working folder and the project's `.git/hooks` and `.git/config` (which run later, outside) stay
read-only too. Unix sockets under `/run` (a container daemon, the session bus) are masked, since
one would run commands outside.

Each command gets its own PID namespace: when the command exits, is killed, or bwrap dies, every
process it started dies with it, so the terminal's process-group kill still ends everything.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import stat
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from engine.config import Config

BWRAP_ENV = "HWS_BWRAP"  # another bwrap binary (tests point it at a missing one to see the fallback)
INSTALL_HINT = (
    "sudo apt-get install bubblewrap (Fedora: sudo dnf install bubblewrap; Arch: sudo pacman -S bubblewrap)"
)
PROBE_TIMEOUT = 10.0  # seconds the one probe run of bwrap may take

# The home's files the agent must never change from a shell; the first two are not even readable.
SECRET_FILES = (".env", "auth.json")
CONTROL_FILES = (
    *SECRET_FILES,
    "config.yaml",
    "SOUL.md",
    "memories",
    "skills",
    "hws",
    "pending",
    "state.db",
    "state.db-wal",
    "state.db-shm",
    "state.db-journal",
)
# Inside the working folder, what would run later outside the sandbox (git hooks, git's own config).
PROJECT_CONTROL = (".git/hooks", ".git/config")
# The user's files that run later, outside: kept read-only even where a link puts them in the working
# folder (a dotfiles repository).
USER_CONTROL = (
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_logout",
    ".profile",
    ".zshrc",
    ".zshenv",
    ".zprofile",
    ".zlogin",
    ".config/fish/config.fish",
    ".ssh",
    ".ssh/authorized_keys",
    ".ssh/config",
    ".gitconfig",
    ".config/git/config",
)
SOCKET_ROOTS = ("/run", "/var/run")  # where daemons keep their sockets
# Sockets under /run that ordinary commands need and that run nothing: logging, names, users.
SOCKET_ALLOWED = ("/run/systemd/journal", "/run/systemd/resolve", "/run/systemd/userdb", "/run/nscd")
SOCKET_SCAN_DEPTH = 4
SOCKET_SCAN_LIMIT = 5000  # entries looked at under /run at most (a host with thousands of containers)

_NAMESPACES = ("--unshare-pid", "--unshare-ipc", "--die-with-parent", "--new-session", "--cap-drop", "ALL")


@dataclass(frozen=True)
class SandboxStatus:
    """Whether terminal commands run sandboxed, and if not, why."""

    mode: str  # "bubblewrap" | "none" (terminal.sandbox)
    binary: str  # the bwrap that is used ("" when none is found)
    version: str  # "bubblewrap 0.8.0"
    problem: str  # why it cannot start, one sentence ("" when it starts)

    @property
    def active(self) -> bool:
        return self.mode == "bubblewrap" and not self.problem

    @property
    def missing(self) -> bool:
        """The person wants the sandbox but it cannot run here: every command that may write asks."""
        return self.mode == "bubblewrap" and bool(self.problem)

    @property
    def status_text(self) -> str:
        """What the status bar says: nothing while the sandbox works."""
        return "" if self.active else "terminal: no sandbox"


def bwrap_binary() -> str:
    override = os.environ.get(BWRAP_ENV, "").strip()
    if override:
        return override
    return shutil.which("bwrap") or ""


def sandbox_status(config: Config) -> SandboxStatus:
    """The sandbox's state for this config; bwrap itself is probed once per process and binary."""
    mode = str(config.terminal.sandbox)
    if mode != "bubblewrap":
        return SandboxStatus(mode, "", "", "")
    binary = bwrap_binary()
    if not binary:
        return SandboxStatus(mode, "", "", "bwrap is not installed")
    version, problem = probe(binary)
    return SandboxStatus(mode, binary, version, problem)


@functools.lru_cache(maxsize=8)
def probe(binary: str) -> tuple[str, str]:
    """(version, problem) of one real sandboxed run of `true` with `binary`; problem is "" when it ran.

    It can fail where user namespaces are not allowed (some containers, hardened kernels).
    """
    if not Path(binary).is_file() or not os.access(binary, os.X_OK):
        return "", f"bwrap is not installed (no program at {binary})"
    argv = [binary, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
    argv += [*_NAMESPACES, "--unshare-net", "--", "true"]
    try:
        run = subprocess.run(
            argv, capture_output=True, text=True, timeout=PROBE_TIMEOUT, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return "", f"bwrap cannot start here ({exc})"
    if run.returncode != 0:
        said = (run.stderr or run.stdout).strip().splitlines()
        return "", f"bwrap cannot start here ({said[-1] if said else f'exit {run.returncode}'})"
    try:
        shown = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=PROBE_TIMEOUT)
        version = shown.stdout.strip() or "bubblewrap"
    except (OSError, subprocess.TimeoutExpired):
        version = "bubblewrap"
    return version, ""


def bwrap_argv(
    binary: str, cwd: Path, home: Path, *, network: bool, user_home: Path | None = None
) -> list[str]:
    """bwrap's arguments up to and including `--`: the command's argv follows."""
    work = cwd.resolve()
    hermes = home.resolve()
    if user_home is not None and (not user_home.is_dir() or user_home.resolve() == Path("/")):
        user_home = None
    argv = [binary, "--bind" if work == Path("/") else "--ro-bind", "/", "/"]
    argv += ["--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
    tmp = Path("/tmp").resolve()
    # Homes, and the programs a command may call (PATH, this Python), that live under /tmp stay
    # visible, read-only, over the private /tmp.
    for shown in sorted({*(p for p in (user_home, hermes) if p is not None), *_program_folders()}):
        if _within(shown.resolve(), tmp) and shown.exists():
            argv += ["--ro-bind", str(shown.resolve()), str(shown.resolve())]
    if work != Path("/"):
        argv += ["--bind", str(work), str(work)]
    if user_home is not None and _within(user_home.resolve(), work):
        argv += _top_level_read_only(user_home.resolve(), lambda name: name.startswith("."))
    for name in USER_CONTROL if user_home is not None else ():
        argv += _read_only(user_home / name)
    if _within(hermes, work):
        argv += _top_level_read_only(hermes, lambda name: name in CONTROL_FILES)
    for name in PROJECT_CONTROL:
        argv += _read_only(work / name)
    for name in CONTROL_FILES:
        argv += _read_only(hermes / name)
    for name in SECRET_FILES:
        path = hermes / name
        if path.exists():
            argv += ["--ro-bind", os.devnull, str(path.resolve())]
    for socket in _sockets():
        argv += ["--ro-bind", os.devnull, socket]
    argv += list(_NAMESPACES)
    if not network:
        argv.append("--unshare-net")
    return [*argv, "--chdir", str(cwd), "--"]


def _program_folders() -> set[Path]:
    """Where a command finds its programs and what they load: PATH's folders (a `bin` with its
    prefix, as a virtual environment's `lib` sits beside it) and this interpreter's prefixes."""
    folders = {Path(entry) for entry in os.environ.get("PATH", "").split(os.pathsep) if entry}
    prefixes = {
        folder.parent if folder.name == "bin" else folder for folder in folders if folder.is_absolute()
    }
    return prefixes | {Path(sys.prefix), Path(sys.base_prefix)}


def _within(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _read_only(path: Path) -> list[str]:
    if not path.exists():
        return []
    real = str(path.resolve())
    return ["--ro-bind", real, real]


def _top_level_read_only(folder: Path, protected: Callable[[str], bool]) -> list[str]:
    """`folder` read-only (nothing new at its top), its entries writable again except the protected."""
    argv = ["--ro-bind", str(folder), str(folder)]
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return argv
    for entry in entries:
        if protected(entry.name) or entry.is_symlink():
            continue
        if entry.is_dir(follow_symlinks=False) or entry.is_file(follow_symlinks=False):
            argv += ["--bind", entry.path, entry.path]
    return argv


def _sockets() -> list[str]:
    """Unix sockets under /run (and the ssh agent's), masked: each could run commands outside."""
    found: list[str] = []
    for root in sorted({Path(root).resolve() for root in SOCKET_ROOTS}):
        found += _sockets_under(root)
    agent = os.environ.get("SSH_AUTH_SOCK", "")
    if agent and _is_socket(agent) and not _within(Path(agent).resolve(), Path("/tmp").resolve()):
        found.append(str(Path(agent).resolve()))
    return sorted(set(found))


def _sockets_under(root: Path) -> list[str]:
    found: list[str] = []
    seen = 0
    stack = [(str(root), 0)]
    while stack and seen < SOCKET_SCAN_LIMIT:
        folder, depth = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            seen += 1
            if any(_within(Path(entry.path), Path(allowed)) for allowed in SOCKET_ALLOWED):
                continue
            try:
                mode = entry.stat(follow_symlinks=False).st_mode
            except OSError:
                continue
            if stat.S_ISSOCK(mode):
                found.append(entry.path)
            elif stat.S_ISDIR(mode) and depth + 1 < SOCKET_SCAN_DEPTH:
                stack.append((entry.path, depth + 1))
    return found


def _is_socket(path: str) -> bool:
    try:
        return stat.S_ISSOCK(os.stat(path).st_mode)
    except OSError:
        return False


# ── what the sandbox refused, in words the model can act on ──────────────────────────────────────

_READ_ONLY = re.compile(r"Read-only file system|\bEROFS\b")
_DENIED = re.compile(r"Permission denied|\bEACCES\b|Operation not permitted|\bEPERM\b")
_OFFLINE = re.compile(
    r"(?i)network is unreachable|could not resolve|temporary failure in name resolution|"
    r"name or service not known|failed to resolve|name resolution|\bENETUNREACH\b|\bEAI_AGAIN\b|"
    r"getaddrinfo|connection refused|couldn't connect to server|failed to connect to|"
    r"no address associated with hostname|unable to (?:access|connect)"
)


# A failed command that names one of these probably wanted the network (quiet tools say nothing).
_NETWORK_WORDS = re.compile(
    r"://|\b(?:curl|wget|ssh|scp|sftp|rsync|nc|ncat|telnet|ping|dig|nslookup|host|ftp|http|https|"
    r"pip3?|uv|npm|npx|pnpm|yarn|cargo|go|gem|bundle|apt|apt-get|dnf|yum|pacman|brew|docker|podman|"
    r"fetch|clone|pull|push|install|download|urlopen|requests|socket)\b"
)


def refusal_notes(
    output: str, cwd: Path, *, network: bool, command: str = "", failed: bool = False
) -> list[str]:
    """Sentences for what the sandbox probably refused, from the output and, for quiet tools, the command."""
    notes = []
    if output.startswith("bwrap: "):
        notes.append(
            "[sandbox: bwrap could not set up the sandbox for this command, so it did not run. Tell the "
            "user what bwrap said; a command that must run anyway can be asked for with `sandbox: false` "
            "and a `why`.]"
        )
        return notes
    if _READ_ONLY.search(output):
        notes.append(
            f"[sandbox: the file system outside the working folder ({cwd}) is read-only, and so are the "
            "home's control files (config.yaml, SOUL.md, memories/, skills/) and your shell profiles. "
            "Write inside the working folder or /tmp (private to this command); memories and skills have "
            "their own tools. If the command really must write elsewhere, call terminal again with "
            "`sandbox: false` and a `why`: the user is asked every time.]"
        )
    elif _DENIED.search(output):
        notes.append(
            "[sandbox: 'permission denied' may come from the sandbox, which has no privileges and keeps "
            "everything outside the working folder read-only; if the command needs more, call terminal "
            "again with `sandbox: false` and a `why`: the user is asked every time.]"
        )
    if not network and (_OFFLINE.search(output) or (failed and _NETWORK_WORDS.search(command))):
        notes.append(
            "[sandbox: this command ran without network (no DNS, and 127.0.0.1 is the sandbox's own, not "
            "this machine's). If it needs the network, call terminal again with `network: true`: the user "
            "is asked.]"
        )
    return notes


def doctor_line(status: SandboxStatus) -> tuple[bool, str, str]:
    """(ok, message, fix) for `hws doctor`."""
    if status.active:
        return True, f"terminal sandbox: {status.version}, network off by default", ""
    if status.mode != "bubblewrap":
        return (
            False,
            "the terminal sandbox is off (terminal.sandbox: none): commands can write wherever you can, "
            "use the network and read .env",
            "set terminal.sandbox: bubblewrap",
        )
    if "not installed" in status.problem:
        return (
            False,
            f"terminal: no sandbox ({status.problem}): every command that is not read-only asks first",
            INSTALL_HINT,
        )
    return (
        False,
        f"terminal: no sandbox ({status.problem}): every command that is not read-only asks first",
        "allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, or an AppArmor "
        "profile for bwrap), or run hws where they are allowed",
    )
