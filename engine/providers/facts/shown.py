"""The fact store as a person sees it: each write as its `FactWritten`, and `/facts`' search and removal.

Every write here goes through `tools.call`, the function the model's `fact_store` and `fact_feedback`
calls run, so a removal from the workstation keeps the same rules as one by the agent. The store is
the process's shared one (`shared.acquire`), the same connection the running agent writes through.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from engine.event_log import log_event
from engine.events import FactWritten
from engine.providers.facts import shared
from engine.providers.facts import tools as fact_tools

if TYPE_CHECKING:
    from engine.config import Config
    from engine.home import Home
    from engine.providers.facts.store import FactStore

WRITES = frozenset({"add", "update", "remove", "feedback"})


@dataclass(frozen=True)
class FoundFact:
    """One fact as `/facts` lists it."""

    fact_id: int
    content: str
    trust: float
    category: str


def fact_written(fact: Mapping[str, Any], action: str) -> FactWritten:
    """The event for a stored row (`store.get`), before any session is known (the sender sets it)."""
    return FactWritten(
        "",
        int(fact["fact_id"]),
        action,
        str(fact["content"]),
        float(fact["trust_score"]),
        str(fact["category"]),
    )


def call_with_event(
    store: FactStore, tool: str, args: dict[str, Any]
) -> tuple[dict[str, Any], FactWritten | None]:
    """Run a tool call; for a write, also the fact as it now stands (a removed one, as it stood)."""
    action = "feedback" if tool == "fact_feedback" else str(args.get("action") or "")
    raw_id = args.get("fact_id")
    before = store.get(raw_id) if action == "remove" and isinstance(raw_id, int) else None
    result = fact_tools.call(store, tool, args)
    if action not in WRITES or "error" in result or result.get("removed") is False:
        return result, None
    fact = before if action == "remove" else store.get(int(result.get("fact_id") or raw_id or 0))
    return result, fact_written(fact, action) if fact is not None else None


def find(home: Home, config: Config, text: str, limit: int) -> list[FoundFact]:
    """The facts matching `text`, best first; with no text, the most trusted (blocking)."""
    store = shared.acquire(home, config)
    try:
        rows = store.search(text, limit=limit) if text.strip() else store.list(None, 0.0, limit)
    finally:
        shared.release(store)
    return [
        FoundFact(int(r["fact_id"]), str(r["content"]), float(r["trust_score"]), str(r["category"]))
        for r in rows
    ]


def remove(home: Home, config: Config, fact_id: int, session_id: str = "") -> tuple[FactWritten | None, str]:
    """Remove one fact as the tool does: the event (None when nothing was removed, else logged as the
    agent's events are) and a sentence."""
    store = shared.acquire(home, config)
    try:
        result, written = call_with_event(store, "fact_store", {"action": "remove", "fact_id": fact_id})
    finally:
        shared.release(store)
    if "error" in result:
        return None, f"Fact {fact_id} was not removed: {result['error']}"
    if written is None:
        return None, f"There is no fact {fact_id} any more; nothing was removed."
    written = replace(written, session_id=session_id)
    log_event(written)
    return written, f"Removed fact {fact_id}: {written.content}"
