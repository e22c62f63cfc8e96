"""Which message makes what stale: the one table the app reads when the main screen showed a message.

A side pane shows a reading taken in a worker (`tui.pane_feeds`); an event that changes what the
reading would find makes it stale, and the app starts a fresh one. Besides the panes, two things go
stale: the catalogs the palette and `/name` completion offer, and the next-session bar (a skill the
agent wrote is in the next session's index, not in this one's).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.message import Message

from tui import messages

PANE_NAMES = ("memory", "budget", "skills", "lineage")
CATALOGS = "catalogs"
NEXT_SESSION = "next session"


def _write_staged(message: Any) -> tuple[str, ...]:
    return ("memory",) if message.event.subsystem == "memory" else ("skills",)


def _compression_finished(message: Any) -> tuple[str, ...]:
    return PANE_NAMES if message.event.compressed else ("budget", "memory")


STALE_AFTER: dict[type[Message], tuple[str, ...] | Callable[[Any], tuple[str, ...]]] = {
    messages.MemoryWritten: ("memory",),
    messages.SkillChanged: ("skills", CATALOGS, NEXT_SESSION),
    messages.WriteStaged: _write_staged,
    messages.SkillLoaded: ("skills", "budget"),
    messages.TurnFinished: ("budget",),
    messages.CompressionFinished: _compression_finished,
    messages.SessionTitled: (CATALOGS,),  # the palette lists sessions by title
    messages.ConversationReset: PANE_NAMES,
    messages.ConversationRewound: ("budget", "lineage"),
}
"""Message to the main screen → what it makes stale. A move to another session (`session_of`) makes
every pane stale as well."""


def stale_after(message: Message) -> tuple[str, ...]:
    """What `message` makes stale (nothing for most messages)."""
    rule = STALE_AFTER.get(type(message))
    if rule is None:
        return ()
    return rule(message) if callable(rule) else rule


def session_of(message: Message) -> str:
    """The session `message` says the conversation is in ("" when it says nothing of one)."""
    if isinstance(message, messages.SessionOpened):
        return message.session_id
    if isinstance(message, (messages.TurnStarted, messages.SessionChanged)):
        return message.event.session_id
    if isinstance(message, messages.SessionTitled) and message.event.by == "user":
        return message.event.session_id  # `/title` before the first message opened the session it names
    return ""
