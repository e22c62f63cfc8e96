"""Messages kept when state.db stays locked: retried, then journaled, then written once it frees.

Another program (a SQLite tool, a backup, another agent) may hold state.db's write lock for longer
than a write waits. A message the person has already seen must not be lost to that: the write is
tried again a few times, and if the lock still holds, the message goes to a journal file beside
the database (`hws/unsaved-messages.jsonl`, redacted like the database) and stays in the running
conversation. Every later write first empties the journal, in order, so the database ends up with
every message in the order it was said; a journal left by a process that ended is emptied by the
next store that writes.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path
from typing import Any

from engine.sessions.errors import SessionNotFound, StoreLocked
from engine.storage.atomic import atomic_write_text

JOURNAL_NAME = "unsaved-messages.jsonl"


class PendingWrites:
    """Appends messages to a store, keeping those a held lock refuses in a journal until it frees."""

    def __init__(self, store: Any, journal: Path, retries: int, pause_s: float = 0.2) -> None:
        self.store = store
        self.journal = journal
        self.retries = retries
        self.pause_s = pause_s

    @property
    def waiting(self) -> int:
        """How many messages wait in the journal."""
        return len(self._read())

    async def append(self, session_id: str, role: str, content: Any, **fields: Any) -> int | None:
        """Write one message (and what waited before it) and return its id; None when the journal kept it."""
        entry = {"session_id": session_id, "role": role, "content": self.store.redactor.value(content)}
        entry.update({k: self.store.redactor.value(v) for k, v in fields.items()})
        entry.setdefault("timestamp", time.time())
        if not await self.flush():
            self._keep(entry)
            return None
        try:
            return await self._write(entry)
        except StoreLocked:
            self._keep(entry)
            return None

    async def flush(self) -> bool:
        """Write what the journal holds, oldest first; False while state.db is still locked."""
        waiting = self._read()
        while waiting:
            try:
                await self._write(waiting[0])
            except StoreLocked:
                return False
            except SessionNotFound:
                pass  # its session is gone (deleted meanwhile): nothing to keep it for
            waiting = waiting[1:]
            self._save(waiting)
        return True

    async def _write(self, entry: dict[str, Any]) -> int:
        fields = {k: v for k, v in entry.items() if k not in ("session_id", "role", "content")}
        for attempt in range(self.retries + 1):
            try:
                return int(
                    await self.store.append_message(
                        entry["session_id"], entry["role"], entry["content"], **fields
                    )
                )
            except StoreLocked:
                if attempt == self.retries:
                    raise
                await asyncio.sleep(self.pause_s * (attempt + 1))
        raise StoreLocked("state.db stayed locked: no attempt was left to write the message.")

    def _read(self) -> list[dict[str, Any]]:
        try:
            text = self.journal.read_text(encoding="utf-8")
        except FileNotFoundError:
            return []
        entries = []
        for line in text.splitlines():
            try:
                entry = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line cut by a crash mid-write: the rest is still good
            if isinstance(entry, dict) and {"session_id", "role"} <= entry.keys():
                entries.append(entry)
        return entries

    def _keep(self, entry: dict[str, Any]) -> None:
        self.journal.parent.mkdir(parents=True, exist_ok=True)
        flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND
        fd = os.open(self.journal, flags, 0o600)
        try:
            os.write(fd, (json.dumps(entry, ensure_ascii=False) + "\n").encode("utf-8"))
            os.fsync(fd)
        finally:
            os.close(fd)

    def _save(self, entries: list[dict[str, Any]]) -> None:
        if entries:
            atomic_write_text(
                self.journal, "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in entries)
            )
        else:
            self.journal.unlink(missing_ok=True)
