"""Reading stored text that may not be UTF-8."""

from __future__ import annotations

import sqlite3

# What a statement on a damaged file may raise: SQLite's errors, and a UnicodeDecodeError when the
# damage is in the schema's names (sqlite3 decodes SQLite's error message, which quotes them).
DB_ERRORS: tuple[type[Exception], ...] = (sqlite3.Error, UnicodeDecodeError)


def tolerant_text(data: bytes) -> str:
    """A stored text as a str even when its bytes are not UTF-8 (a damaged file, a foreign writer):
    reading must never fail with a decoding error; `hws doctor`'s integrity check names the damage."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("utf-8", errors="replace")


SCHEMA_SQL = "SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL"


def undecodable_schema(rows: list[tuple[bytes, bytes]]) -> list[str]:
    """The schema entries (name, sql as bytes) whose definition is not text, named for a sentence.

    SQLite takes any bytes in a name, so a flipped byte there leaves a file it calls healthy but
    whose table no reader can use."""
    return [
        f"the definition of {tolerant_text(name)} holds bytes that are not text"
        for name, sql in rows
        if not _is_text(sql)
    ]


def _is_text(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True
