"""Pruning old sessions: each one is archived to a file first, then deleted, in one transaction.

A session is pruned when it ended, started and ended before the cut-off, and is not in use: an open
session (another hws or Hermes may be writing it), the one this process runs, one whose compression
is locked, and the ancestors of any session that stays (a chain is never cut in the middle) are all
kept. Its row, messages, usage and approval answers go as one JSON line into a gzip file under
`hws/archive/` (written and synced before anything is deleted, inside the same write transaction,
so what the file holds is exactly what left the database); the search index follows the messages.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import aiosqlite

    from engine.config import Config
    from engine.home import Home
    from engine.sessions.store import SessionStore

DAY = 86_400.0
ARCHIVE_FOLDER = "archive"  # under the home's hws/ folder
LAST_PRUNE_KEY = "last_auto_prune"  # in state_meta, the key Hermes Agent uses too: one interval for both
# Tables holding rows that belong to a session, archived and deleted with it (when the database has them).
SESSION_TABLES = (
    ("messages", "messages"),
    ("session_model_usage", "model_usage"),
    ("hws_approvals", "approvals"),
)


@dataclass(frozen=True)
class PruneResult:
    """What a prune did: the sessions it archived and deleted, and where the archive is."""

    pruned: tuple[str, ...] = ()
    messages: int = 0
    archive: Path | None = None
    skipped: str = ""  # why nothing was looked at (the interval since the last automatic prune)

    def sentence(self, days: float) -> str:
        if self.skipped:
            return self.skipped
        if not self.pruned:
            return f"No ended session is older than {days:g} days; nothing was pruned."
        plural = "s" if len(self.pruned) != 1 else ""
        return (
            f"Pruned {len(self.pruned)} session{plural} older than {days:g} days "
            f"({self.messages:,} messages); archived first to {self.archive}."
        )


def archive_folder(home: Home) -> Path:
    return home.journal_dir / ARCHIVE_FOLDER


async def prune_sessions(
    store: SessionStore,
    archive_dir: Path,
    older_than_days: float,
    *,
    keep: Iterable[str] = (),
    dry_run: bool = False,
    now: float | None = None,
) -> PruneResult:
    """Archive, then delete, every prunable session older than `older_than_days`."""
    now = time.time() if now is None else now
    cutoff = now - older_than_days * DAY
    kept = {k for k in keep if k}
    archive: list[Path] = []

    async def work(conn: aiosqlite.Connection) -> PruneResult:
        doomed = await _prunable(conn, cutoff, kept)
        if not doomed or dry_run:
            return PruneResult(tuple(doomed))
        path, messages = await _write_archive(conn, doomed, archive_dir, now)
        archive.append(path)
        await _delete(conn, doomed)
        return PruneResult(tuple(doomed), messages, path)

    try:
        result = await store.run_in_transaction(work)
    except BaseException:
        for path in archive:  # the delete did not happen: the archive would duplicate what stays
            with contextlib.suppress(OSError):
                path.unlink()
        raise
    if not dry_run:
        store.forget_sessions(result.pruned)
    return result


async def auto_prune(
    store: SessionStore, home: Home, config: Config, keep: Iterable[str] = (), now: float | None = None
) -> PruneResult | None:
    """`sessions.auto_prune`: prune at most once per `sessions.min_interval_hours`; None when it is off."""
    settings = config.sessions
    if not bool(settings.auto_prune):
        return None
    now = time.time() if now is None else now
    interval = float(settings.min_interval_hours) * 3600
    last = await _last_prune(store)
    if last is not None and now - last < interval:
        return PruneResult(skipped="pruned recently")
    result = await prune_sessions(
        store, archive_folder(home), float(settings.retention_days), keep=keep, now=now
    )
    await _note_prune(store, now)
    return result


async def _prunable(conn: aiosqlite.Connection, cutoff: float, keep: set[str]) -> list[str]:
    """Ids of the sessions to prune, oldest first."""
    rows = list(
        await conn.execute_fetchall(
            "SELECT id, parent_session_id, started_at, ended_at FROM sessions ORDER BY started_at"
        )
    )
    locked: set[str] = set()
    with contextlib.suppress(Exception):  # an older database has no compression_locks table
        locked = {r[0] for r in await conn.execute_fetchall("SELECT session_id FROM compression_locks")}
    parent = {r[0]: r[1] for r in rows}
    doomed = {
        r[0]
        for r in rows
        if r[3] is not None and (r[2] or 0) < cutoff and r[3] < cutoff and r[0] not in keep | locked
    }
    for session_id in parent:  # a session that stays keeps its whole chain of parents
        if session_id in doomed:
            continue
        seen: set[str] = set()
        up = parent.get(session_id)
        while up and up not in seen:
            seen.add(up)
            doomed.discard(up)
            up = parent.get(up)
    return [r[0] for r in rows if r[0] in doomed]


async def _tables(conn: aiosqlite.Connection) -> set[str]:
    return {r[0] for r in await conn.execute_fetchall("SELECT name FROM sqlite_master WHERE type = 'table'")}


async def _rows(conn: aiosqlite.Connection, sql: str, params: tuple[Any, ...]) -> list[dict[str, Any]]:
    cursor = await conn.execute(sql, params)
    names = [d[0] for d in cursor.description or ()]
    found = [dict(zip(names, row, strict=True)) for row in await cursor.fetchall()]
    await cursor.close()
    return found


async def _write_archive(
    conn: aiosqlite.Connection, doomed: list[str], folder: Path, now: float
) -> tuple[Path, int]:
    """One JSON line per session (its row, messages, usage, approvals), gzip'd, synced; messages counted."""
    tables = await _tables(conn)
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    stamp = time.strftime("%Y%m%dT%H%M%S", time.localtime(now))
    path = folder / f"sessions-{stamp}.jsonl.gz"
    counter = 1
    while path.exists():
        path = folder / f"sessions-{stamp}-{counter}.jsonl.gz"
        counter += 1
    temp = path.with_name(f".{path.name}.tmp")
    messages = 0
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb") as out:
            for session_id in doomed:
                line: dict[str, Any] = {}
                found = await _rows(conn, "SELECT * FROM sessions WHERE id = ?", (session_id,))
                line["session"] = found[0] if found else {"id": session_id}
                for table, key in SESSION_TABLES:
                    if table in tables:
                        order = " ORDER BY id" if table != "session_model_usage" else ""
                        line[key] = await _rows(
                            conn, f"SELECT * FROM {table} WHERE session_id = ?{order}", (session_id,)
                        )
                messages += len(line.get("messages", ()))
                out.write((json.dumps(line, ensure_ascii=False, default=_bytes_text) + "\n").encode("utf-8"))
            out.close()
            raw.flush()
            os.fsync(raw.fileno())
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            temp.unlink()
        raise
    return path, messages


