"""Watch `$HERMES_HOME` for changes made outside the app and post them as one coalesced Message.

A watchdog observer thread (inotify here) feeds raw events into a pending table, one row per file.
A second thread flushes a row once the file has been quiet for `watch.debounce_ms`, reads it, and
compares its content hash with what it saw before: a burst of events (an editor's in-place write, an
atomic replace that shows up as `moved` onto the target) becomes one change, a read or a touch
becomes none. Editor litter (`.x.swp`, `x~`, `4913`, temp files) is ignored, and so is content this
process wrote itself (`engine.storage.self_writes`). What is left is posted as `HomeChanged`.

Only the folders whose files are routed somewhere are watched (the home's top level, `memories/`,
`skills/`, `pending/`): the rest of the home (the hub's git clones under `cache/`, logs, sessions)
churns without a watch, so a clone of thousands of files costs no inotify watch and no event.

When file events cannot be had (inotify limits, a network file system), the same pipeline runs on
watchdog's polling observer and `WatchStatus` says so.
"""

from __future__ import annotations

import contextlib
import fnmatch
import os
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from textual.message import Message
from watchdog.events import (
    DirCreatedEvent,
    DirDeletedEvent,
    DirMovedEvent,
    FileClosedEvent,
    FileCreatedEvent,
    FileDeletedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileSystemEvent,
    FileSystemEventHandler,
)

from engine.editing.external_edits import classify
from engine.home import Home
from engine.storage.self_writes import REGISTRY, SelfWrites, content_hash

LITTER = (".*.sw?", ".*.sw??", "*~", "4913", ".*.tmp", "*.tmp", "*.lock", "*.bak.*", ".#*", "#*#")
NETWORK_FILE_SYSTEMS = frozenset(
    {
        "nfs",
        "nfs4",
        "cifs",
        "smb3",
        "smbfs",
        "9p",
        "fuse.sshfs",
        "afs",
        "ceph",
        "glusterfs",
        "lustre",
        "davfs",
    }
)
EVENT_CLASSES = [
    FileCreatedEvent,
    FileModifiedEvent,
    FileDeletedEvent,
    FileMovedEvent,
    FileClosedEvent,
    DirCreatedEvent,
    DirDeletedEvent,
    DirMovedEvent,
]
ROUTED_DIRS = ("memories", "skills", "pending")  # top-level folders whose files `classify` routes
ABSENT = "absent"
STOP_TIMEOUT_S = 2.0


@dataclass(frozen=True)
class FileChange:
    """One file that changed on disk: what it is, how it changed, and its text before and after.

    `before`/`after` are None when the file was absent, binary, or larger than the watcher keeps.
    """

    path: Path
    store: str  # soul | memory | user | skill
    kind: str  # created | modified | deleted
    before: str | None
    after: str | None


class HomeChanged(Message):
    """Files under the home changed, not by this app; one message per quiet period, one row per file."""

    def __init__(self, changes: tuple[FileChange, ...]) -> None:
        super().__init__()
        self.changes = changes

    @property
    def stores(self) -> set[str]:
        return {change.store for change in self.changes}

    def for_store(self, *stores: str) -> list[FileChange]:
        return [c for c in self.changes if c.store in stores]

    def __repr__(self) -> str:
        return f"HomeChanged({[(c.store, c.kind, c.path.name) for c in self.changes]})"


class OwnWritesLanded(Message):
    """Files this process wrote (the agent's tools, an editor's save) reached the disk.

    Not an edit to show or journal (that would be an echo), but an open editor of the same file
    must still learn that the disk moved on, so an untouched buffer follows it and a modified one
    is flagged before its save.
    """

    def __init__(self, changes: tuple[FileChange, ...]) -> None:
        super().__init__()
        self.changes = changes


class WatchStatus(Message):
    """How the home is watched: `events`, `polling` (with the reason) or `off`."""

    def __init__(self, mode: str, reason: str = "") -> None:
        super().__init__()
        self.mode = mode
        self.reason = reason


