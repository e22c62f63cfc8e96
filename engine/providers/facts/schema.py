"""The layout of `memory_store.db`, the same file Hermes' holographic memory plugin keeps.

Tables: `facts` (one row per fact, its trust and counters, its HRR vector), `entities` and the
`fact_entities` links, `facts_fts` (an external-content FTS5 index over content and tags, kept by
triggers) and `memory_banks` (one bundled vector per category, `cat:<category>`). Opening a file
creates what is missing and never changes what is there, so a store either program made opens in
the other. (One index Hermes does not make, `fact_entities` by entity, lets a named entity's facts be
found without reading every link; Hermes ignores it.)
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

FILENAME = "memory_store.db"
FACT_COLUMNS = (
    "fact_id, content, category, tags, trust_score, retrieval_count, helpful_count, created_at, updated_at"
)

_TABLES = """
CREATE TABLE IF NOT EXISTS facts (
    fact_id INTEGER PRIMARY KEY AUTOINCREMENT,
    content TEXT NOT NULL UNIQUE,
    category TEXT DEFAULT 'general',
    tags TEXT DEFAULT '',
    trust_score REAL DEFAULT 0.5,
    retrieval_count INTEGER DEFAULT 0,
    helpful_count INTEGER DEFAULT 0,
    created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    hrr_vector BLOB
);
CREATE TABLE IF NOT EXISTS entities (
    entity_id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL,
    entity_type TEXT DEFAULT 'unknown',
    aliases TEXT DEFAULT '',
    created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP
);
CREATE TABLE IF NOT EXISTS fact_entities (
    fact_id INTEGER REFERENCES facts(fact_id),
    entity_id INTEGER REFERENCES entities(entity_id),
    PRIMARY KEY (fact_id, entity_id)
);
CREATE INDEX IF NOT EXISTS idx_facts_trust ON facts(trust_score DESC);
CREATE INDEX IF NOT EXISTS idx_facts_category ON facts(category);
CREATE INDEX IF NOT EXISTS idx_entities_name ON entities(name);
CREATE INDEX IF NOT EXISTS idx_fact_entities_entity ON fact_entities(entity_id);
CREATE VIRTUAL TABLE IF NOT EXISTS facts_fts USING fts5(content, tags, content=facts, content_rowid=fact_id);
CREATE TABLE IF NOT EXISTS memory_banks (
    bank_id INTEGER PRIMARY KEY AUTOINCREMENT,
    bank_name TEXT NOT NULL UNIQUE,
    vector BLOB NOT NULL,
    dim INTEGER NOT NULL,
    fact_count INTEGER DEFAULT 0,
    updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP
);
"""

# The index follows every insert, delete and update of a fact (an update is a delete, then an insert).
_TRIGGERS = """
CREATE TRIGGER IF NOT EXISTS facts_ai AFTER INSERT ON facts BEGIN
    INSERT INTO facts_fts(rowid, content, tags) VALUES (new.fact_id, new.content, new.tags);
END;
CREATE TRIGGER IF NOT EXISTS facts_ad AFTER DELETE ON facts BEGIN
    INSERT INTO facts_fts(facts_fts, rowid, content, tags)
        VALUES ('delete', old.fact_id, old.content, old.tags);
END;
CREATE TRIGGER IF NOT EXISTS facts_au AFTER UPDATE ON facts BEGIN
    INSERT INTO facts_fts(facts_fts, rowid, content, tags)
        VALUES ('delete', old.fact_id, old.content, old.tags);
    INSERT INTO facts_fts(rowid, content, tags) VALUES (new.fact_id, new.content, new.tags);
END;
"""


class FactStoreError(Exception):
    """The fact store cannot be opened or written; the message is one sentence a user can act on."""


def connect(path: Path, busy_timeout: float = 10.0) -> sqlite3.Connection:
    """Open (creating when missing) the store at `path` in autocommit mode, WAL where the disk allows."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(path, timeout=busy_timeout, isolation_level=None, check_same_thread=False)
    except (OSError, sqlite3.Error) as exc:
        raise FactStoreError(f"The fact store {path} cannot be opened ({exc}); check the folder.") from exc
    conn.row_factory = sqlite3.Row
    try:
        try:
            conn.execute("PRAGMA journal_mode=WAL")
        except sqlite3.OperationalError:  # network file systems: the rollback journal still works
            conn.execute("PRAGMA journal_mode=DELETE")
        conn.executescript(_TABLES + _TRIGGERS)
        columns = {row[1] for row in conn.execute("PRAGMA table_info(facts)")}
        if "hrr_vector" not in columns:
            conn.execute("ALTER TABLE facts ADD COLUMN hrr_vector BLOB")
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise FactStoreError(
            f"{path} is not a fact store hws can read ({exc}); move it aside to start a new one."
        ) from exc
    return conn