def _bytes_text(value: object) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return str(value)


async def _delete(conn: aiosqlite.Connection, doomed: list[str]) -> None:
    tables = await _tables(conn)
    await conn.execute("CREATE TEMP TABLE IF NOT EXISTS hws_prune (id TEXT PRIMARY KEY)")
    await conn.execute("DELETE FROM hws_prune")
    await conn.executemany("INSERT INTO hws_prune (id) VALUES (?)", [(d,) for d in doomed])
    for table, _key in SESSION_TABLES:
        if table in tables:
            await conn.execute(f"DELETE FROM {table} WHERE session_id IN (SELECT id FROM hws_prune)")
    await conn.execute("DELETE FROM sessions WHERE id IN (SELECT id FROM hws_prune)")
    await conn.execute("DELETE FROM hws_prune")


async def _last_prune(store: SessionStore) -> float | None:
    async def read(conn: aiosqlite.Connection) -> float | None:
        with contextlib.suppress(Exception):
            rows = list(
                await conn.execute_fetchall("SELECT value FROM state_meta WHERE key = ?", (LAST_PRUNE_KEY,))
            )
            return float(rows[0][0]) if rows else None
        return None

    return await store.run_in_transaction(read)


async def _note_prune(store: SessionStore, now: float) -> None:
    async def write(conn: aiosqlite.Connection) -> None:
        with contextlib.suppress(Exception):  # a database without Hermes' state_meta table
            await conn.execute(
                "INSERT INTO state_meta (key, value) VALUES (?, ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (LAST_PRUNE_KEY, str(now)),
            )

    await store.run_in_transaction(write)
