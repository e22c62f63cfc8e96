"""Which names a fact mentions, found the way Hermes' fact store finds them so both link alike.

Four kinds of mention count, in this order: runs of two or more capitalised words ("Ada Lovelace"),
"double-quoted" and 'single-quoted' terms, and both sides of "X aka Y" / "X also known as Y". Names
are kept once each, case-insensitively, in the order first seen. A run that begins a sentence with
an article ("The Berlin Cluster") names what follows it ("Berlin Cluster"), so both spellings of a
thing resolve to one entity.
"""

from __future__ import annotations

import re
import sqlite3

_PROPER_NAME = re.compile(r"\b([A-Z][a-z]+(?:\s+[A-Z][a-z]+)+)\b")
_QUOTED = (re.compile(r'"([^"]+)"'), re.compile(r"'([^']+)'"))
_LEADING_WORDS = frozenset({"The", "A", "An", "This", "That", "These", "Those", "My", "Our", "Your"})
_ALIAS = re.compile(r"(\w+(?:\s+\w+)*)\s+(?:aka|also known as)\s+(\w+(?:\s+\w+)*)", re.IGNORECASE)


def extract_entities(text: str) -> list[str]:
    """The names `text` mentions, deduplicated without regard to case."""
    found: dict[str, str] = {}
    groups: list[str] = [_without_article(m.group(1)) for m in _PROPER_NAME.finditer(text)]
    for pattern in _QUOTED:
        groups += [m.group(1) for m in pattern.finditer(text)]
    for m in _ALIAS.finditer(text):
        groups += [m.group(1), m.group(2)]
    for name in groups:
        cleaned = name.strip()
        if cleaned and cleaned.lower() not in found:
            found[cleaned.lower()] = cleaned
    return list(found.values())


def _without_article(name: str) -> str:
    first, _, rest = name.partition(" ")
    return rest.strip() if first in _LEADING_WORDS and rest.strip() else name


def resolve_entity(conn: sqlite3.Connection, name: str) -> int:
    """The id of the entity called `name` (or with it among its aliases), created when there is none."""
    row = conn.execute("SELECT entity_id FROM entities WHERE name LIKE ?", (name,)).fetchone()
    if row is None:
        row = conn.execute(
            "SELECT entity_id FROM entities WHERE ',' || aliases || ',' LIKE '%,' || ? || ',%'", (name,)
        ).fetchone()
    if row is not None:
        return int(row[0])
    cursor = conn.execute("INSERT INTO entities (name) VALUES (?)", (name,))
    return int(cursor.lastrowid or 0)


def link_entities(conn: sqlite3.Connection, fact_id: int, content: str) -> list[str]:
    """Link a fact to every entity its content mentions (replacing old links); returns the names."""
    conn.execute("DELETE FROM fact_entities WHERE fact_id = ?", (fact_id,))
    names = extract_entities(content)
    for name in names:
        conn.execute(
            "INSERT OR IGNORE INTO fact_entities (fact_id, entity_id) VALUES (?, ?)",
            (fact_id, resolve_entity(conn, name)),
        )
    return names


def entity_ids(conn: sqlite3.Connection, name: str) -> list[int]:
    """Entities matching `name` by name or alias, without regard to case."""
    rows = conn.execute(
        "SELECT entity_id FROM entities WHERE name LIKE ? OR ',' || aliases || ',' LIKE '%,' || ? || ',%'",
        (name.strip(), name.strip()),
    ).fetchall()
    return [int(r[0]) for r in rows]
