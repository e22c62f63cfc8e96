"""The shape of `state.db`: Hermes Agent's tables, plus our search indexes beside them.

Compatibility rules, because Hermes Agent may open the same file before or after us:
- A fresh database gets Hermes' schema 22 tables, columns and indexes, so Hermes opens it as its own.
- An existing one (schema 6 to 22) only ever gains things: the columns of schema 22 it lacks (the
  same `ALTER TABLE ... ADD COLUMN` Hermes' own reconciler would run), our `hws_*` tables, indexes
  and triggers. Nothing of Hermes' is dropped or rewritten, and `schema_version` is left alone so
  Hermes still runs its own data migrations.
- A schema newer than 22 is opened read-only.

Our two FTS5 indexes keep no copy of the text (the ~100 MB saving per 100k messages):
- `hws_fts` (porter + unicode61) is an external-content index over `messages`' own columns;
- `hws_fts_cjk` (trigram, contentless) indexes only messages holding CJK text, which is all a
  substring search in those scripts needs; every other script goes through `hws_fts`. Two spaces
  end each indexed text, so every character starts some trigram: 1- and 2-character searches are
  then a range scan of the index's vocabulary instead of a scan of the messages.
Both are kept in step by triggers in plain SQL, so any writer (Hermes included) keeps them right.
A message written before the indexes existed is indexed by a resumable backfill; until it is,
the triggers skip it (the `hws_meta` bounds below), so a concurrent writer can never make an
index disagree with the table.
"""

from __future__ import annotations

from engine.sessions.query import CJK_RANGES

FRESH_SCHEMA_VERSION = 22  # what Hermes Agent 0.19 writes, and what a new database gets
OLDEST_KNOWN_VERSION = 6
NEWEST_KNOWN_VERSION = 22
FTS_FORMAT = 1  # bump to rebuild our indexes when their definition changes

CJK_GLOB = "*[" + "".join(f"{chr(lo)}-{chr(hi)}" for lo, hi in CJK_RANGES) + "]*"

# Columns of schema 22 (name -> declaration usable in ALTER TABLE ADD COLUMN).
SESSION_COLUMNS: dict[str, str] = {
    "user_id": "TEXT",
    "session_key": "TEXT",
    "chat_id": "TEXT",
    "chat_type": "TEXT",
    "thread_id": "TEXT",
    "display_name": "TEXT",
    "origin_json": "TEXT",
    "expiry_finalized": "INTEGER DEFAULT 0",
    "model": "TEXT",
    "model_config": "TEXT",
    "system_prompt": "TEXT",
    "parent_session_id": "TEXT",
    "ended_at": "REAL",
    "end_reason": "TEXT",
    "message_count": "INTEGER DEFAULT 0",
    "tool_call_count": "INTEGER DEFAULT 0",
    "input_tokens": "INTEGER DEFAULT 0",
    "output_tokens": "INTEGER DEFAULT 0",
    "cache_read_tokens": "INTEGER DEFAULT 0",
    "cache_write_tokens": "INTEGER DEFAULT 0",
    "reasoning_tokens": "INTEGER DEFAULT 0",
    "cwd": "TEXT",
    "git_branch": "TEXT",
    "git_repo_root": "TEXT",
    "billing_provider": "TEXT",
    "billing_base_url": "TEXT",
    "billing_mode": "TEXT",
    "estimated_cost_usd": "REAL",
    "actual_cost_usd": "REAL",
    "cost_status": "TEXT",
    "cost_source": "TEXT",
    "pricing_version": "TEXT",
    "title": "TEXT",
    "api_call_count": "INTEGER DEFAULT 0",
    "handoff_state": "TEXT",
    "handoff_platform": "TEXT",
    "handoff_error": "TEXT",
    "compression_failure_cooldown_until": "REAL",
    "compression_failure_error": "TEXT",
    "compression_fallback_streak": "INTEGER NOT NULL DEFAULT 0",
    "profile_name": "TEXT",
    "rewind_count": "INTEGER NOT NULL DEFAULT 0",
    "archived": "INTEGER NOT NULL DEFAULT 0",
}

MESSAGE_COLUMNS: dict[str, str] = {
    "content": "TEXT",
    "tool_call_id": "TEXT",
    "tool_calls": "TEXT",
    "tool_name": "TEXT",
    "effect_disposition": "TEXT",
    "token_count": "INTEGER",
    "finish_reason": "TEXT",
    "reasoning": "TEXT",
    "reasoning_content": "TEXT",
    "reasoning_details": "TEXT",
    "codex_reasoning_items": "TEXT",
    "codex_message_items": "TEXT",
    "platform_message_id": "TEXT",
    "observed": "INTEGER DEFAULT 0",
    "active": "INTEGER NOT NULL DEFAULT 1",
    "compacted": "INTEGER NOT NULL DEFAULT 0",
    "api_content": "TEXT",
}


def _column_lines(columns: dict[str, str]) -> str:
    return "".join(f",\n    {name} {decl}" for name, decl in columns.items())


