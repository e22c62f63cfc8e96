"""Episodic memory: every message in `state.db` (Hermes Agent's format) and search over them."""

from engine.sessions.errors import (
    SessionNotFound,
    StoreCorrupt,
    StoreError,
    StoreLocked,
    StoreReadOnly,
    TitleConflict,
)
from engine.sessions.query import ParsedQuery, parse
from engine.sessions.records import Conversation, MessageRecord, SessionRecord
from engine.sessions.search import SearchHit, SearchResult
from engine.sessions.store import SessionStore

__all__ = [
    "Conversation",
    "MessageRecord",
    "ParsedQuery",
    "SearchHit",
    "SearchResult",
    "SessionNotFound",
    "SessionRecord",
    "SessionStore",
    "StoreCorrupt",
    "StoreError",
    "StoreLocked",
    "StoreReadOnly",
    "TitleConflict",
    "parse",
]
