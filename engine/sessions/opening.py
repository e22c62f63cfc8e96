"""Opening `state.db` safely: check it, learn its shape, bring it up to ours, index old messages.

Anything that is not a healthy, known session database is refused or opened read-only before a
single byte is written, so a corrupt, locked or foreign file is left exactly as it was.
"""

from __future__ import annotations

import os
import sqlite3
import struct
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiosqlite

from engine.sessions import schema
from engine.sessions.errors import StoreCorrupt, StoreError, StoreLocked, StoreReadOnly
from engine.sessions.text import SCHEMA_SQL, tolerant_text, undecodable_schema

SQLITE_MAGIC = b"SQLite format 3\x00"
ProgressCallback = Callable[[int, int], None]


@dataclass
class SchemaInfo:
    """What an opened database holds, learned once at open."""

    version: int | None
    tables: set[str] = field(default_factory=set)
    columns: dict[str, set[str]] = field(default_factory=dict)
    read_only: bool = False
    reason: str = ""  # why it is read-only, as a sentence for the user
    fresh: bool = False
    backfill_pending: bool = False  # our indexes exist but older messages are not all in them yet
    objects: set[tuple[str, str]] = field(default_factory=set)  # (type, name) of tables, triggers, indexes
    fts_format: Any = None
    null_active: bool = False  # messages with `active` NULL wait for the repair Hermes makes too

    def has(self, table: str, column: str | None = None) -> bool:
        if column is None:
            return table in self.tables
        return column in self.columns.get(table, set())

    @property
    def our_indexes_ready(self) -> bool:
        return {"hws_fts", "hws_fts_cjk", "hws_meta"} <= self.tables


def explain(exc: BaseException, path: Path) -> StoreError:
    """A sqlite3 error turned into the sentence a user needs."""
    text = str(exc).lower()
    if isinstance(exc, UnicodeDecodeError):
        text = "malformed: its schema holds names that are not text"
        exc = ValueError(text)
    if any(word in text for word in ("not a database", "malformed", "corrupt", "file is encrypted")):
        return StoreCorrupt(
            f"{path} is damaged or not a session database ({exc}); it was left untouched. "
            "Move it aside to start a new one, or restore it from a backup."
        )
    if "locked" in text or "busy" in text:
        return StoreLocked(
            f"{path} is locked by another program (another hws or hermes, or a SQLite tool); "
            "close it or try again in a moment."
        )
    if "readonly" in text or "read-only" in text:
        return StoreReadOnly(f"{path} cannot be written ({exc}); check the file's permissions.")
    if "unable to open" in text or "disk i/o" in text or "cantopen" in text:
        return StoreError(f"Cannot open {path} ({exc}); check that the folder exists and is readable.")
    if "full" in text:
        return StoreError(f"The disk holding {path} is full; free some space and retry.")
    return StoreError(f"{path}: {exc}.")


