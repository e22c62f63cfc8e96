"""The episodic store: every message of every session in `$HERMES_HOME/state.db`, and search over them.

One `SessionStore` wraps one aiosqlite connection. The agent, the compressor, the TUI's sessions
pane and `hws sessions` all use the same API:

    store = await SessionStore.open(home.state_db, settings=config.sessions)
    session = await store.create_session(source="tui", model="m", system_prompt=prompt)
    await store.append_message(session.id, "user", text)          # committed before it returns
    await store.record_usage(session.id, input_tokens=1200, output_tokens=80, cost_usd=0.003)
    await store.end_session(session.id, "user_exit")
    result = await store.search("pottery class", limit=20)
    await store.close()

Every append is one auto-committed statement (the message, its FTS entries and the session's
counters together), so a crash at any moment loses at most the message not yet appended.
"""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

import aiosqlite

from engine.config_schema import SCHEMA
from engine.sessions import open_files, opening, schema, upkeep
from engine.sessions.errors import SessionNotFound, StoreCorrupt, StoreError, StoreReadOnly, TitleConflict
from engine.sessions.fts import FtsIndex, SearchFilters
from engine.sessions.ids import (
    SESSION_ID_RE,
    continuation_base,
    continuation_title,
    new_session_id,
    sanitize_title,
)
from engine.sessions.lineage import SessionTree
from engine.sessions.opening import ProgressCallback, SchemaInfo, explain, read_only_fs, read_only_uri
from engine.sessions.query import ParsedQuery, parse
from engine.sessions.records import (
    MESSAGE_FIELDS,
    SESSION_FIELDS,
    MessageRecord,
    SessionRecord,
    ToolResultRecord,
    decode_content,
    decode_json,
    encode_content,
    scrub,
)
from engine.sessions.search_plan import Searcher, SearchResult
from engine.sessions.text import DB_ERRORS, tolerant_text
from engine.threats.redact import Redactor

T = TypeVar("T")

# Hermes' per-model usage table (schema 20+), kept in step so its insights see our sessions too.
_USAGE_UPSERT = """
INSERT INTO session_model_usage (session_id, model, api_call_count, input_tokens, output_tokens,
    cache_read_tokens, cache_write_tokens, reasoning_tokens, estimated_cost_usd, first_seen, last_seen)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (session_id, model, billing_provider, billing_base_url, billing_mode, task) DO UPDATE SET
    api_call_count = api_call_count + excluded.api_call_count,
    input_tokens = input_tokens + excluded.input_tokens,
    output_tokens = output_tokens + excluded.output_tokens,
    cache_read_tokens = cache_read_tokens + excluded.cache_read_tokens,
    cache_write_tokens = cache_write_tokens + excluded.cache_write_tokens,
    reasoning_tokens = reasoning_tokens + excluded.reasoning_tokens,
    estimated_cost_usd = estimated_cost_usd + excluded.estimated_cost_usd,
    last_seen = excluded.last_seen
"""
_COUNTERS = {"message_count", "tool_call_count", "input_tokens", "output_tokens", "cache_read_tokens"}
_COUNTERS |= {"cache_write_tokens", "reasoning_tokens", "api_call_count"}


def _default_settings() -> Mapping[str, Any]:
    return {name: setting.default for name, setting in SCHEMA["sessions"].items()}


