"""Rewinding a conversation: its last exchanges taken back, kept in `state.db` as inactive messages.

Hermes' `/undo [N]` (`SessionDB.rewind_to_message`): the rewind target is a message the person
wrote; it and every message after it in its session get `active = 0`, and the session's
`rewind_count` goes up by one. Nothing is deleted: search and the sessions browser still find the
rewound messages (and say so), while every history loaded for the model reads active ones only.
The target's text is handed back so the person can edit it and send it again.

    rewound = await rewind_exchanges(store, session_id, 2)   # the last two exchanges
    rewound = await rewind_to(store, session_id, message_id)  # back to before this message
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from engine.sessions.errors import StoreError

if TYPE_CHECKING:
    import aiosqlite

    from engine.sessions.records import MessageRecord
    from engine.sessions.store import SessionStore

# Which user messages begin an exchange the person can take back (a compression summary stored as a
# user message does not); every user message when not given.
ExchangeTest = Callable[["MessageRecord"], bool]


class RewindError(StoreError):
    """The rewind asked for cannot be made (no such message, not one the person wrote, nothing left)."""


@dataclass(frozen=True)
class Rewound:
    """What a rewind took back: the messages now inactive, from `target_message_id` on."""

    session_id: str
    target_message_id: int  # the user message rewound to (inactive too: it goes back into the input)
    text: str  # that message's text, to edit and send again
    message_ids: tuple[int, ...]  # every message newly marked inactive, oldest first
    exchanges: int  # user messages among them
    head_message_id: int | None  # the last message still active in the session, None when none is

    def as_dict(self) -> dict[str, Any]:
        return {
            "session_id": self.session_id,
            "target_message_id": self.target_message_id,
            "text": self.text,
            "message_ids": list(self.message_ids),
            "exchanges": self.exchanges,
            "head_message_id": self.head_message_id,
        }


async def rewind_to(
    store: SessionStore, session_id: str, message_id: int, *, is_exchange: ExchangeTest | None = None
) -> Rewound:
    """Take back the user message `message_id` of `session_id` and everything after it.

    RewindError (a sentence) when the message is not in the session, was not written by the person,
    or was already rewound.
    """
    session_id = (await store.require_session(session_id)).id
    target = await store.get_message(int(message_id))
    if target is None or target.session_id != session_id:
        raise RewindError(f"Message {message_id} is not in session {session_id}; nothing was rewound.")
    if target.role != "user" or (is_exchange is not None and not is_exchange(target)):
        raise RewindError(
            f"Message {message_id} is not one you wrote ({target.role}); rewind to one of your messages."
        )
    if not target.active:
        raise RewindError(f"Message {message_id} was already rewound; nothing was rewound.")

    async def work(conn: aiosqlite.Connection) -> tuple[list[tuple[int, str]], int | None]:
        rows = await conn.execute_fetchall(
            "SELECT id, role FROM messages WHERE session_id = ? AND id >= ? AND active = 1 ORDER BY id",
            (session_id, target.id),
        )
        taken = [(int(r[0]), str(r[1])) for r in rows]
        await conn.execute(
            "UPDATE messages SET active = 0 WHERE session_id = ? AND id >= ? AND active = 1",
            (session_id, target.id),
        )
        if store.info.has("sessions", "rewind_count"):
            await conn.execute(
                "UPDATE sessions SET rewind_count = COALESCE(rewind_count, 0) + 1 WHERE id = ?",
                (session_id,),
            )
        head = await conn.execute_fetchall(
            "SELECT max(id) FROM messages WHERE session_id = ? AND active = 1", (session_id,)
        )
        return taken, (int(head[0][0]) if head and head[0][0] is not None else None)

    taken, head = await store.run_in_transaction(work)
    return Rewound(
        session_id=session_id,
        target_message_id=target.id,
        text=target.text,
        message_ids=tuple(i for i, _role in taken),
        exchanges=sum(1 for _i, role in taken if role == "user"),
        head_message_id=head,
    )


async def rewind_exchanges(
    store: SessionStore, session_id: str, count: int = 1, *, is_exchange: ExchangeTest | None = None
) -> Rewound:
    """Take back the last `count` exchanges of `session_id` (all it has, when it has fewer).

    An exchange begins with a user message (one `is_exchange` accepts) and holds every reply and
    tool call after it. RewindError when `count` is under 1 or the session has no exchange left.
    """
    if int(count) < 1:
        raise RewindError("Rewind at least one exchange (the count must be 1 or more).")
    session_id = (await store.require_session(session_id)).id
    target = await nth_last_exchange(store, session_id, int(count), is_exchange)
    if target is None:
        raise RewindError(f"Session {session_id} has no message of yours left to rewind.")
    return await rewind_to(store, session_id, target.id, is_exchange=is_exchange)


async def nth_last_exchange(
    store: SessionStore, session_id: str, count: int, is_exchange: ExchangeTest | None = None
) -> MessageRecord | None:
    """The user message opening the `count`-th last active exchange (the oldest one, if fewer)."""
    session_id = (await store.require_session(session_id)).id
    wanted = max(1, count)
    while True:
        _first, last, total = await store.bookends(session_id, wanted, roles=("user",))
        openers = [m for m in last if is_exchange is None or is_exchange(m)]
        if len(openers) >= count or len(last) >= total:
            break
        wanted *= 2  # some were not exchanges (summaries): look further back
    if not openers:
        return None
    return openers[-min(count, len(openers))]
