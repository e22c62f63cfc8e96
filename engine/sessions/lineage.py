"""Lineage and listing: compression chains seen as one conversation, parents, children, tips.

A compression ends a session with `end_reason = 'compression'` and starts a child whose
`parent_session_id` points back; that child continues the same conversation. Children that are
`/branch` copies (`_branched_from`), delegated subagents (`_delegate_from`) or tool sessions also
point to a parent but start conversations of their own.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from engine.sessions.records import SESSION_FIELDS, Conversation, SessionRecord

if TYPE_CHECKING:
    from engine.sessions.store import SessionStore

MAX_CHAIN = 200  # a guard against parent cycles in a damaged database
HIDDEN_SOURCES = ("subagent", "tool")  # sessions that are not conversations with the user


class SessionTree:
    """How the store's sessions hang together: parents, children, compression chains, conversations.

    It reads through the store it is given (`SessionStore.tree`), whose lock and connection it shares.
    """

    def __init__(self, store: SessionStore) -> None:
        self._fetch = store._fetch
        self._session = store._session
        self._select_list = store._select_list
        self._session_select = store._session_select
        self.get_session = store.get_session

    def _compression_child_sql(self, child: str = "c") -> str:
        """SQL true when `child` continues its parent's conversation (not a branch, delegate or tool)."""
        config = f"CASE WHEN json_valid({child}.model_config) THEN {child}.model_config END"
        return (
            f"json_extract({config}, '$._branched_from') IS NULL "
            f"AND json_extract({config}, '$._delegate_from') IS NULL "
            f"AND COALESCE({child}.source, '') != 'tool'"
        )

    async def parent(self, session_id: str) -> SessionRecord | None:
        session = await self.get_session(session_id)
        if session is None or not session.parent_session_id:
            return None
        return await self.get_session(session.parent_session_id)

    async def children(self, session_id: str) -> list[SessionRecord]:
        """Sessions whose parent is this one (continuations, branches, delegates), oldest first."""
        rows = await self._fetch(
            f"SELECT {self._session_select} FROM sessions WHERE parent_session_id = ? "
            "ORDER BY started_at, id",
            (session_id,),
        )
        return [self._session(r) for r in rows]

    async def lineage_roots(self, session_ids: Sequence[str]) -> dict[str, str]:
        """For each session, the first session of its compression chain (itself if none)."""
        if not session_ids:
            return {}
        rows = await self._fetch(
            f"""
            WITH RECURSIVE up(start, id, depth) AS (
                SELECT value, value, 0 FROM json_each(?)
                UNION ALL
                SELECT up.start, p.id, up.depth + 1 FROM up
                JOIN sessions c ON c.id = up.id
                JOIN sessions p ON p.id = c.parent_session_id
                WHERE p.end_reason = 'compression' AND up.depth < {MAX_CHAIN}
                    AND {self._compression_child_sql("c")}
            )
            SELECT start, id FROM up u
            WHERE depth = (SELECT max(depth) FROM up u2 WHERE u2.start = u.start)
            """,
            (json.dumps(list(dict.fromkeys(session_ids))),),
        )
        roots = {start: root for start, root in rows}
        return {sid: roots.get(sid, sid) for sid in session_ids}

    async def lineage_root(self, session_id: str) -> str:
        return (await self.lineage_roots([session_id]))[session_id]

    async def compression_tip(self, session_id: str) -> str:
        """The newest session continuing this one's conversation (itself when not compressed)."""
        return (await self._chain_from(session_id))[-1]

    async def lineage(self, session_id: str) -> list[str]:
        """The compression chain holding this session, from its root to its tip."""
        return await self._chain_from(await self.lineage_root(session_id))

    async def _chain_from(self, session_id: str) -> list[str]:
        chain = [session_id]
        for _ in range(MAX_CHAIN):
            following = await self.continuation_of(chain[-1])
            if following is None or following in chain:
                break
            chain.append(following)
        return chain

    async def continuation_of(self, session_id: str) -> str | None:
        """The session that continues this one after compression, if any.

        Live or still-compressing continuations win over stale closed siblings, then the newest.
        """
        rows = await self._fetch(
            f"""
            SELECT c.id FROM sessions p JOIN sessions c ON c.parent_session_id = p.id
            WHERE p.id = ? AND p.end_reason = 'compression' AND {self._compression_child_sql("c")}
            ORDER BY CASE WHEN c.end_reason = 'compression' THEN 0 WHEN c.ended_at IS NULL THEN 1 ELSE 2 END,
                     c.started_at DESC, c.id DESC
            LIMIT 1
            """,
            (session_id,),
        )
        return rows[0][0] if rows else None

    async def list_conversations(
        self,
        *,
        limit: int = 50,
        offset: int = 0,
        source: str | None = None,
        include_hidden: bool = False,
    ) -> list[Conversation]:
        """Conversations newest first: each compression chain once, with its tip and totals."""
        conds = [
            "NOT EXISTS (SELECT 1 FROM sessions p WHERE p.id = c.parent_session_id "
            f"AND p.end_reason = 'compression' AND {self._compression_child_sql('c')})"
        ]
        params: list[Any] = []
        if source:
            conds.append("c.source = ?")
            params.append(source)
        if not include_hidden:
            conds.append(f"COALESCE(c.source, '') NOT IN ({','.join('?' * len(HIDDEN_SOURCES))})")
            params.extend(HIDDEN_SOURCES)
            config = "CASE WHEN json_valid(c.model_config) THEN c.model_config END"
            conds.append(f"json_extract({config}, '$._delegate_from') IS NULL")
        cols = self._select_list("sessions", SESSION_FIELDS, alias="c")
        rows = await self._fetch(
            f"SELECT {cols} FROM sessions c WHERE {' AND '.join(conds)} "
            "ORDER BY c.started_at DESC, c.id DESC LIMIT ? OFFSET ?",
            (*params, limit, offset),
        )
        roots = [self._session(r) for r in rows]
        return [await self._conversation(root) for root in roots]

    async def most_recent_session(self) -> str | None:
        """The session a person was in last (its newest message, or its start when it has none), at
        the tip of its compression chain; background and delegated sessions are left out."""
        hidden = ",".join("?" * len(HIDDEN_SOURCES))
        config = "CASE WHEN json_valid(s.model_config) THEN s.model_config END"
        rows = await self._fetch(
            f"SELECT s.id FROM sessions s WHERE COALESCE(s.source, '') NOT IN ({hidden}) "
            f"AND json_extract({config}, '$._delegate_from') IS NULL "
            "ORDER BY COALESCE((SELECT max(m.timestamp) FROM messages m WHERE m.session_id = s.id), "
            "s.started_at) DESC, s.started_at DESC LIMIT 1",
            HIDDEN_SOURCES,
        )
        return await self.compression_tip(rows[0][0]) if rows else None

    async def conversation(self, session_id: str) -> Conversation | None:
        """The conversation (compression chain) a session belongs to, with its tip and totals."""
        root = await self.get_session(await self.lineage_root(session_id))
        return await self._conversation(root) if root is not None else None

    async def _conversation(self, root: SessionRecord) -> Conversation:
        chain = await self._chain_from(root.id) if root.end_reason == "compression" else [root.id]
        marks = ",".join("?" * len(chain))
        totals = await self._fetch(
            f"SELECT sum(COALESCE(message_count, 0)), max(started_at) FROM sessions WHERE id IN ({marks})",
            chain,
        )
        last = await self._fetch("SELECT max(timestamp) FROM messages WHERE session_id = ?", (chain[-1],))
        # Last activity: the tip's newest message, or when the tip started if it has none yet.
        last_active = max(float(totals[0][1] or root.started_at), float(last[0][0] or 0.0))
        return Conversation(
            root=root,
            tip_id=chain[-1],
            session_ids=tuple(chain),
            message_count=int(totals[0][0] or 0),
            last_active=last_active,
        )