def is_litter(path: str) -> bool:
    """Editor swap and backup files, temp files of atomic writes, lock files: never a change."""
    name = os.path.basename(path)
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in LITTER)


def mount_type(path: Path) -> str:
    """The file system type of the mount holding `path` (from /proc/self/mounts; '' when unknown)."""
    target = os.path.realpath(path)
    best, kind = "", ""
    with (
        contextlib.suppress(OSError),
        open("/proc/self/mounts", encoding="utf-8", errors="replace") as mounts,
    ):
        for line in mounts:
            fields = line.split()
            if len(fields) < 3:
                continue
            point = fields[1].replace("\\040", " ")
            inside = target == point or target.startswith(point.rstrip("/") + "/")
            if inside and len(point) > len(best):
                best, kind = point, fields[2]
    return kind


@dataclass
class _Seen:
    digest: str
    text: str | None


@dataclass
class _Pending:
    due: float


class _Handler(FileSystemEventHandler):
    def __init__(self, watcher: HomeWatcher) -> None:
        self.watcher = watcher

    def on_any_event(self, event: FileSystemEvent) -> None:
        self.watcher.raw_event(event)


def _default_observer(mode: str, poll_interval: float) -> Any:
    if mode == "polling":
        from watchdog.observers.polling import PollingObserver

        return PollingObserver(timeout=poll_interval)
    from watchdog.observers import Observer

    return Observer()


