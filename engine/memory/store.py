"""Bounded declarative memory: `memories/MEMORY.md` and `memories/USER.md`, byte-compatible with Hermes.

Entries are joined by `"\\n§\\n"`; limits count characters with the delimiters. Every
read-modify-write holds the sidecar `.lock`, re-reads the file under it, writes a temp file beside
it, fsyncs and renames, then records the change in the journal. A file edited by hand into
something that would not round-trip is backed up and left alone, except by `add`, which appends.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.config import Config, load_config
from engine.home import Home
from engine.memory.format import (
    DELIMITER,
    FILES,
    TARGETS,
    MemoryRefused,
    apply_operation,
    char_count,
    parse_entries,
    previews,
    revert_entries,
    serialize,
    usage_text,
    write_memory_file,
)
from engine.memory.snapshot import MemorySnapshot
from engine.memory.staging import stage_memory
from engine.pending.staging import gate_on
from engine.storage.atomic import WriteError, describe_os_error
from engine.storage.journal import Journal, JournalEntry, JournalError, blob_hash
from engine.storage.self_writes import content_hash
from engine.threats.redact import home_redactor
from engine.threats.scan import first_threat_message

JOURNAL_KIND = "memory"
WRITE_ATTEMPTS = 5  # reads and redos of one change while the file is being edited by hand
DONE_NOTE = "Write saved. This update is complete — do not repeat it."


def _error(message: str, **extra: Any) -> dict[str, Any]:
    return {"success": False, "error": message, **extra}


@dataclass(frozen=True)
class DiskState:
    """What is on disk for one target, read under the lock."""

    raw: str
    entries: list[str]
    drift: bool


class MemoryStore:
    """One bounded memory file (`memory` or `user`): add, replace, remove, batch, undo.

    `who` names the writer in the journal: `agent` for the model's tool calls, `user` for the CLI
    and the workstation, `review` for background review.
    """

    def __init__(
        self,
        home: Home,
        target: str,
        limit: int,
        journal: Journal | None = None,
        who: str = "agent",
    ) -> None:
        if target not in FILES:
            raise ValueError(f"Invalid target '{target}'. Use 'memory' or 'user'.")
        self.home = home
        self.target = target
        self.limit = limit
        self.journal = journal if journal is not None else Journal(home)
        self.who = who
        self._folder_ready = False
        self._lock_fds: dict[Path, int] = {}
        self._thread_lock = threading.RLock()

    def __del__(self) -> None:
        for fd in getattr(self, "_lock_fds", {}).values():
            with contextlib.suppress(OSError):
                os.close(fd)

    @contextlib.contextmanager
    def _locked(self, path: Path) -> Iterator[None]:
        """Hermes' lock: exclusive flock on `<file>.lock`, kept open by this store between writes."""
        with self._thread_lock:  # flock does not exclude threads sharing one descriptor
            fd = self._lock_fds.get(path)
            if fd is None:
                lock_path = path.with_name(path.name + ".lock")
                try:
                    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
                except OSError as exc:
                    raise WriteError(describe_os_error(exc, lock_path)) from exc
                self._lock_fds[path] = fd
            fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)

    @classmethod
    def open(
        cls,
        home: Home,
        target: str,
        config: Config | None = None,
        journal: Journal | None = None,
        who: str = "agent",
    ) -> MemoryStore:
        """The store of one target with its limit from the config."""
        config = config if config is not None else load_config(home.root)
        key = "memory_char_limit" if target == "memory" else "user_char_limit"
        return cls(home, target, int(getattr(config.memory, key)), journal, who)

    @property
    def filename(self) -> str:
        return FILES[self.target]

    @property
    def path(self) -> Path:
        return self.home.memories / self.filename

    def real_path(self) -> Path:
        """The file to read and write: a symlink is followed only while it stays inside the home."""
        path = self.path
        if path.is_symlink():
            try:
                path.resolve(strict=False)
            except RuntimeError:  # Python 3.11 raises for a loop
                raise MemoryRefused(
                    _error(f"{self.filename} is a symlink loop; replace the link with a regular file.")
                ) from None
            if not self.home.inside(path):
                raise MemoryRefused(
                    _error(
                        f"{self.filename} is a symlink to {os.path.realpath(path)}, outside the home; it is "
                        "neither read nor written. Replace the link with a regular file."
                    )
                )
            return path.resolve()
        return path

    @property
    def rel_path(self) -> str:
        return f"memories/{self.filename}"

    # ── reading ──────────────────────────────────────────────────────────────────────────────────
    def read_raw(self, backup_on_error: bool = False) -> str:
        """The file's text ('' when missing); a file that is not UTF-8 is refused, never guessed at."""
        try:
            data = self.real_path().read_bytes()
        except FileNotFoundError:
            return ""
        except OSError as exc:
            raise MemoryRefused(_error(f"Cannot read {self.filename}: {exc.strerror}.")) from exc
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            problem = f"{self.filename} is not UTF-8 text (bad byte at offset {exc.start})"
            if not backup_on_error:
                raise MemoryRefused(_error(f"Cannot read {problem}; re-save it as UTF-8.")) from exc
            backup = self._backup(data)
            raise MemoryRefused(
                _error(
                    f"Refusing to write {self.filename}: {problem}. A snapshot was saved to {backup}. "
                    "Re-save the file as UTF-8, then retry.",
                    drift_backup=backup,
                )
            ) from exc

    def entries(self) -> list[str]:
        """The live entries on disk now."""
        return parse_entries(self.read_raw())

    def usage(self, entries: list[str] | None = None) -> str:
        entries = self.entries() if entries is None else entries
        return usage_text(char_count(entries), self.limit)

    def state(self, backup_on_error: bool = False) -> DiskState:
        raw = self.read_raw(backup_on_error)
        parsed = [e.strip() for e in raw.split(DELIMITER) if e.strip()] if raw.strip() else []
        drift = bool(raw.strip()) and (
            raw.strip() != serialize(parsed) or max((len(e) for e in parsed), default=0) > self.limit
        )
        return DiskState(raw, list(dict.fromkeys(parsed)), drift)

    # ── the tool's actions ───────────────────────────────────────────────────────────────────────
    def add(self, content: str, **options: Any) -> dict[str, Any]:
        """Append an entry; a duplicate is a success that adds nothing."""
        content = (content or "").strip()
        if not content:
            return _error("Content cannot be empty.")
        blocked = self._refusal(content)
        if blocked:
            return _error(blocked)

        def change(state: DiskState) -> tuple[str, str] | dict[str, Any]:
            if content in state.entries:
                return self.success("Entry already exists (no duplicate added).", state.entries)
            current = char_count(state.entries)
            new_total = char_count([*state.entries, content])
            if new_total > self.limit:
                return _error(
                    f"Memory at {current:,}/{self.limit:,} chars. Adding this entry ({len(content)} chars) "
                    "would exceed the limit. Consolidate now: use 'replace' to merge overlapping entries "
                    "into shorter ones or 'remove' stale or less important entries (see current_entries "
                    "below), then retry this add — all in this turn.",
                    current_entries=state.entries,
                    usage=f"{current:,}/{self.limit:,}",
                )
            if state.drift:  # append to what is there, so hand-written text is kept exactly as it was
                return state.raw.rstrip() + DELIMITER + content, "Entry added."
            return serialize([*state.entries, content]), "Entry added."

        return self._write("add", change, summary=f"add: {content}", **options)

    def replace(self, old_text: str, content: str, **options: Any) -> dict[str, Any]:
        """Replace the one entry containing `old_text` with `content`."""
        old_text = (old_text or "").strip()
        content = (content or "").strip()
        if not old_text:
            return _error("old_text cannot be empty.")
        if not content:
            return _error("new_content cannot be empty. Use 'remove' to delete entries.")
        blocked = self._refusal(content)
        if blocked:
            return _error(blocked)

        def change(state: DiskState) -> tuple[str, str] | dict[str, Any]:
            index = self._find(state.entries, old_text, "replace")
            if isinstance(index, dict):
                return index
            updated = list(state.entries)
            updated[index] = content
            new_total = char_count(updated)
            if new_total > self.limit:
                current = char_count(state.entries)
                return _error(
                    f"Replacement would put memory at {new_total:,}/{self.limit:,} chars. Shorten the new "
                    "content, or 'remove' other stale or less important entries to make room (see "
                    "current_entries below), then retry — all in this turn.",
                    current_entries=state.entries,
                    usage=f"{current:,}/{self.limit:,}",
                )
            return serialize(list(dict.fromkeys(updated))), "Entry replaced."

        return self._write(
            "replace", change, guard_drift=True, summary=f"replace '{old_text}': {content}", **options
        )

    def remove(self, old_text: str, **options: Any) -> dict[str, Any]:
        """Remove the one entry containing `old_text`."""
        old_text = (old_text or "").strip()
        if not old_text:
            return _error("old_text cannot be empty.")

        def change(state: DiskState) -> tuple[str, str] | dict[str, Any]:
            index = self._find(state.entries, old_text, "remove")
            if isinstance(index, dict):
                return index
            return serialize(state.entries[:index] + state.entries[index + 1 :]), "Entry removed."

        return self._write("remove", change, guard_drift=True, summary=f"remove '{old_text}'", **options)

    def batch(self, operations: list[dict[str, Any]], **options: Any) -> dict[str, Any]:
        """Apply add/replace/remove operations all or nothing; the budget counts only the final state."""
        if not operations:
            return _error("operations list is empty.")
        for number, op in enumerate(operations, start=1):
            if not isinstance(op, dict):
                return _error(f"Operation {number}: each operation must be an object with an 'action'.")
            if op.get("action") in ("add", "replace") and op.get("content"):
                blocked = self._refusal(str(op["content"]))
                if blocked:
                    return _error(f"Operation {number}: {blocked}")

        def change(state: DiskState) -> tuple[str, str] | dict[str, Any]:
            working = list(state.entries)
            for number, op in enumerate(operations, start=1):
                failed = apply_operation(working, op, number)
                if failed:
                    return self._batch_error(failed, state.entries)
            new_total = char_count(working)
            if new_total > self.limit:
                return self._batch_error(
                    f"After applying all {len(operations)} operations, memory would be at {new_total:,}/"
                    f"{self.limit:,} chars -- over the limit. Remove or shorten more entries in the same "
                    "batch (see current_entries below), then retry.",
                    state.entries,
                    suffix=False,
                )
            return serialize(working), f"Applied {len(operations)} operation(s)."

        return self._write(
            "batch", change, guard_drift=True, summary=f"batch of {len(operations)} operation(s)", **options
        )

    def apply(self, args: dict[str, Any], **options: Any) -> dict[str, Any]:
        """The `memory` tool for this target: `{action, content?, old_text?}` or `{operations: [...]}`.

        `options` go to the write: `dry_run=True` computes the change under the lock and writes nothing
        (the result carries `before` and `after`); `check(state, new_raw)` may refuse it (a dict) just
        before it is written; `who` and `note` are what the journal records.
        """
        operations = args.get("operations")
        if operations:
            if not isinstance(operations, list):
                return _error("operations must be a list of {action, content?, old_text?} objects.")
            return self.batch(operations, **options)
        action = args.get("action")
        content = args.get("content") or ""
        old_text = args.get("old_text") or ""
        if action == "add" and not content:
            return _error("Content is required for 'add' action.")
        if action in ("replace", "remove") and not old_text:
            return self._missing_old_text(str(action))
        if action == "replace" and not content:
            return _error("content is required for 'replace' action.")
        if action == "add":
            return self.add(content, **options)
        if action == "replace":
            return self.replace(old_text, content, **options)
        if action == "remove":
            return self.remove(old_text, **options)
        return _error(f"Unknown action '{action}'. Use: add, replace, remove")

    def write_all(self, text: str, expect: str | None = None, who: str | None = None) -> dict[str, Any]:
        """Replace the whole file with the entries of `text` (the workstation's editor saves this way).

        `expect` is the content hash (`engine.storage.self_writes.content_hash`) of the file as the
        editor loaded it; if the file holds something else now, nothing is written and the result carries
        `conflict: True` and the text on disk, so the editor can show both instead of overwriting.
        """
        entries = parse_entries(text)
        for number, entry in enumerate(entries, start=1):
            blocked = self._refusal(entry)
            if blocked:
                return _error(f"Entry {number}: {blocked}")
        total = char_count(entries)
        if total > self.limit:
            return _error(
                f"{self.filename} would hold {total:,}/{self.limit:,} chars; shorten or remove entries.",
                usage=f"{total:,}/{self.limit:,}",
            )

        def change(state: DiskState) -> tuple[str, str] | dict[str, Any]:
            if expect is not None and content_hash(state.raw) != expect:
                return _error(
                    f"{self.filename} changed on disk since it was opened; nothing was written.",
                    conflict=True,
                    disk=state.raw,
                )
            return serialize(entries), f"{self.filename} saved."

        return self._write("edit", change, who=who, summary=f"edited {self.filename} in hws")

    # ── undo ─────────────────────────────────────────────────────────────────────────────────────
    def undo(self, entry: JournalEntry) -> dict[str, Any]:
        """Revert one journaled change: restore the file if nothing came after, else revert its entries."""
        if entry.kind != JOURNAL_KIND or entry.target != self.target:
            return _error(f"Journal entry {entry.id} is not a change to {self.filename}.")
        before = self.journal.text(entry.before_hash) if entry.before_hash else ""
        after = self.journal.text(entry.after_hash) if entry.after_hash else ""
        if before is None or after is None:
            return _error(f"Cannot undo {entry.id}: its saved contents were pruned from the journal.")

        def change(state: DiskState) -> tuple[str, str] | dict[str, Any]:
            if state.raw == after:
                restored = before
            else:
                if state.drift:
                    return self._drift_refusal(state.raw)
                merged = revert_entries(parse_entries(before), parse_entries(after), state.entries)
                if isinstance(merged, str):
                    return _error(f"Cannot undo {entry.id}: {merged}")
                restored = serialize(merged)
            back = [e for e in parse_entries(restored) if e not in state.entries]
            for text in back:
                blocked = self._refusal(text)
                if blocked:
                    return _error(f"Cannot undo {entry.id}: an entry it brings back is unsafe. {blocked}")
            new_total = char_count(parse_entries(restored))
            if new_total > self.limit and new_total > char_count(state.entries):
                return _error(
                    f"Undo would put memory at {new_total:,}/{self.limit:,} chars. Remove or shorten entries "
                    "first, then retry the undo."
                )
            return restored, f"Undid {entry.action} {entry.id}."

        return self._write("undo", change, who="undo", summary=f"undo {entry.id} ({entry.action})")

    # ── results ──────────────────────────────────────────────────────────────────────────────────
    def _refusal(self, content: str) -> str | None:
        """Why `content` may not be stored: it holds a secret (never shown), or the scanner blocks it."""
        secret = home_redactor(self.home.root).find(content)
        if secret is not None:
            return (
                f"This entry contains {secret}; secrets are never stored in memory. Save where the secret "
                "lives (the variable's name or the file), not its value."
            )
        return first_threat_message(content, "strict")

    def success(self, message: str, entries: list[str]) -> dict[str, Any]:
        """Hermes' success shape: live entries and usage, plus its terminal `done` note."""
        return {
            "success": True,
            "done": True,
            "target": self.target,
            "entries": entries,
            "usage": usage_text(char_count(entries), self.limit),
            "entry_count": len(entries),
            "message": message,
            "note": DONE_NOTE,
        }

    def _find(self, entries: list[str], old_text: str, action: str) -> int | dict[str, Any]:
        matches = [i for i, e in enumerate(entries) if old_text in e]
        if not matches:
            return _error(
                f"No entry matched '{old_text}'. Check current_entries below and retry with the exact text "
                f"of the entry you want to {action}.",
                current_entries=entries,
            )
        if len({entries[i] for i in matches}) > 1:
            return _error(
                f"Multiple entries matched '{old_text}'. Be more specific.",
                matches=previews([entries[i] for i in matches]),
            )
        return matches[0]

    def _missing_old_text(self, action: str) -> dict[str, Any]:
        entries = self.entries()
        return _error(
            f"old_text is required for '{action}' action. Reissue the {action} with old_text set to a short "
            "unique part of one of the current_entries below.",
            current_entries=entries,
            usage=f"{char_count(entries):,}/{self.limit:,}",
        )

    def _batch_error(self, message: str, entries: list[str], suffix: bool = True) -> dict[str, Any]:
        return _error(
            message + (" No operations were applied (batch is all-or-nothing)." if suffix else ""),
            current_entries=entries,
            usage=f"{char_count(entries):,}/{self.limit:,}",
        )

    # ── the locked read-modify-write ─────────────────────────────────────────────────────────────
    def _write(
        self,
        action: str,
        change: Callable[[DiskState], tuple[str, str] | dict[str, Any]],
        guard_drift: bool = False,
        who: str | None = None,
        summary: str = "",
        *,
        dry_run: bool = False,
        check: Callable[[DiskState, str], dict[str, Any] | None] | None = None,
        note: str = "",
    ) -> dict[str, Any]:
        if note:
            summary = f"{summary} ({note})"
        try:
            if not self._folder_ready:
                self.home.memories.mkdir(parents=True, exist_ok=True)
                self._folder_ready = True
            path = self.real_path()
            with self._locked(path):
                lost_race: str | None = None  # what the file held when a hand edit beat our last attempt
                for _ in range(WRITE_ATTEMPTS):
                    state = self.state(backup_on_error=True)
                    self._note_external_edit(state.raw, lost_race)
                    if guard_drift and state.drift:
                        return self._drift_refusal(state.raw)
                    outcome = change(state)
                    if isinstance(outcome, dict):
                        return outcome
                    new_raw, message = outcome
                    if new_raw == state.raw:
                        return self.success(message, parse_entries(new_raw))
                    if dry_run:
                        return {
                            **self.success(message, parse_entries(new_raw)),
                            "before": state.raw,
                            "after": new_raw,
                        }
                    refused = check(state, new_raw) if check is not None else None
                    if refused is not None:
                        return refused
                    written = write_memory_file(path, new_raw, expect=state.raw)
                    if written is None:  # edited by hand meanwhile: read it again, redo the change
                        lost_race = state.raw
                        continue
                    self._journal(action, who or self.who, state.raw, new_raw, summary)
                    if written != new_raw:  # text appended by hand during the rename was carried over
                        self._journal("edit", "external", new_raw, written, "appended outside hws meanwhile")
                    return self.success(message, parse_entries(written))
                return _error(
                    f"{self.filename} kept changing while it was being written (edited outside hws?); "
                    "nothing was written. Retry in a moment."
                )
        except MemoryRefused as refused:
            return refused.result
        except (WriteError, OSError) as exc:
            return _error(
                str(exc) if isinstance(exc, WriteError) else f"Cannot write {self.filename}: {exc}."
            )

    def _journal(self, action: str, who: str, before: str, after: str, summary: str) -> None:
        with contextlib.suppress(WriteError, JournalError, OSError):  # the write itself has succeeded
            self.journal.record(
                JOURNAL_KIND, self.target, self.rel_path, action, who, before, after, _short(summary)
            )

    def sync_journal(self) -> JournalEntry | None:
        """Journal a hand edit of the file now (for a file watcher), without writing the file."""
        try:
            with self._locked(self.real_path()):
                return self._note_external_edit(self.read_raw())
        except MemoryRefused:
            return None

    def _note_external_edit(self, raw: str, lost_race: str | None = None) -> JournalEntry | None:
        """If the file changed since our last journaled write, journal that edit as `external` first.

        `lost_race` is what the file held when a hand edit made our compare-and-swap fail: with no
        journaled write to compare against (a fresh home), it is the edit's `before`.
        """
        with contextlib.suppress(WriteError, JournalError, OSError):
            last = self.journal.last(JOURNAL_KIND, self.target)
            if last is None:
                if lost_race is None or lost_race == raw:
                    return None
                previous = lost_race
            elif last.after_hash == blob_hash(raw):
                return None
            else:
                previous = self.journal.text(last.after_hash) if last.after_hash else ""
            return self.journal.record(
                JOURNAL_KIND,
                self.target,
                self.rel_path,
                "edit",
                "external",
                previous,
                raw,
                "edited outside hws",
            )
        return None

    def _drift_refusal(self, raw: str) -> dict[str, Any]:
        backup = self._backup(raw.encode("utf-8"))
        return _error(
            f"Refusing to write {self.filename}: file on disk has content that wouldn't round-trip through "
            "the memory tool (likely added by the patch tool, a shell append, a manual edit, or a concurrent "
            f"session). A snapshot was saved to {backup}. Resolve the drift first — either rewrite the file "
            "as a clean §-delimited list of entries, or move the extra content out — then retry. This guard "
            "exists to prevent silent data loss.",
            drift_backup=backup,
            remediation=(
                "Open the .bak file, integrate the missing entries into the memory tool one at a time via "
                "memory(action=add, content=...), then remove or rewrite the original file to a clean state."
            ),
        )

    def _backup(self, data: bytes) -> str:
        """Copy the file's bytes to `<file>.bak.<unix_ts>` (a unique name, never overwriting a backup)."""
        stamp = int(time.time())
        backup = self.path.with_name(f"{self.filename}.bak.{stamp}")
        counter = 1
        while backup.exists():
            backup = self.path.with_name(f"{self.filename}.bak.{stamp}.{counter}")
            counter += 1
        try:
            fd = os.open(backup, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
        except OSError:
            return f"{backup} (BACKUP FAILED — file unchanged on disk)"
        return str(backup)


def _short(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class Memory:
    """Both memory targets of one home for one session: the tool's dispatcher, the snapshot, undo."""

    def __init__(
        self, home: Home, config: Config | None = None, journal: Journal | None = None, who: str = "agent"
    ) -> None:
        self.home = home
        self.config = config if config is not None else load_config(home.root)
        self.journal = (
            journal if journal is not None else Journal(home, int(self.config.memory.journal_max_entries))
        )
        self.who = who
        enabled = {
            "memory": self.config.memory.memory_enabled,
            "user": self.config.memory.user_profile_enabled,
        }
        self.stores = {
            t: MemoryStore.open(home, t, self.config, self.journal, who) for t in TARGETS if enabled[t]
        }
        self._failures = 0
        self.session_id = ""  # the session whose tool calls this serves (named in staged writes)
        self.write_approval = gate_on(self.config, "memory", who)  # the agent's writes wait for the person

    def store(self, target: str) -> MemoryStore:
        if target not in FILES:
            raise ValueError(f"Invalid target '{target}'. Use 'memory' or 'user'.")
        return self.stores.get(target) or MemoryStore.open(
            self.home, target, self.config, self.journal, self.who
        )

    def load_snapshot(self) -> MemorySnapshot:
        """Read both files once and freeze what the system prompt will show for this session."""
        return MemorySnapshot.load(self.stores, int(self.config.memory.snapshot_min_chars))

    def start_turn(self) -> None:
        """A new user turn: the consolidation-failure count starts again."""
        self._failures = 0

    def tool_call(self, args: dict[str, Any]) -> dict[str, Any]:
        """The `memory` tool: Hermes' checks in Hermes' order, then the store's result dict."""
        if not self.stores:
            return _error("Memory is not available. It may be disabled in config or this environment.")
        target = args.get("target")
        target = "memory" if target is None else target
        if target not in FILES:
            return _error(f"Invalid target '{target}'. Use 'memory' or 'user'.")
        store = self.stores.get(target)
        if store is None:
            return _error("Memory is not available. It may be disabled in config or this environment.")
        if self.write_approval:
            return self._count_failure(stage_memory(self, store, args))
        return self._count_failure(store.apply(args))

    def _count_failure(self, result: dict[str, Any]) -> dict[str, Any]:
        """After too many failed consolidations in one turn, tell the model to stop and answer the user."""
        if result.get("success"):
            self._failures = 0
            return result
        if "current_entries" not in result:
            return result
        self._failures += 1
        if self._failures <= int(self.config.memory.max_consolidation_failures):
            return result
        return {
            "success": False,
            "done": True,
            "error": f"Memory consolidation failed {self._failures} times this turn. Stop retrying memory "
            "calls — leave memory unchanged for now and continue with your reply to the user. The fact can "
            "be saved in a later turn.",
        }

    def history(self, target: str | None = None, limit: int | None = None) -> list[JournalEntry]:
        """Journaled memory writes, oldest first."""
        return self.journal.entries(JOURNAL_KIND, target, limit)

    def undo(self, entry_id: str) -> dict[str, Any]:
        """Revert the journaled memory change with this id (journaled itself, as `undo`)."""
        try:
            entry = self.journal.get(entry_id)
        except JournalError as exc:
            return _error(str(exc))
        if entry.kind != JOURNAL_KIND:
            return _error(f"Journal entry {entry.id} is a {entry.kind} change, not a memory one.")
        return self.store(entry.target).undo(entry)
