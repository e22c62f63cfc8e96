"""Episodic memory: every message in `state.db` (Hermes Agent's format) and search over them.

The names below load their submodule on first use (engine/lazy_names.py says why).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.lazy_names import lazy_names

__getattr__, __dir__ = lazy_names(
    __name__,
    {
        "errors": "SessionNotFound StoreCorrupt StoreError StoreLocked StoreReadOnly TitleConflict",
        "query": "ParsedQuery parse",
        "records": "Conversation MessageRecord SessionRecord",
        "search": "SearchHit SearchResult",
        "session_search": "RECAP_INSTRUCTIONS SESSION_SEARCH_SCHEMA",
        "store": "SessionStore",
    },
)

if TYPE_CHECKING:
    from engine.sessions.errors import SessionNotFound as SessionNotFound
    from engine.sessions.errors import StoreCorrupt as StoreCorrupt
    from engine.sessions.errors import StoreError as StoreError
    from engine.sessions.errors import StoreLocked as StoreLocked
    from engine.sessions.errors import StoreReadOnly as StoreReadOnly
    from engine.sessions.errors import TitleConflict as TitleConflict
    from engine.sessions.query import ParsedQuery as ParsedQuery
    from engine.sessions.query import parse as parse
    from engine.sessions.records import Conversation as Conversation
    from engine.sessions.records import MessageRecord as MessageRecord
    from engine.sessions.records import SessionRecord as SessionRecord
    from engine.sessions.search import SearchHit as SearchHit
    from engine.sessions.search import SearchResult as SearchResult
    from engine.sessions.session_search import RECAP_INSTRUCTIONS as RECAP_INSTRUCTIONS
    from engine.sessions.session_search import SESSION_SEARCH_SCHEMA as SESSION_SEARCH_SCHEMA
    from engine.sessions.store import SessionStore as SessionStore