def read_only_fs(path: Path) -> bool:
    """The file system holding `path` is mounted read-only (SQLite can then not even make its -shm file)."""
    try:
        return bool(os.statvfs(path.parent).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def read_only_uri(path: Path) -> str:
    """A read-only URI; on a read-only file system also `immutable`, which lets SQLite read a WAL
    database without creating its shared-memory file (changes still in an old -wal are not seen)."""
    return f"file:{path}?mode=ro" + ("&immutable=1" if read_only_fs(path) else "")


def check_header(path: Path) -> None:
    """Refuse a file that is not SQLite, or whose length disagrees with its own header."""
    try:
        size = path.stat().st_size
        if size == 0:
            return
        with path.open("rb") as handle:
            head = handle.read(100)
    except OSError as exc:
        raise StoreError(f"Cannot read {path}: {exc.strerror}.") from exc
    if len(head) < 100 or not head.startswith(SQLITE_MAGIC):
        raise StoreCorrupt(
            f"{path} is not a SQLite database; it was left untouched. "
            "Move it aside to start a new session database."
        )
    page_size = struct.unpack(">H", head[16:18])[0]
    page_size = 65536 if page_size == 1 else page_size
    if page_size < 512 or page_size & (page_size - 1):
        raise StoreCorrupt(f"{path} has a damaged header (page size {page_size}); it was left untouched.")
    change_counter = struct.unpack(">I", head[24:28])[0]
    pages = struct.unpack(">I", head[28:32])[0]
    valid_for = struct.unpack(">I", head[92:96])[0]  # the page count is trusted only when this matches
    if size % page_size:
        raise StoreCorrupt(
            f"{path} is cut short ({size:,} bytes is not a whole number of {page_size}-byte pages); "
            "it was left untouched. Restore it from a backup or move it aside."
        )
    # With a write-ahead log or a rollback journal beside it, a checkpoint or recovery may be mid-way
    # (page 1 is written first), so the header's page count is only trusted without one.
    settled = not any(Path(f"{path}{suffix}").exists() for suffix in ("-wal", "-journal"))
    if settled and valid_for == change_counter and pages and pages * page_size > size:
        raise StoreCorrupt(
            f"{path} is cut short ({size:,} bytes, its header says {pages * page_size:,}); "
            "it was left untouched. Restore it from a backup or move it aside."
        )


async def read_shape(conn: aiosqlite.Connection) -> SchemaInfo:
    """Tables, columns and schema version, without writing anything."""
    conn.text_factory = bytes
    try:
        damaged = undecodable_schema(list(await conn.execute_fetchall(SCHEMA_SQL)))
    finally:
        conn.text_factory = tolerant_text
    if damaged:
        raise sqlite3.DatabaseError(f"malformed database schema: {damaged[0]}")
    rows = await conn.execute_fetchall("SELECT type, name FROM sqlite_master")
    objects = {(r[0], r[1]) for r in rows}
    tables = {name for kind, name in objects if kind == "table"}
    columns: dict[str, set[str]] = {}
    for table in ("sessions", "messages", "session_model_usage"):
        if table in tables:
            info = await conn.execute_fetchall(f"PRAGMA table_info({table})")
            columns[table] = {r[1] for r in info}
    pending, fts_format = False, None
    if "hws_meta" in tables:
        pending = bool(await conn.execute_fetchall("SELECT 1 FROM hws_meta WHERE key = 'fts_backfill_max'"))
        row = await conn.execute_fetchall("SELECT value FROM hws_meta WHERE key = 'fts_format'")
        fts_format = row[0][0] if row else None
    null_active = False
    if ("index", "idx_messages_active_null") in objects and "active" in columns.get("messages", set()):
        null_active = bool(await conn.execute_fetchall("SELECT 1 FROM messages WHERE active IS NULL LIMIT 1"))
    version = None
    if "schema_version" in tables:
        row = await conn.execute_fetchall("SELECT max(version) FROM schema_version")
        version = int(row[0][0]) if row and row[0][0] is not None else None
    # Touch the first page of each of Hermes' tables, so damage there shows now, not mid-turn.
    for table in ("sessions", "messages"):
        if table in tables:
            await conn.execute_fetchall(f"SELECT * FROM {table} ORDER BY rowid DESC LIMIT 1")
    return SchemaInfo(
        version=version,
        tables=tables,
        columns=columns,
        backfill_pending=pending,
        objects=objects,
        fts_format=fts_format,
        null_active=null_active,
    )


def needs_upgrade(info: SchemaInfo) -> bool:
    """True when opening for writing must add something (so an up-to-date file takes no write lock)."""
    if info.fresh or info.fts_format != schema.FTS_FORMAT:
        return True
    if not all(obj in info.objects for obj in schema.FTS_OBJECTS):
        return True
    if not {("index", "hws_messages_session_id"), ("index", "hws_messages_time")} <= info.objects:
        return True
    if not set(schema.HWS_TABLES) <= info.tables:
        return True
    if info.null_active or not all(("index", name) in info.objects for name in schema.ACTIVE_INDEXES):
        return True
    for table, wanted in (("sessions", schema.SESSION_COLUMNS), ("messages", schema.MESSAGE_COLUMNS)):
        if not set(wanted) <= info.columns.get(table, set()):
            return True
    return False


def judge(info: SchemaInfo, path: Path) -> None:
    """Decide whether we may write: fill `fresh`, `read_only` and `reason`, or refuse outright."""
    ours = {"sessions", "messages"}
    user_tables = {t for t in info.tables if not t.startswith("sqlite_")}
    if not user_tables:
        info.fresh = True
        return
    if not ours <= info.tables:
        raise StoreError(
            f"{path} is a SQLite database but not a session store (it has no "
            f"{' or '.join(sorted(ours - info.tables))} table); it was left untouched. "
            "Move it aside or point HERMES_HOME elsewhere."
        )
    if info.version is None:
        info.read_only = True
        info.reason = (
            f"{path} has no schema_version, so the program that made it is unknown; "
            "it is open read-only. Open it once with Hermes Agent to upgrade it."
        )
    elif info.version > schema.NEWEST_KNOWN_VERSION:
        info.read_only = True
        info.reason = (
            f"{path} uses session schema {info.version}, newer than the {schema.NEWEST_KNOWN_VERSION} "
            "this hws knows; it is open read-only so nothing of the newer format is lost. "
            "Update hws to write to it."
        )
    elif info.version < schema.OLDEST_KNOWN_VERSION:
        info.read_only = True
        info.reason = (
            f"{path} uses session schema {info.version}, older than the {schema.OLDEST_KNOWN_VERSION} "
            "hws can upgrade; it is open read-only. Open it once with Hermes Agent to upgrade it."
        )


def split_sql(script: str) -> list[str]:
    """Statements of a script (triggers included), to run inside one explicit transaction."""
    statements: list[str] = []
    current = ""
    for line in script.splitlines(keepends=True):
        current += line
        if sqlite3.complete_statement(current):
            if current.strip():
                statements.append(current.strip())
            current = ""
    if current.strip():
        statements.append(current.strip())
    return statements


async def _run_script(conn: aiosqlite.Connection, script: str) -> None:
    for statement in split_sql(script):
        await conn.execute(statement)


async def upgrade(conn: aiosqlite.Connection, info: SchemaInfo) -> bool:
    """Add what we need (tables, missing columns, our indexes) in one transaction.

    Returns True when a backfill of our search indexes is pending.
    """
    await conn.execute("BEGIN IMMEDIATE")
    try:
        if info.fresh:
            await _run_script(conn, schema.HERMES_TABLES_SQL)
            await conn.execute(
                "INSERT INTO schema_version (version) VALUES (?)", (schema.FRESH_SCHEMA_VERSION,)
            )
        else:
            for table, wanted in (("sessions", schema.SESSION_COLUMNS), ("messages", schema.MESSAGE_COLUMNS)):
                live = {r[1] for r in await conn.execute_fetchall(f"PRAGMA table_info({table})")}
                for name, decl in wanted.items():
                    if name not in live:
                        await conn.execute(f"ALTER TABLE {table} ADD COLUMN {name} {decl}")
        await _run_script(conn, schema.ACTIVE_SQL)
        await _run_script(conn, schema.HWS_TABLES_SQL)
        existing = {
            (r[0], r[1])
            for r in await conn.execute_fetchall(
                "SELECT type, name FROM sqlite_master WHERE name LIKE 'hws_fts%'"
            )
        }
        row = await conn.execute_fetchall("SELECT value FROM hws_meta WHERE key = 'fts_format'")
        current = row[0][0] if row else None
        complete = all(obj in existing for obj in schema.FTS_OBJECTS)
        if not complete or current != schema.FTS_FORMAT:
            for kind, name in schema.FTS_OBJECTS:
                if (kind, name) in existing:
                    await conn.execute(f"DROP {kind.upper()} IF EXISTS {name}")
            await conn.execute("DELETE FROM hws_meta WHERE key IN ('fts_backfill_next', 'fts_backfill_max')")
            bounds = await conn.execute_fetchall("SELECT min(id), max(id) FROM messages")
            first, last = bounds[0]
            if last is not None:
                await conn.execute(
                    "INSERT INTO hws_meta (key, value) "
                    "VALUES ('fts_backfill_next', ?), ('fts_backfill_max', ?)",
                    (int(first), int(last)),
                )
            await _run_script(conn, schema.FTS_TABLES_SQL)
            await conn.execute(
                "INSERT OR REPLACE INTO hws_meta (key, value) VALUES ('fts_format', ?)", (schema.FTS_FORMAT,)
            )
        pending = await conn.execute_fetchall("SELECT 1 FROM hws_meta WHERE key = 'fts_backfill_max'")
        await conn.execute("COMMIT")
    except BaseException:
        await conn.execute("ROLLBACK")
        raise
    return bool(pending)


async def backfill(
    conn: aiosqlite.Connection, batch: int, on_progress: ProgressCallback | None = None
) -> None:
    """Index messages older than our indexes, one id range per short transaction (resumable)."""
    while True:
        await conn.execute("BEGIN IMMEDIATE")
        try:
            rows = await conn.execute_fetchall(
                "SELECT (SELECT value FROM hws_meta WHERE key = 'fts_backfill_next'), "
                "(SELECT value FROM hws_meta WHERE key = 'fts_backfill_max'), (SELECT min(id) FROM messages)"
            )
            start, last, first = rows[0]
            if start is None or last is None:
                await conn.execute("COMMIT")
                return
            end = int(start) + batch
            await conn.execute(schema.BACKFILL_WORDS_SQL, (start, end, last))
            await conn.execute(schema.BACKFILL_CJK_SQL, (start, end, last))
            if end > int(last):
                await conn.execute(
                    "DELETE FROM hws_meta WHERE key IN ('fts_backfill_next', 'fts_backfill_max')"
                )
            else:
                await conn.execute("UPDATE hws_meta SET value = ? WHERE key = 'fts_backfill_next'", (end,))
            await conn.execute("COMMIT")
        except BaseException:
            await conn.execute("ROLLBACK")
            raise
        if on_progress is not None:
            low = int(first or 0)
            on_progress(min(end - 1, int(last)) - low + 1, int(last) - low + 1)


async def configure(conn: aiosqlite.Connection, settings: Mapping[str, Any], writable: bool) -> None:
    """Connection pragmas: busy timeout, WAL (DELETE on file systems without shared memory)."""
    conn.text_factory = tolerant_text
    await conn.execute(f"PRAGMA busy_timeout = {int(settings['busy_timeout_ms'])}")
    await conn.execute("PRAGMA foreign_keys = ON")
    if not writable:
        return
    try:
        await conn.execute("PRAGMA journal_mode = WAL")
    except sqlite3.OperationalError as exc:
        text = str(exc).lower()
        if "locking protocol" not in text and "not authorized" not in text:
            raise
        await conn.execute("PRAGMA journal_mode = DELETE")
    level = "FULL" if settings["synchronous"] == "full" else "NORMAL"
    await conn.execute(f"PRAGMA synchronous = {level}")
