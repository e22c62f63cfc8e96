"""Taking the open conversation back (`/undo N`) or forking it (`/branch`), then going on from there.

Both change what the model is given next, so both end by reloading the session's history from the
store: what the next call sends is exactly what state.db holds as active, never an in-memory copy
that disagrees with it. The store does the writes (engine/sessions/rewind.py and branch.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.agent.api_history import from_records
from engine.compression.messages import looks_like_summary
from engine.events import ConversationRewound, SessionBranched
from engine.sessions.branch import branch_session
from engine.sessions.rewind import rewind_exchanges, rewind_to

if TYPE_CHECKING:
    from engine.agent.session import AgentSession
    from engine.sessions.records import MessageRecord
    from engine.sessions.store import SessionStore


def opens_exchange(message: MessageRecord) -> bool:
    """A user message the person wrote (a compression summary stored as one is not an exchange)."""
    return message.role == "user" and not looks_like_summary(message.text)


async def reload_history(session: AgentSession, store: SessionStore) -> None:
    """The session's history as the store holds it now, with the counts that follow from it."""
    records = await store.get_messages(session.session_id)
    session.history = from_records(records)
    session.turns = sum(1 for m in session.history if m.get("role") == "user")
    session.flushed_at_turn = min(session.flushed_at_turn, session.turns)
    last_user = next((r.id for r in reversed(records) if r.role == "user"), None)
    session.user_message = None if last_user is None else (session.session_id, last_user)
    session.usage_mark = None  # the provider's last count was of a longer conversation
    session.nudges.hydrate(session.history)


async def rewind(
    session: AgentSession, store: SessionStore, *, count: int = 1, message_id: int | None = None
) -> ConversationRewound:
    """Take back the last `count` exchanges, or back to the user message `message_id`; RewindError
    (a sentence) when there is nothing to take back there."""
    if message_id is None:
        rewound = await rewind_exchanges(store, session.session_id, count, is_exchange=opens_exchange)
    else:
        rewound = await rewind_to(store, session.session_id, message_id, is_exchange=opens_exchange)
    await reload_history(session, store)
    return ConversationRewound(
        session.session_id,
        rewound.target_message_id,
        rewound.text,
        rewound.message_ids,
        rewound.exchanges,
        len(session.history),
    )


async def branch(
    session: AgentSession, store: SessionStore, *, title: str | None = None, at_message_id: int | None = None
) -> SessionBranched:
    """Fork the conversation into a child session (at a past message, when given) and go on there; the
    original is ended as `branched`. BranchError or TitleConflict (a sentence) when it cannot be made."""
    previous = session.session_id
    branched = await branch_session(
        store, previous, at_message_id=at_message_id, title=title, end_parent=True
    )
    if await store.get_system_prompt(branched.session_id) != session.prompt.text:
        # Branched at a message of an earlier session of the chain: go on with the prompt in use.
        await store.update_session(branched.session_id, system_prompt=session.prompt.text)
    session.use(branched.session_id, session.prompt)  # the child keeps the prompt, byte for byte
    await reload_history(session, store)
    session.title = branched.title
    return SessionBranched(
        branched.session_id,
        previous,
        "branched",
        branched.title,
        branched.at_message_id,
        branched.messages,
    )