class SessionStore:
    """Sessions, their messages, counters and lineage (see `lineage.py`), and search over them."""

    def __init__(
        self,
        conn: aiosqlite.Connection,
        path: Path,
        info: SchemaInfo,
        settings: Mapping[str, Any],
        redactor: Redactor | None = None,
    ) -> None:
        self._conn = conn
        # Every text written passes through it: a key the model or a tool echoes never reaches the file.
        self.redactor = redactor if redactor is not None else Redactor.from_environ()
        self.path = path
        self.info = info
        self.settings = settings
        self._known_sessions: set[str] = set()
        self._claim = ""  # this store's count in `open_files`, released once at close
        self.last_upkeep: upkeep.Tidied | None = None  # what the index upkeep at close did
        # One statement (or transaction) at a time from this store's coroutines, so a write never
        # lands inside another's BEGIN ... COMMIT.
        self._lock = asyncio.Lock()
        self._session_select = self._select_list("sessions", SESSION_FIELDS)
        self.tree = SessionTree(self)  # parents, children, compression chains, conversations
        self._message_select = self._select_list("messages", MESSAGE_FIELDS)
        self.searcher = Searcher(
            path,
            words=self._words_index(),
            cjk=self._cjk_index(),
            message_columns=info.columns.get("messages", set()),
            settings=settings,
        )

    # -- opening and closing

    @classmethod
    async def open(
        cls,
        path: str | Path,
        *,
        settings: Mapping[str, Any] | None = None,
        read_only: bool = False,
        on_progress: ProgressCallback | None = None,
        redactor: Redactor | None = None,
    ) -> SessionStore:
        """Open (or create) a session database.

        A damaged or locked file raises StoreCorrupt / StoreLocked and is left untouched. A schema
        newer than we know opens read-only; `read_only_reason` says why. `on_progress(done, total)`
        is called while messages of an older database are indexed for search the first time.
        """
        path = Path(path)
        settings = settings if settings is not None else _default_settings()
        exists = path.exists() and path.stat().st_size > 0
        if read_only and not exists:
            raise StoreError(f"There is no session database at {path} yet.")
        # The header is read (with open(), whose close would drop this process's SQLite locks)
        # only while no other store of this process has the file open.
        claim = open_files.claim(path, opening.check_header if exists else lambda _path: None)
        try:
            store = await cls._open(path, settings, exists, read_only, on_progress, redactor)
        except BaseException:
            open_files.release(claim)
            raise
        store._claim = claim
        return store

    @classmethod
    async def _open(
        cls,
        path: Path,
        settings: Mapping[str, Any],
        exists: bool,
        read_only: bool,
        on_progress: ProgressCallback | None,
        redactor: Redactor | None,
    ) -> SessionStore:
        if exists:
            info = await cls._probe(path, settings)
        else:
            info = SchemaInfo(version=None, fresh=True)
        writable = not (read_only or info.read_only)
        if writable and exists and read_only_fs(path):
            info.read_only = True
            info.reason = f"{path} is on a read-only file system; it is open read-only."
            writable = False
        elif writable and exists and not _writable(path):
            info.read_only = True
            info.reason = f"{path} is not writable by this user; it is open read-only."
            writable = False
        if read_only and not info.reason:
            info.reason = "This session database was opened read-only."
        info.read_only = not writable
        target = read_only_uri(path) if not writable else str(path)
        try:
            if writable:
                path.parent.mkdir(parents=True, exist_ok=True)
            conn = await aiosqlite.connect(target, uri=not writable, isolation_level=None)
        except (sqlite3.Error, OSError) as exc:
            raise explain(exc, path) from exc
        try:
            await opening.configure(conn, settings, writable)
            if writable:
                changed = opening.needs_upgrade(info)
                pending = await opening.upgrade(conn, info) if changed else info.backfill_pending
                if pending:
                    await opening.backfill(conn, int(settings["index_batch"]), on_progress)
                await conn.execute(schema.COUNT_TRIGGER_SQL)
                if changed or pending:
                    info = _merge_info(await opening.read_shape(conn), info)
        except DB_ERRORS as exc:
            await conn.close()
            raise explain(exc, path) from exc
        except BaseException:
            await conn.close()
            raise
        return cls(conn, path, info, settings, redactor)

    @staticmethod
    async def _probe(path: Path, settings: Mapping[str, Any]) -> SchemaInfo:
        """Read the shape through a read-only connection, so a bad file is never written."""
        try:
            async with aiosqlite.connect(read_only_uri(path), uri=True) as probe:
                probe.text_factory = tolerant_text
                await probe.execute(f"PRAGMA busy_timeout = {int(settings['busy_timeout_ms'])}")
                info = await opening.read_shape(probe)
        except DB_ERRORS as exc:
            raise explain(exc, path) from exc
        opening.judge(info, path)
        return info

    async def close(self) -> None:
        """Checkpoint the WAL into the main file (best effort), close, then tidy the search index."""
        try:
            await self.searcher.close()
            async with self._lock:
                try:
                    if not self.read_only:
                        await self._conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
                except sqlite3.Error:
                    pass
                await self._conn.close()
                budget_s = float(self.settings["index_upkeep_ms"]) / 1000
                if budget_s > 0 and not self.read_only and self._ours_usable():
                    self.last_upkeep = await asyncio.to_thread(self._tidy, budget_s)
        finally:
            claim, self._claim = self._claim, ""
            if claim:
                open_files.release(claim)

    def _tidy(self, budget_s: float) -> upkeep.Tidied | None:
        """Index upkeep on a connection of its own; any failure leaves the index as it was."""
        try:
            return upkeep.tidy_file(
                str(self.path),
                budget_s,
                max_segments=int(self.settings["index_max_segments"]),
                pages=int(self.settings["index_merge_pages"]),
                busy_timeout_ms=int(self.settings["busy_timeout_ms"]),
            )
        except sqlite3.Error:
            return None  # another process writing, a full disk: the next close tries again

    async def __aenter__(self) -> SessionStore:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    @property
    def read_only(self) -> bool:
        return self.info.read_only

    @property
    def read_only_reason(self) -> str:
        return self.info.reason

    @property
    def schema_version(self) -> int | None:
        return self.info.version

    # -- low-level helpers

    def _select_list(self, table: str, fields: Sequence[str], alias: str = "") -> str:
        """Columns to select, NULL for any this database lacks (older or newer schemas)."""
        have = self.info.columns.get(table, set())
        prefix = f"{alias}." if alias else ""
        return ", ".join(f"{prefix}{f}" if f in have else f"NULL AS {f}" for f in fields)

    def _words_index(self) -> FtsIndex | None:
        if self._ours_usable():
            return FtsIndex("hws_fts", trigram=False)
        if "messages_fts" in self.info.tables:  # Hermes' own index (no stems), for read-only opens
            return FtsIndex("messages_fts", trigram=False)
        return None

    def _cjk_index(self) -> FtsIndex | None:
        if self._ours_usable():
            return FtsIndex("hws_fts_cjk", trigram=True, docsize="hws_fts_cjk_docsize")
        if "messages_fts_trigram" in self.info.tables:
            return FtsIndex("messages_fts_trigram", trigram=True)
        return None

    def _ours_usable(self) -> bool:
        # A read-only open may find our indexes half built (a backfill cut short): then Hermes' serve.
        return self.info.our_indexes_ready and not self.info.backfill_pending

    async def _fetch(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        async with self._lock:
            return await self._fetch_unlocked(sql, params)

    async def _fetch_unlocked(self, sql: str, params: Sequence[Any]) -> list[Any]:
        try:
            return list(await self._conn.execute_fetchall(sql, params))
        except DB_ERRORS as exc:
            raise self._failed(exc) from exc

    def _check_writable(self) -> None:
        if self.info.read_only:
            raise StoreReadOnly(self.info.reason or f"{self.path} is open read-only.")

    async def _write(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        """One auto-committed statement; refused on a read-only store."""
        self._check_writable()
        async with self._lock:
            return await self._fetch_unlocked(sql, params)

    async def _transaction(self, statements: Sequence[tuple[str, Sequence[Any]]]) -> None:
        """Several statements committed together, or not at all."""
        self._check_writable()
        async with self._lock:
            try:
                await self._conn.execute("BEGIN IMMEDIATE")
                for sql, params in statements:
                    await self._conn.execute(sql, params)
                await self._conn.execute("COMMIT")
            except DB_ERRORS as exc:
                if self._conn.in_transaction:
                    await self._conn.execute("ROLLBACK")
                raise self._failed(exc) from exc

    async def run_in_transaction(self, work: Callable[[aiosqlite.Connection], Awaitable[T]]) -> T:
        """`work(connection)` between BEGIN IMMEDIATE and COMMIT, alone on this store; ROLLBACK if it raises.

        For work that must read and write as one step (pruning: what it archives is what it deletes).
        """
        self._check_writable()
        async with self._lock:
            try:
                await self._conn.execute("BEGIN IMMEDIATE")
                result = await work(self._conn)
                await self._conn.execute("COMMIT")
            except BaseException as exc:
                if self._conn.in_transaction:
                    await self._conn.execute("ROLLBACK")
                if isinstance(exc, DB_ERRORS):
                    raise self._failed(exc) from exc
                raise
            return result

    def forget_sessions(self, session_ids: Iterable[str]) -> None:
        """Sessions deleted through `run_in_transaction` are no longer known to exist."""
        self._known_sessions.difference_update(session_ids)

    def _failed(self, exc: sqlite3.Error) -> StoreError:
        error = explain(exc, self.path)
        if isinstance(error, StoreCorrupt):
            # Never write to a damaged file again in this process: it must stay as it was.
            self.info.read_only = True
            self.info.reason = str(error)
        return error

    def _session(self, row: Sequence[Any]) -> SessionRecord:
        values = dict(zip(SESSION_FIELDS, row, strict=True))
        for name in _COUNTERS:
            values[name] = int(values[name] or 0)
        values["model_config"] = decode_json(values["model_config"])
        if not isinstance(values["model_config"], dict):
            values["model_config"] = None
        values["started_at"] = float(values["started_at"] or 0.0)
        return SessionRecord(**values)

    def _message(self, row: Sequence[Any]) -> MessageRecord:
        values = dict(zip(MESSAGE_FIELDS, row, strict=True))
        values["content"] = decode_content(values["content"])
        calls = decode_json(values["tool_calls"])
        values["tool_calls"] = calls if isinstance(calls, list) else ([calls] if calls else None)
        values["active"] = values["active"] is None or bool(values["active"])
        values["compacted"] = bool(values["compacted"])
        values["timestamp"] = float(values["timestamp"] or 0.0)
        return MessageRecord(**values)

    async def _require(self, session_id: str) -> None:
        if session_id in self._known_sessions:
            return
        rows = await self._fetch("SELECT 1 FROM sessions WHERE id = ?", (session_id,))
        if not rows:
            raise SessionNotFound(f"There is no session {session_id!r} in {self.path}.")
        self._known_sessions.add(session_id)

    # -- sessions

    async def create_session(
        self,
        *,
        source: str = "cli",
        model: str | None = None,
        system_prompt: str | None = None,
        parent_session_id: str | None = None,
        title: str | None = None,
        cwd: str | None = None,
        user_id: str | None = None,
        model_config: Mapping[str, Any] | None = None,
        session_id: str | None = None,
        started_at: float | None = None,
    ) -> SessionRecord:
        """Start a session. A continuation of a compression-ended parent inherits "Title #N"."""
        session_id = session_id or new_session_id()
        if not SESSION_ID_RE.match(session_id) and len(session_id) > 200:
            raise StoreError("A session id has at most 200 characters.")
        if parent_session_id is not None:
            await self._require(parent_session_id)
        clean_title = sanitize_title(self.redactor.text(title))
        if clean_title is None and parent_session_id is not None:
            parent = await self.get_session(parent_session_id)
            if parent and parent.end_reason == "compression" and parent.title:
                clean_title = await self._next_title(continuation_base(parent.title))
        if clean_title is not None:
            await self._check_title_free(clean_title, session_id)
        columns = {
            "id": session_id,
            "source": source or "cli",
            "started_at": started_at if started_at is not None else time.time(),
            "model": model,
            "system_prompt": scrub(self.redactor.text(system_prompt)),
            "parent_session_id": parent_session_id,
            "title": clean_title,
            "cwd": cwd,
            "user_id": user_id,
            "model_config": json.dumps(dict(model_config)) if model_config else None,
        }
        have = self.info.columns.get("sessions", set())
        names = [n for n in columns if n in have]
        try:
            await self._write(
                f"INSERT INTO sessions ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})",
                [columns[n] for n in names],
            )
        except StoreError as exc:
            if "UNIQUE" in str(exc.__cause__ or ""):
                raise StoreError(f"A session with id {session_id!r} already exists.") from exc
            raise
        self._known_sessions.add(session_id)
        created = await self.get_session(session_id)
        assert created is not None
        return created

    async def get_session(self, session_id: str) -> SessionRecord | None:
        rows = await self._fetch(f"SELECT {self._session_select} FROM sessions WHERE id = ?", (session_id,))
        return self._session(rows[0]) if rows else None

    async def require_session(self, session_id: str) -> SessionRecord:
        """The session with this id or unique id prefix; SessionNotFound otherwise."""
        session = await self.get_session(session_id)
        if session is not None:
            return session
        resolved = await self.resolve_session_id(session_id)
        session = await self.get_session(resolved) if resolved else None
        if session is None:
            raise SessionNotFound(f"There is no session {session_id!r} in {self.path}.")
        return session

    async def find_session(self, reference: str) -> SessionRecord:
        """The session a person names: its id, its title, a unique id prefix, or its title in another
        case (when only one session has it), in that order; SessionNotFound otherwise."""
        session = await self.get_session(reference)
        if session is not None:
            return session
        title = sanitize_title(reference, truncate=True)
        if title:
            rows = await self._fetch("SELECT id FROM sessions WHERE title = ?", (title,))
            if rows:
                return await self.require_session(rows[0][0])
        resolved = await self.resolve_session_id(reference)
        if resolved:
            return await self.require_session(resolved)
        if title:
            rows = await self._fetch(
                "SELECT id FROM sessions WHERE lower(title) = lower(?) LIMIT 2", (title,)
            )
            if len(rows) == 1:
                return await self.require_session(rows[0][0])
        raise SessionNotFound(f"No session has the id, id prefix or title {reference!r} in {self.path}.")

    async def get_system_prompt(self, session_id: str) -> str | None:
        """The system prompt recorded with a session, so a resumed session reuses it byte for byte."""
        rows = await self._fetch("SELECT system_prompt FROM sessions WHERE id = ?", (session_id,))
        return rows[0][0] if rows and rows[0][0] else None

    async def resolve_session_id(self, prefix: str) -> str | None:
        """The one session id starting with `prefix` (or equal to it); None if none or several."""
        escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        rows = await self._fetch(
            "SELECT id FROM sessions WHERE id = ? OR id LIKE ? ESCAPE '\\' LIMIT 2", (prefix, escaped + "%")
        )
        ids = {r[0] for r in rows}
        if prefix in ids:
            return prefix
        return rows[0][0] if len(rows) == 1 else None

    async def end_session(self, session_id: str, end_reason: str) -> bool:
        """Mark a session ended; the first reason wins (a later call changes nothing, returns False)."""
        await self._require(session_id)
        rows = await self._write(
            "UPDATE sessions SET ended_at = ?, end_reason = ? WHERE id = ? AND ended_at IS NULL RETURNING id",
            (time.time(), end_reason, session_id),
        )
        return bool(rows)

    async def reopen_session(self, session_id: str) -> None:
        """Clear the end of a session so it can be resumed."""
        await self._require(session_id)
        await self._write(
            "UPDATE sessions SET ended_at = NULL, end_reason = NULL WHERE id = ?", (session_id,)
        )

    async def set_title(self, session_id: str, title: str | None) -> str | None:
        """Sanitise and set a title (None clears it); TitleConflict if another session has it."""
        await self._require(session_id)
        clean = sanitize_title(self.redactor.text(title))
        if clean is not None:
            await self._check_title_free(clean, session_id)
        try:
            await self._write("UPDATE sessions SET title = ? WHERE id = ?", (clean, session_id))
        except StoreError as exc:
            if "UNIQUE" in str(exc.__cause__ or ""):
                raise TitleConflict(
                    f"Another session is already titled {clean!r}; choose another title."
                ) from exc
            raise
        return clean

    async def set_unique_title(self, session_id: str, title: str) -> str:
        """Set `title` (cut to the longest a title may be), or the first free "title #N" when another
        session has it (titles are unique in Hermes' schema); returns the title set."""
        await self._require(session_id)
        base = sanitize_title(self.redactor.text(title), truncate=True)
        if base is None:
            raise StoreError("A session title needs some text.")
        for _attempt in range(5):  # another writer may take the free title between the look and the write
            rows = await self._fetch("SELECT id FROM sessions WHERE title = ?", (base,))
            free = not rows or rows[0][0] == session_id
            candidate = base if free else await self._next_title(base)
            try:
                return await self.set_title(session_id, candidate) or candidate
            except TitleConflict:
                continue
        raise TitleConflict(f"Could not find a free title like {base!r}; choose another title.")

    async def _check_title_free(self, title: str, session_id: str) -> None:
        rows = await self._fetch("SELECT id FROM sessions WHERE title = ? AND id != ?", (title, session_id))
        if rows:
            raise TitleConflict(f"Session {rows[0][0]} is already titled {title!r}; choose another title.")

    async def _next_title(self, base: str) -> str:
        escaped = base.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        rows = await self._fetch(
            "SELECT title FROM sessions WHERE title = ? OR title LIKE ? ESCAPE '\\'", (base, escaped + " #%")
        )
        return continuation_title(base, {r[0] for r in rows})

    async def update_session(
        self,
        session_id: str,
        *,
        model: str | None = None,
        system_prompt: str | None = None,
        cwd: str | None = None,
    ) -> None:
        """Replace the model, system prompt or working folder recorded for a session."""
        await self._require(session_id)
        changes = {"model": model, "system_prompt": scrub(self.redactor.text(system_prompt)), "cwd": cwd}
        have = self.info.columns.get("sessions", set())
        sets = {k: v for k, v in changes.items() if v is not None and k in have}
        if sets:
            assignments = ", ".join(f"{k} = ?" for k in sets)
            await self._write(f"UPDATE sessions SET {assignments} WHERE id = ?", [*sets.values(), session_id])

    async def record_approval(
        self,
        session_id: str,
        *,
        tool: str,
        command: str,
        decision: str,
        tool_call_id: str = "",
        rule: str = "",
        scope: str = "",
        by_session_rule: bool = False,
    ) -> None:
        """Keep one approval: the person's answer, or a call a session approval let run unasked."""
        await self._write(
            "INSERT INTO hws_approvals (session_id, tool_call_id, tool, command, rule, scope, decision, "
            "by_session_rule, timestamp) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                session_id,
                tool_call_id or None,
                tool,
                self.redactor(command),
                rule or None,
                scope or None,
                decision,
                int(by_session_rule),
                time.time(),
            ],
        )

    async def approvals(self, session_id: str) -> list[dict[str, Any]]:
        """The session's approvals, oldest first (none in a database that never kept them)."""
        if "hws_approvals" not in self.info.tables:
            return []
        rows = await self._fetch(
            "SELECT tool_call_id, tool, command, rule, scope, decision, by_session_rule, timestamp "
            "FROM hws_approvals WHERE session_id = ? ORDER BY id",
            [session_id],
        )
        names = (
            "tool_call_id",
            "tool",
            "command",
            "rule",
            "scope",
            "decision",
            "by_session_rule",
            "timestamp",
        )
        return [dict(zip(names, row, strict=True)) for row in rows]

    async def record_usage(
        self,
        session_id: str,
        *,
        input_tokens: int = 0,
        output_tokens: int = 0,
        cache_read_tokens: int = 0,
        cache_write_tokens: int = 0,
        reasoning_tokens: int = 0,
        cost_usd: float | None = None,
        api_calls: int = 1,
        model: str | None = None,
    ) -> None:
        """Add one model call's usage to the session's counters (and Hermes' per-model table)."""
        await self._require(session_id)
        amounts = {
            "input_tokens": input_tokens,
            "output_tokens": output_tokens,
            "cache_read_tokens": cache_read_tokens,
            "cache_write_tokens": cache_write_tokens,
            "reasoning_tokens": reasoning_tokens,
            "api_call_count": api_calls,
        }
        for name, value in amounts.items():
            if int(value) < 0:
                raise StoreError(f"Usage counts cannot be negative ({name} = {value}).")
        sets = [f"{name} = COALESCE({name}, 0) + ?" for name in amounts]
        params: list[Any] = [int(v) for v in amounts.values()]
        if cost_usd is not None:
            sets.append("estimated_cost_usd = COALESCE(estimated_cost_usd, 0) + ?")
            params.append(float(cost_usd))
        if model:
            sets.append("model = COALESCE(model, ?)")
            params.append(model)
        statements: list[tuple[str, Sequence[Any]]] = [
            (f"UPDATE sessions SET {', '.join(sets)} WHERE id = ?", [*params, session_id])
        ]
        if self._usage_table_ready():
            now = time.time()
            statements.append(
                (
                    _USAGE_UPSERT,
                    (
                        session_id,
                        model or (await self._session_model(session_id)) or "unknown",
                        *[int(v) for v in (api_calls, input_tokens, output_tokens)],
                        *[int(v) for v in (cache_read_tokens, cache_write_tokens, reasoning_tokens)],
                        float(cost_usd or 0.0),
                        now,
                        now,
                    ),
                )
            )
        await self._transaction(statements)

    def _usage_table_ready(self) -> bool:
        cols = self.info.columns.get("session_model_usage", set())
        return {"task", "billing_provider", "first_seen"} <= cols

    async def _session_model(self, session_id: str) -> str | None:
        rows = await self._fetch("SELECT model FROM sessions WHERE id = ?", (session_id,))
        return rows[0][0] if rows else None

    # -- messages

    async def append_message(
        self,
        session_id: str,
        role: str,
        content: Any = None,
        *,
        tool_calls: Sequence[Any] | None = None,
        tool_call_id: str | None = None,
        tool_name: str | None = None,
        token_count: int | None = None,
        finish_reason: str | None = None,
        reasoning: str | None = None,
        timestamp: float | None = None,
        outcome: Mapping[str, Any] | None = None,
    ) -> int:
        """Append one message and return its id; it is committed (and searchable) on return.

        Call it as each message completes: the user's before the model is called, a streamed reply
        when it ends, each tool call and each tool result as it happens. A tool result's `outcome`
        (`ok`, `summary`, `duration_s`: what the tool layer said of it) is kept with it, together.
        """
        await self._require(session_id)
        if not role:
            raise StoreError("A message needs a role (user, assistant, tool or system).")
        values = {
            "session_id": session_id,
            "role": role,
            "content": encode_content(self.redactor.value(content)),
            "tool_call_id": tool_call_id,
            "tool_calls": json.dumps(self.redactor.value(list(tool_calls))) if tool_calls else None,
            "tool_name": scrub(tool_name),
            "timestamp": time.time() if timestamp is None else float(timestamp),
            "token_count": token_count,
            "finish_reason": finish_reason,
            "reasoning": scrub(self.redactor.text(reasoning)),
            "active": 1,
        }
        have = self.info.columns.get("messages", set())
        names = [n for n in values if n in have]
        marks = ", ".join("?" * len(names))
        insert = f"INSERT INTO messages ({', '.join(names)}) VALUES ({marks}) RETURNING id"
        try:
            if outcome is not None and "hws_tool_results" in self.info.tables:
                return await self._append_with_outcome(insert, [values[n] for n in names], values, outcome)
            rows = await self._write(insert, [values[n] for n in names])
        except StoreError as exc:
            if "FOREIGN KEY" in str(exc.__cause__ or ""):  # deleted by another process meanwhile
                self._known_sessions.discard(session_id)
                raise SessionNotFound(f"There is no session {session_id!r} in {self.path}.") from exc
            raise
        return int(rows[0][0])

    async def _append_with_outcome(
        self, insert: str, params: Sequence[Any], values: Mapping[str, Any], outcome: Mapping[str, Any]
    ) -> int:
        """The message and its outcome row in one transaction: neither is ever kept without the other."""
        self._check_writable()
        async with self._lock:
            try:
                await self._conn.execute("BEGIN IMMEDIATE")
                rows = list(await self._conn.execute_fetchall(insert, params))
                message_id = int(rows[0][0])
                await self._conn.execute(
                    "INSERT INTO hws_tool_results (message_id, session_id, tool_call_id, ok, summary, "
                    "duration_s) VALUES (?, ?, ?, ?, ?, ?)",
                    (
                        message_id,
                        values["session_id"],
                        values["tool_call_id"],
                        int(bool(outcome.get("ok", True))),
                        scrub(self.redactor.text(str(outcome.get("summary") or ""))),
                        float(outcome.get("duration_s") or 0.0),
                    ),
                )
                await self._conn.execute("COMMIT")
            except DB_ERRORS as exc:
                if self._conn.in_transaction:
                    await self._conn.execute("ROLLBACK")
                raise self._failed(exc) from exc
        return message_id

    async def tool_results(self, message_ids: Sequence[int]) -> dict[int, ToolResultRecord]:
        """What the tool layer said of these tool result messages (those it said anything of)."""
        ids = [int(i) for i in message_ids]
        if not ids or "hws_tool_results" not in self.info.tables:
            return {}
        found: dict[int, ToolResultRecord] = {}
        for start in range(0, len(ids), 500):  # within SQLite's limit on bound parameters
            chunk = ids[start : start + 500]
            rows = await self._fetch(
                "SELECT message_id, tool_call_id, ok, summary, duration_s FROM hws_tool_results "
                f"WHERE message_id IN ({','.join('?' * len(chunk))})",
                chunk,
            )
            for message_id, call_id, ok, summary, duration in rows:
                found[int(message_id)] = ToolResultRecord(
                    int(message_id), str(call_id or ""), bool(ok), str(summary or ""), float(duration or 0.0)
                )
        return found

    async def get_messages(
        self, session_id: str, *, include_inactive: bool = False, limit: int | None = None, offset: int = 0
    ) -> list[MessageRecord]:
        """A session's messages in the order they were written (rewound ones only if asked)."""
        active = "" if include_inactive or not self.info.has("messages", "active") else " AND active = 1"
        rows = await self._fetch(
            f"SELECT {self._message_select} FROM messages WHERE session_id = ?{active} "
            "ORDER BY id LIMIT ? OFFSET ?",
            (session_id, -1 if limit is None else limit, offset),
        )
        return [self._message(r) for r in rows]

    async def get_message(self, message_id: int) -> MessageRecord | None:
        rows = await self._fetch(f"SELECT {self._message_select} FROM messages WHERE id = ?", (message_id,))
        return self._message(rows[0]) if rows else None

    async def messages_around(
        self,
        session_id: str,
        message_id: int,
        window: int,
        *,
        roles: Sequence[str] = (),
        include_inactive: bool = False,
    ) -> tuple[list[MessageRecord], list[MessageRecord], int, int]:
        """(`window` before, anchor and `window` after, how many more before, how many more after);
        `include_inactive` reads rewound messages too (around a rewound anchor)."""
        conds, params = self._visible(roles, include_inactive)
        before = await self._fetch(
            f"SELECT {self._message_select} FROM messages WHERE session_id = ? AND id < ?{conds} "
            "ORDER BY id DESC LIMIT ?",
            (session_id, message_id, *params, window),
        )
        after = await self._fetch(
            f"SELECT {self._message_select} FROM messages WHERE session_id = ? AND id >= ?{conds} "
            "ORDER BY id LIMIT ?",
            (session_id, message_id, *params, window + 1),
        )
        counts = await self._fetch(
            f"SELECT (SELECT count(*) FROM messages WHERE session_id = ? AND id < ?{conds}), "
            f"(SELECT count(*) FROM messages WHERE session_id = ? AND id >= ?{conds})",
            (session_id, message_id, *params, session_id, message_id, *params),
        )
        more_before = max(0, int(counts[0][0]) - len(before))
        more_after = max(0, int(counts[0][1]) - len(after))
        return (
            [self._message(r) for r in reversed(before)],
            [self._message(r) for r in after],
            more_before,
            more_after,
        )

    async def bookends(
        self, session_id: str, count: int, *, roles: Sequence[str] = ("user", "assistant")
    ) -> tuple[list[MessageRecord], list[MessageRecord], int]:
        """The first and last `count` messages of a session (of `roles`), and its total of them."""
        conds, params = self._visible(roles)
        first = await self._fetch(
            f"SELECT {self._message_select} FROM messages WHERE session_id = ?{conds} ORDER BY id LIMIT ?",
            (session_id, *params, count),
        )
        last = await self._fetch(
            f"SELECT {self._message_select} FROM messages WHERE session_id = ?{conds} "
            "ORDER BY id DESC LIMIT ?",
            (session_id, *params, count),
        )
        total = await self._fetch(
            f"SELECT count(*) FROM messages WHERE session_id = ?{conds}", (session_id, *params)
        )
        return [self._message(r) for r in first], [self._message(r) for r in reversed(last)], int(total[0][0])

    def _visible(self, roles: Sequence[str], include_inactive: bool = False) -> tuple[str, list[Any]]:
        conds = ""
        params: list[Any] = []
        if self.info.has("messages", "active") and not include_inactive:
            conds += " AND active = 1"
        if roles:
            conds += f" AND role IN ({','.join('?' * len(roles))})"
            params.extend(roles)
        return conds, params

    async def session_count(self) -> int:
        return int((await self._fetch("SELECT count(*) FROM sessions"))[0][0])

    async def message_count(self, session_id: str | None = None) -> int:
        if session_id is None:
            return int((await self._fetch("SELECT count(*) FROM messages"))[0][0])
        rows = await self._fetch("SELECT count(*) FROM messages WHERE session_id = ?", (session_id,))
        return int(rows[0][0])

    # -- search

    async def search(
        self,
        query: str | ParsedQuery,
        *,
        limit: int = 20,
        roles: Sequence[str] = (),
        since: float | None = None,
        until: float | None = None,
        session_ids: Sequence[str] = (),
        sources: Sequence[str] = (),
        exclude_sources: Sequence[str] = (),
        exclude_session_ids: Sequence[str] = (),
    ) -> SearchResult:
        """Messages matching free text, best first (bm25), each with a `>>>marked<<<` snippet.

        Any text is accepted (see `query.parse`); filters narrow by role, date, session and source.
        """
        parsed = query if isinstance(query, ParsedQuery) else parse(query)
        filters = SearchFilters(
            roles=tuple(roles),
            since=since,
            until=until,
            session_ids=tuple(session_ids),
            sources=tuple(sources),
            exclude_sources=tuple(exclude_sources),
            exclude_session_ids=tuple(exclude_session_ids),
        )
        try:
            return await self.searcher.search(parsed, filters, max(0, int(limit)))
        except DB_ERRORS as exc:
            raise self._failed(exc) from exc

    async def integrity_errors(self) -> list[str]:
        """SQLite's own check of the whole file plus our FTS indexes; empty when all is well."""
        rows = await self._fetch("PRAGMA integrity_check")
        problems = [r[0] for r in rows if r[0] != "ok"]
        if self.info.our_indexes_ready and not self.info.read_only:
            for table in ("hws_fts", "hws_fts_cjk"):
                try:
                    async with self._lock:
                        await self._conn.execute(
                            f"INSERT INTO {table}({table}, rank) VALUES ('integrity-check', 1)"
                        )
                except DB_ERRORS as exc:
                    problems.append(f"{table}: {exc}")
        return problems


def _writable(path: Path) -> bool:
    return os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)


def _merge_info(fresh: SchemaInfo, old: SchemaInfo) -> SchemaInfo:
    fresh.read_only = old.read_only
    fresh.reason = old.reason
    fresh.fresh = old.fresh
    return fresh