HERMES_TABLES_SQL = f"""
CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,
    source TEXT NOT NULL,
    started_at REAL NOT NULL{_column_lines(SESSION_COLUMNS)},
    FOREIGN KEY (parent_session_id) REFERENCES sessions(id)
);
CREATE TABLE IF NOT EXISTS messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions(id),
    role TEXT NOT NULL,
    timestamp REAL NOT NULL{_column_lines(MESSAGE_COLUMNS)}
);
CREATE TABLE IF NOT EXISTS session_model_usage (
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    model TEXT NOT NULL,
    billing_provider TEXT NOT NULL DEFAULT '',
    billing_base_url TEXT NOT NULL DEFAULT '',
    billing_mode TEXT NOT NULL DEFAULT '',
    task TEXT NOT NULL DEFAULT '',
    api_call_count INTEGER NOT NULL DEFAULT 0,
    input_tokens INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    cache_read_tokens INTEGER NOT NULL DEFAULT 0,
    cache_write_tokens INTEGER NOT NULL DEFAULT 0,
    reasoning_tokens INTEGER NOT NULL DEFAULT 0,
    estimated_cost_usd REAL NOT NULL DEFAULT 0,
    actual_cost_usd REAL NOT NULL DEFAULT 0,
    cost_status TEXT,
    cost_source TEXT,
    first_seen REAL,
    last_seen REAL,
    PRIMARY KEY (session_id, model, billing_provider, billing_base_url, billing_mode, task)
);
CREATE TABLE IF NOT EXISTS state_meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS compression_locks (
    session_id TEXT PRIMARY KEY,
    holder TEXT NOT NULL,
    acquired_at REAL NOT NULL,
    expires_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_sessions_source ON sessions(source);
CREATE INDEX IF NOT EXISTS idx_sessions_source_id ON sessions(source, id);
CREATE INDEX IF NOT EXISTS idx_sessions_parent ON sessions(parent_session_id);
CREATE INDEX IF NOT EXISTS idx_sessions_started ON sessions(started_at DESC);
CREATE INDEX IF NOT EXISTS idx_messages_session ON messages(session_id, timestamp);
CREATE INDEX IF NOT EXISTS idx_compression_locks_expires ON compression_locks(expires_at);
CREATE INDEX IF NOT EXISTS idx_session_model_usage_session ON session_model_usage(session_id);
CREATE INDEX IF NOT EXISTS idx_session_model_usage_model ON session_model_usage(model);
CREATE UNIQUE INDEX IF NOT EXISTS idx_sessions_title_unique ON sessions(title) WHERE title IS NOT NULL;
"""

# `messages.active`: 0 marks a message rewound (taken back with /undo) or compacted in place; every
# history loaded for the model reads `active = 1` only. Hermes creates these indexes after adding
# the column to an older file and, on every start, repairs rows an older Hermes wrote with NULL
# (which `active = 1` would hide); we do the same, so the two agree on any file either touched.
ACTIVE_INDEXES = ("idx_messages_session_active", "idx_messages_active_null")
ACTIVE_SQL = """
CREATE INDEX IF NOT EXISTS idx_messages_session_active ON messages(session_id, active, timestamp);
CREATE INDEX IF NOT EXISTS idx_messages_active_null ON messages(active) WHERE active IS NULL;
UPDATE messages SET active = 1 WHERE active IS NULL;
"""

# Our bookkeeping tables and the indexes our queries need (a session's messages in id order; a
# date range turned into a message id range). `hws_approvals` keeps every answer to an approval
# question, and every call an earlier "approve for this session" let run unasked. `hws_tool_results`
# keeps what the tool layer said of each result message (ok or not, its one-line summary, how long
# it took), which the message's text alone cannot say: a declined command's result is plain JSON.
HWS_TABLES_SQL = """
CREATE TABLE IF NOT EXISTS hws_meta (key TEXT PRIMARY KEY, value);
CREATE TABLE IF NOT EXISTS hws_approvals (
    id INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL,
    tool_call_id TEXT,
    tool TEXT NOT NULL,
    command TEXT NOT NULL,
    rule TEXT,
    scope TEXT,
    decision TEXT NOT NULL,
    by_session_rule INTEGER NOT NULL DEFAULT 0,
    timestamp REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS hws_approvals_session ON hws_approvals(session_id, id);
CREATE TABLE IF NOT EXISTS hws_tool_results (
    message_id INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL,
    tool_call_id TEXT,
    ok INTEGER NOT NULL,
    summary TEXT,
    duration_s REAL
);
CREATE INDEX IF NOT EXISTS hws_messages_session_id ON messages(session_id, id);
CREATE INDEX IF NOT EXISTS hws_messages_time ON messages(timestamp);
"""

HWS_TABLES = ("hws_meta", "hws_approvals", "hws_tool_results")
"""Our bookkeeping tables: a database lacking any of them is upgraded when opened for writing."""

# A message row is in our indexes unless a backfill is running and has not reached it yet.
_INDEXED = (
    "({row}.id > COALESCE((SELECT value FROM hws_meta WHERE key = 'fts_backfill_max'), -1)"
    " OR {row}.id < COALESCE((SELECT value FROM hws_meta WHERE key = 'fts_backfill_next'), 0))"
)
_HAS_CJK = f"{{row}}.content GLOB '{CJK_GLOB}'"


