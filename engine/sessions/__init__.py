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
from engine.sessions.session_search import RECAP_INSTRUCTIONS, SESSION_SEARCH_SCHEMA, session_search
from engine.sessions.store import SessionStore

__all__ = [
    "RECAP_INSTRUCTIONS",
    "SESSION_SEARCH_SCHEMA",
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
    "session_search",
]