class HomeWatcher:
    """The observer and the debouncing flusher for one home; `start()` once, `stop()` at exit."""

    def __init__(
        self,
        home: Home,
        post: Callable[[Message], object],
        *,
        debounce: float = 0.05,
        poll_interval: float = 1.0,
        mode: str = "auto",
        remember_max_bytes: int = 262_144,
        registry: SelfWrites = REGISTRY,
        on_changes: Callable[[list[FileChange]], None] | None = None,
        observer_factory: Callable[[str, float], Any] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.home = home
        self.root = Path(os.path.realpath(home.root))
        self.post = post
        self.debounce = debounce
        self.poll_interval = poll_interval
        self.mode = mode
        self.remember_max_bytes = remember_max_bytes
        self.registry = registry
        self.on_changes = on_changes
        self.observer_factory = observer_factory or _default_observer  # looked up now: tests can swap it
        self.clock = clock
        self.active_mode = "off"
        self.reason = ""
        self._observer: Any = None
        self._seen: dict[str, _Seen] = {}
        self._pending: dict[str, _Pending] = {}
        self._cond = threading.Condition()
        self._stopping = False
        self._ready = threading.Event()
        self._early: set[str] = set()  # touched while the first look was being taken: before unknown
        self._flusher: threading.Thread | None = None
        self._handler = _Handler(self)
        self._watches: dict[str, Any] = {}  # routed folder name -> its recursive watch
        self._event_filter: list[type[FileSystemEvent]] | None = None
        self.flushes = 0

    # -- starting and stopping ----------------------------------------------------------------------

    def start(self) -> str:
        """Start watching (file events, else polling); returns the mode in use. Never raises."""
        wanted = self.mode
        if wanted == "off":
            self.reason = "watch.mode is off"
            self._announce()
            return "off"
        if wanted == "auto":
            fs_type = mount_type(self.root)
            if fs_type in NETWORK_FILE_SYSTEMS:
                wanted = "polling"
                self.reason = (
                    f"the home is on a network file system ({fs_type}), whose events may never arrive"
                )
        if wanted in ("auto", "events"):
            try:
                self._observer = self._start_observer("events")
                self.active_mode = "events"
            except Exception as exc:  # inotify limits, a missing backend: poll instead
                self._observer = None
                self.reason = f"file events could not start ({_describe(exc)})"
                wanted = "polling"
        if self._observer is None:
            try:
                self._observer = self._start_observer("polling")
                self.active_mode = "polling"
                if not self.reason:
                    self.reason = "watch.mode is polling"
            except Exception as exc:
                self.active_mode = "off"
                self.reason = f"the home cannot be watched ({_describe(exc)})"
                self._announce()
                return "off"
        self._flusher = threading.Thread(target=self._run_flusher, name="hws-watch-flush", daemon=True)
        self._flusher.start()
        return self.active_mode

    def _start_observer(self, kind: str) -> Any:
        """Watch the home's top level and each routed folder below it, never the rest of the tree."""
        observer = self.observer_factory(kind, self.poll_interval)
        self._event_filter = EVENT_CLASSES if kind == "events" else None
        observer.schedule(self._handler, str(self.root), recursive=False, event_filter=self._event_filter)
        self._watches = {}
        for name in ROUTED_DIRS:
            self._watch_folder(observer, name)
        observer.daemon = True
        observer.start()
        return observer

    def _watch_folder(self, observer: Any, name: str) -> None:
        """Watch one routed folder recursively (again, when it was removed and made anew)."""
        folder = self.root / name
        if not folder.is_dir():
            return
        old = self._watches.pop(name, None)
        if old is not None:
            with contextlib.suppress(Exception):
                observer.unschedule(old)
        self._watches[name] = observer.schedule(
            self._handler, str(folder), recursive=True, event_filter=self._event_filter
        )

    def _announce(self) -> None:
        self.post(WatchStatus(self.active_mode, "" if self.active_mode == "events" else self.reason))

    def wait_ready(self, timeout: float = 5.0) -> bool:
        """Block until the first look at the files is taken (tests and the benchmark wait on this)."""
        return self._ready.wait(timeout)

    def stop(self) -> None:
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        observer, self._observer = self._observer, None
        if observer is not None:
            with contextlib.suppress(Exception):
                observer.stop()
                observer.join(STOP_TIMEOUT_S)
        if self._flusher is not None:
            self._flusher.join(STOP_TIMEOUT_S)

    # -- events in (observer thread) ----------------------------------------------------------------

    def raw_event(self, event: FileSystemEvent) -> None:
        kind = event.event_type
        if kind not in ("created", "modified", "deleted", "moved", "closed"):
            return  # opened, closed_no_write (our own reads), attrib
        paths = [os.fsdecode(event.src_path)]
        if kind == "moved":
            paths.append(os.fsdecode(event.dest_path))
        if event.is_directory:
            if kind == "modified" or kind == "closed":
                return  # a folder's own mtime: the files inside report themselves
            paths = [p for p in paths if self._routed_folder(p)]
            self._rewatch([p for p in paths if os.path.dirname(p) == str(self.root)])
            paths = self._expand_folders(paths)
        wanted = [p for p in paths if not is_litter(p) and classify(self.home, self._home_path(p))]
        if wanted:
            self.note(wanted)

    def _routed_folder(self, path: str) -> bool:
        """A folder that is, or lies inside, one of the routed folders (never `cache/`, `logs/`)."""
        try:
            parts = Path(path).relative_to(self.root).parts
        except ValueError:
            return False
        return bool(parts) and parts[0] in ROUTED_DIRS

    def _rewatch(self, folders: list[str]) -> None:
        """A routed folder made (or moved in) at the top level gets its recursive watch first."""
        observer = self._observer
        if observer is None:
            return
        for folder in folders:
            self._watch_folder(observer, os.path.basename(folder))

    def _expand_folders(self, folders: list[str]) -> list[str]:
        """A folder moved in or out (a skill dragged between categories): every file it held or holds."""
        found: list[str] = []
        for folder in folders:
            prefix = folder.rstrip("/") + "/"
            with self._cond:
                found += [p for p in self._seen if p.startswith(prefix)]
            if os.path.isdir(folder):
                for current, _dirs, files in os.walk(folder):
                    found += [os.path.join(current, name) for name in files]
        return found

    def note(self, paths: Iterable[str]) -> None:
        """Mark files as touched now; each is flushed after `debounce` seconds without another touch."""
        due = self.clock() + self.debounce
        with self._cond:
            for path in paths:
                self._pending[path] = _Pending(due)
                if not self._ready.is_set():
                    self._early.add(path)
            self._cond.notify_all()

    def _home_path(self, real: str) -> Path:
        """A watched (real) path spelled under `home.root`, as the stores and the panes name it."""
        try:
            return self.home.root / Path(real).relative_to(self.root)
        except ValueError:
            return Path(real)

    # -- the flusher thread -------------------------------------------------------------------------

    def _run_flusher(self) -> None:
        try:
            self._baseline()
        finally:
            self._ready.set()
            self._announce()
        while True:
            with self._cond:
                while not self._stopping and not self._pending:
                    self._cond.wait()
                if self._stopping:
                    return
                now = self.clock()
                soonest = min(p.due for p in self._pending.values())
                if soonest > now:
                    self._cond.wait(soonest - now)
                    continue
                due = sorted(path for path, p in self._pending.items() if p.due <= now)
                for path in due:
                    del self._pending[path]
            try:
                self._flush(due)
            except Exception:  # one unreadable file must not stop the watcher
                continue

    def _baseline(self) -> None:
        """What each routed file holds at start, so the first change has a before (and a touch is none)."""
        paths = [
            self.root / "SOUL.md",
            self.root / "memories" / "MEMORY.md",
            self.root / "memories" / "USER.md",
        ]
        skills = self.root / "skills"
        for current, dirs, files in os.walk(skills):
            dirs[:] = [d for d in dirs if not d.startswith(".")]
            paths += [Path(current) / name for name in files]
        for path in paths:
            text_path = str(path)
            if is_litter(text_path) or not classify(self.home, self._home_path(text_path)):
                continue
            seen = self._read(text_path)
            if seen.digest != ABSENT:
                with self._cond:
                    self._seen.setdefault(text_path, seen)

    def _read(self, path: str) -> _Seen:
        try:
            info = os.stat(path)
            if not os.path.isfile(path):
                return _Seen(ABSENT, None)
            if info.st_size > self.remember_max_bytes:
                return _Seen(f"stat:{info.st_size}:{info.st_mtime_ns}", None)
            with open(path, "rb") as handle:
                data = handle.read()
        except (FileNotFoundError, NotADirectoryError):
            return _Seen(ABSENT, None)
        except OSError:
            return _Seen(ABSENT, None)
        try:
            text: str | None = data.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        return _Seen(content_hash(data), text)

    def _flush(self, paths: list[str]) -> None:
        changes: list[FileChange] = []
        own: list[FileChange] = []
        for path in paths:
            now = self._read(path)
            with self._cond:
                before = self._seen.get(path)
                early = path in self._early
                self._early.discard(path)
                if early and before is not None and before.digest == now.digest:
                    before = None  # changed while the first look was taken: what it held before is unknown
                elif before is not None and before.digest == now.digest:
                    continue  # read, touched, or written back as it was
                if now.digest == ABSENT:
                    self._seen.pop(path, None)
                else:
                    self._seen[path] = now
            if before is None and now.digest == ABSENT:
                continue  # created and removed within one quiet period
            home_path = self._home_path(path)
            store = classify(self.home, home_path)
            if store is None:
                continue
            if early and before is None and now.digest != ABSENT:
                kind = "modified"
            else:
                kind = "deleted" if now.digest == ABSENT else ("created" if before is None else "modified")
            change = FileChange(home_path, store, kind, before.text if before else None, now.text)
            if self.registry.claim(path, now.digest if now.digest != ABSENT else "absent"):
                own.append(change)  # this process wrote exactly this: no echo, only open editors hear
                continue
            changes.append(change)
        if own:
            self.post(OwnWritesLanded(tuple(own)))
        if not changes:
            return
        self.flushes += 1
        if self.on_changes is not None:
            with contextlib.suppress(Exception):
                self.on_changes(changes)
        self.post(HomeChanged(tuple(changes)))


def _describe(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.errno is not None:
        if exc.errno == 24:
            return "too many inotify instances; raise fs.inotify.max_user_instances"
        if exc.errno == 28:
            return "the inotify watch limit is reached; raise fs.inotify.max_user_watches"
        return exc.strerror or str(exc)
    return str(exc) or exc.__class__.__name__