def _indexed(row: str) -> str:
    return _INDEXED.format(row=row)


def _cjk(row: str) -> str:
    return _HAS_CJK.format(row=row)


FTS_TABLES_SQL = f"""
CREATE VIRTUAL TABLE IF NOT EXISTS hws_fts USING fts5(
    content, tool_name, tool_calls,
    content='messages', content_rowid='id',
    tokenize='porter unicode61 remove_diacritics 2'
);
CREATE VIRTUAL TABLE IF NOT EXISTS hws_fts_cjk USING fts5(content, content='', tokenize='trigram');

CREATE TRIGGER IF NOT EXISTS hws_fts_insert AFTER INSERT ON messages WHEN {_indexed("new")} BEGIN
    INSERT INTO hws_fts(rowid, content, tool_name, tool_calls)
    VALUES (new.id, new.content, new.tool_name, new.tool_calls);
END;
CREATE TRIGGER IF NOT EXISTS hws_fts_delete AFTER DELETE ON messages WHEN {_indexed("old")} BEGIN
    INSERT INTO hws_fts(hws_fts, rowid, content, tool_name, tool_calls)
    VALUES ('delete', old.id, old.content, old.tool_name, old.tool_calls);
END;
CREATE TRIGGER IF NOT EXISTS hws_fts_update AFTER UPDATE OF content, tool_name, tool_calls ON messages
WHEN {_indexed("old")} BEGIN
    INSERT INTO hws_fts(hws_fts, rowid, content, tool_name, tool_calls)
    VALUES ('delete', old.id, old.content, old.tool_name, old.tool_calls);
    INSERT INTO hws_fts(rowid, content, tool_name, tool_calls)
    VALUES (new.id, new.content, new.tool_name, new.tool_calls);
END;

CREATE TRIGGER IF NOT EXISTS hws_fts_cjk_insert AFTER INSERT ON messages
WHEN {_cjk("new")} AND {_indexed("new")} BEGIN
    INSERT INTO hws_fts_cjk(rowid, content) VALUES (new.id, new.content || '  ');
END;
CREATE TRIGGER IF NOT EXISTS hws_fts_cjk_delete AFTER DELETE ON messages
WHEN {_cjk("old")} AND {_indexed("old")} BEGIN
    INSERT INTO hws_fts_cjk(hws_fts_cjk, rowid, content) VALUES ('delete', old.id, old.content || '  ');
END;
CREATE TRIGGER IF NOT EXISTS hws_fts_cjk_update_old AFTER UPDATE OF content ON messages
WHEN {_cjk("old")} AND {_indexed("old")} BEGIN
    INSERT INTO hws_fts_cjk(hws_fts_cjk, rowid, content) VALUES ('delete', old.id, old.content || '  ');
END;
CREATE TRIGGER IF NOT EXISTS hws_fts_cjk_update_new AFTER UPDATE OF content ON messages
WHEN {_cjk("new")} AND {_indexed("old")} BEGIN
    INSERT INTO hws_fts_cjk(rowid, content) VALUES (new.id, new.content || '  ');
END;
"""

FTS_OBJECTS = (
    ("trigger", "hws_fts_insert"),
    ("trigger", "hws_fts_delete"),
    ("trigger", "hws_fts_update"),
    ("trigger", "hws_fts_cjk_insert"),
    ("trigger", "hws_fts_cjk_delete"),
    ("trigger", "hws_fts_cjk_update_old"),
    ("trigger", "hws_fts_cjk_update_new"),
    ("table", "hws_fts"),
    ("table", "hws_fts_cjk"),
)

# Backfill of messages that predate our indexes, one id range per transaction.
BACKFILL_WORDS_SQL = """
INSERT INTO hws_fts(rowid, content, tool_name, tool_calls)
SELECT id, content, tool_name, tool_calls FROM messages WHERE id >= ? AND id < ? AND id <= ?
"""
BACKFILL_CJK_SQL = f"""
INSERT INTO hws_fts_cjk(rowid, content)
SELECT id, content || '  ' FROM messages WHERE id >= ? AND id < ? AND id <= ? AND {_cjk("messages")}
"""

# Counters kept by our own connection only (a TEMP trigger is invisible to other writers, which
# count for themselves as Hermes does): one INSERT statement then appends a message and bumps its
# session's counts in a single atomic, auto-committed step.
COUNT_TRIGGER_SQL = """
CREATE TEMP TRIGGER IF NOT EXISTS hws_count_message AFTER INSERT ON main.messages BEGIN
    UPDATE sessions SET
        message_count = COALESCE(message_count, 0) + 1,
        tool_call_count = COALESCE(tool_call_count, 0) + CASE
            WHEN new.tool_calls IS NULL OR new.tool_calls IN ('', 'null', '[]') THEN 0
            WHEN json_valid(new.tool_calls) AND json_type(new.tool_calls) = 'array'
                THEN json_array_length(new.tool_calls)
            ELSE 1 END
    WHERE id = new.session_id;
END;
"""
