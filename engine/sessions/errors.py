"""What can go wrong with the session database, each as one sentence a user can act on."""

from __future__ import annotations


class StoreError(Exception):
    """The session database cannot do what was asked; the message says why and what to do."""


class StoreCorrupt(StoreError):
    """The file is not a readable SQLite database; it was left untouched."""


class StoreLocked(StoreError):
    """Another program holds the database lock for longer than we wait."""


class StoreReadOnly(StoreError):
    """The database is open read-only (newer schema, read-only file, or asked for)."""


class SessionNotFound(StoreError):
    """No session has the given id (or id prefix)."""


class TitleConflict(StoreError):
    """Another session already uses the title."""
