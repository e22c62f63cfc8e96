"""Branching a conversation: a child session holding a copy of it, to go another way from there.

Hermes' `/branch [NAME]`: the child has `parent_session_id` pointing back and `_branched_from` in its
`model_config` (the stable marker lists and lineage read; it survives the parent being reopened and
ended again), its own title (`NAME`, or the conversation's title with the next free ` #N`), and a
copy of the parent's active messages; the parent gets `end_reason = 'branched'` when the live
conversation moves on in the child. The parent is never changed otherwise, so it stays resumable.

    branched = await branch_session(store, session_id)                       # at the current point
    branched = await branch_session(store, session_id, at_message_id=42, title="try sqlite")
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from engine.sessions.errors import StoreError
from engine.sessions.ids import continuation_base
from engine.sessions.schema import MESSAGE_COLUMNS

if TYPE_CHECKING:
    import aiosqlite

    from engine.sessions.records import SessionRecord
    from engine.sessions.store import SessionStore

END_REASON = "branched"
BRANCH_MARKER = "_branched_from"
DEFAULT_TITLE = "branch"  # the base of an untitled conversation's branch titles, as in Hermes
# Columns a copy leaves behind: the chat platform's id of the original, and the row's state flags.
_NOT_COPIED = {"platform_message_id", "observed", "active", "compacted"}
_OUTCOME = "tool_call_id, ok, summary, duration_s"  # what the tool layer said of a result, copied along


class BranchError(StoreError):
    """The branch asked for cannot be made (no such message, an empty conversation)."""


@dataclass(frozen=True)
class Branched:
    """The child session a branch made, and what it holds."""

    session_id: str  # the child
    parent_session_id: str
    title: str
    at_message_id: int | None  # the last message copied (None: the parent had none)
    messages: int  # how many were copied
    parent_ended: bool  # the parent was ended as `branched` by this branch

    def as_dict(self) -> dict[str, Any]:
        return {
            "session_id": self.session_id,
            "parent_session_id": self.parent_session_id,
            "title": self.title,
            "at_message_id": self.at_message_id,
            "messages": self.messages,
            "parent_ended": self.parent_ended,
        }


async def branch_session(
    store: SessionStore,
    session_id: str,
    *,
    at_message_id: int | None = None,
    title: str | None = None,
    end_parent: bool = False,
) -> Branched:
    """Copy `session_id`'s active messages (up to `at_message_id`, when given) into a new child session.

    `at_message_id` may be in an earlier session of the same compression chain: the branch then
    starts from that session. `end_parent` ends the parent as `branched` (when the live conversation
    moves to the child; a parent already ended keeps its reason). BranchError or TitleConflict (a
    sentence) when it cannot be made.
    """
    parent = await store.require_session(session_id)
    if at_message_id is not None:
        parent = await _session_holding(store, parent, int(at_message_id))
    system_prompt = await store.get_system_prompt(parent.id)
    child = await store.create_session(
        source=parent.source,
        model=parent.model,
        system_prompt=system_prompt,
        parent_session_id=parent.id,
        title=title,
        cwd=parent.cwd,
        user_id=parent.user_id,
        model_config={BRANCH_MARKER: parent.id},
    )
    try:
        copied, ended = await store.run_in_transaction(
            lambda conn: _copy(conn, store, parent.id, child.id, at_message_id, end_parent)
        )
        given = child.title
        if given is None:
            root = await store.get_session(await store.tree.lineage_root(parent.id))
            base = (root.title if root is not None else None) or parent.title or DEFAULT_TITLE
            given = await store.set_unique_title(child.id, continuation_base(base))
    except BaseException:
        outcomes = "hws_tool_results" in store.info.tables
        await store.run_in_transaction(lambda conn: _forget(conn, child.id, outcomes))
        store.forget_sessions([child.id])
        raise
    return Branched(
        session_id=child.id,
        parent_session_id=parent.id,
        title=given,
        at_message_id=copied[-1] if copied else None,
        messages=len(copied),
        parent_ended=ended,
    )


async def _session_holding(store: SessionStore, session: SessionRecord, message_id: int) -> SessionRecord:
    """The session of `session`'s compression chain that holds the active message `message_id`."""
    message = await store.get_message(message_id)
    if message is None or message.session_id not in await store.tree.lineage(session.id):
        raise BranchError(
            f"Message {message_id} is not in this conversation ({session.id}); nothing was branched."
        )
    if not message.active:
        raise BranchError(
            f"Message {message_id} was rewound or compacted; branch at a message still in the conversation."
        )
    if message.session_id == session.id:
        return session
    return await store.require_session(message.session_id)


async def _copy(
    conn: aiosqlite.Connection,
    store: SessionStore,
    parent_id: str,
    child_id: str,
    at_message_id: int | None,
    end_parent: bool,
) -> tuple[list[int], bool]:
    """Copy the messages (with what the tool layer said of each result) and end the parent; one step."""
    have = store.info.columns.get("messages", set())
    columns = ["role", "timestamp", *(c for c in MESSAGE_COLUMNS if c in have and c not in _NOT_COPIED)]
    listed = ", ".join(columns)
    upto = "" if at_message_id is None else " AND id <= ?"
    params: tuple[Any, ...] = (parent_id,) if at_message_id is None else (parent_id, int(at_message_id))
    rows = await conn.execute_fetchall(
        f"SELECT id FROM messages WHERE session_id = ? AND active = 1{upto} ORDER BY id", params
    )
    copied: list[int] = []
    outcomes = "hws_tool_results" in store.info.tables
    for (source_id,) in rows:
        new = await conn.execute_fetchall(
            f"INSERT INTO messages (session_id, {listed}) SELECT ?, {listed} FROM messages WHERE id = ? "
            "RETURNING id",
            (child_id, source_id),
        )
        new_id = int(new[0][0])
        if outcomes:
            await conn.execute(
                f"INSERT INTO hws_tool_results (message_id, session_id, {_OUTCOME}) "
                f"SELECT ?, ?, {_OUTCOME} FROM hws_tool_results WHERE message_id = ?",
                (new_id, child_id, source_id),
            )
        copied.append(int(source_id))
    ended = False
    if end_parent:
        cursor = await conn.execute(
            "UPDATE sessions SET ended_at = ?, end_reason = ? WHERE id = ? AND ended_at IS NULL",
            (time.time(), END_REASON, parent_id),
        )
        ended = cursor.rowcount > 0
    return copied, ended


async def _forget(conn: aiosqlite.Connection, child_id: str, outcomes: bool) -> None:
    """Undo a branch that failed half way: its copied messages and its row."""
    if outcomes:
        await conn.execute("DELETE FROM hws_tool_results WHERE session_id = ?", (child_id,))
    await conn.execute("DELETE FROM messages WHERE session_id = ?", (child_id,))
    await conn.execute("DELETE FROM sessions WHERE id = ?", (child_id,))
