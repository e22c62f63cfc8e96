"""The `fact_store` and `fact_feedback` tools in Hermes' shapes: the same names, actions, arguments
and result keys (`{"fact_id", "status"}`, `{"results", "count"}`, `{"facts", "count"}`, `{"error"}`),
so a model that learned them in Hermes uses them here unchanged."""

from __future__ import annotations

from typing import Any

from engine.providers.facts import queries
from engine.providers.facts.schema import FactStoreError
from engine.providers.facts.store import CATEGORIES, FactStore

FACT_ACTIONS = ("add", "search", "probe", "related", "reason", "contradict", "update", "remove", "list")
FACT_STORE_DESCRIPTION = (
    "Structured long-term facts beside your memory files: unbounded, searchable, each with a trust "
    "score. The memory tool holds what must always be in view; fact_store holds the rest.\n"
    "Actions: add (a fact worth keeping), search (words), probe (everything about one person or thing), "
    "related (what sits beside an entity), reason (facts joining several entities), contradict (facts "
    "that disagree, to clean up), update, remove, list.\n"
    "Before answering a question about the user or a project, probe or search first."
)
FACT_STORE_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "action": {"type": "string", "enum": list(FACT_ACTIONS)},
        "content": {"type": "string", "description": "add/update: the fact's text."},
        "query": {"type": "string", "description": "search: the words to look for."},
        "entity": {"type": "string", "description": "probe/related: the entity's name."},
        "entities": {"type": "array", "items": {"type": "string"}, "description": "reason: entity names."},
        "fact_id": {"type": "integer", "description": "update/remove: the fact's id."},
        "category": {"type": "string", "enum": list(CATEGORIES)},
        "tags": {"type": "string", "description": "Comma-separated tags."},
        "trust_delta": {"type": "number", "description": "update: how much to move the trust score."},
        "min_trust": {"type": "number", "description": "Lowest trust to return (default 0.3)."},
        "limit": {"type": "integer", "description": "Most results to return (default 10)."},
    },
    "required": ["action"],
}
FACT_FEEDBACK_DESCRIPTION = (
    "Rate a fact you used: 'helpful' when it was right, 'unhelpful' when it was wrong or stale. "
    "Trust rises a little for helpful facts and falls faster for unhelpful ones."
)
FACT_FEEDBACK_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "action": {"type": "string", "enum": ["helpful", "unhelpful"]},
        "fact_id": {"type": "integer", "description": "The id of the fact to rate."},
    },
    "required": ["action", "fact_id"],
}


class FactToolError(Exception):
    """A call the store cannot answer; the message goes back to the model as `{"error": ...}`."""


def _need(args: dict[str, Any], key: str, action: str) -> Any:
    value = args.get(key)
    if value is None or value == "" or value == []:
        raise FactToolError(f"fact_store {action} needs `{key}`.")
    return value


def _found(results: list[dict[str, Any]]) -> dict[str, Any]:
    return {"results": results, "count": len(results)}


def fact_store(store: FactStore, args: dict[str, Any]) -> dict[str, Any]:
    """Run one `fact_store` call; raises `FactToolError` or `FactStoreError` with a sentence."""
    action = str(args.get("action") or "")
    category = args.get("category") or None
    limit = max(1, min(int(args.get("limit") or 10), 200))
    if action == "add":
        fact_id, added = store.add(
            str(_need(args, "content", action)), category or "general", str(args.get("tags") or "")
        )
        return {"fact_id": fact_id, "status": "added" if added else "exists"}
    if action == "search":
        min_trust = args.get("min_trust")
        found = store.search(
            str(_need(args, "query", action)),
            category,
            None if min_trust is None else float(min_trust),
            limit,
            count_retrieval=True,
        )
        return _found(found)
    if action in ("probe", "related"):
        ask = queries.probe if action == "probe" else queries.related
        return _found(ask(store, str(_need(args, "entity", action)), category, limit))
    if action == "reason":
        entities = _need(args, "entities", action)
        return _found(queries.reason(store, [str(e) for e in entities], category, limit))
    if action == "contradict":
        return _found(queries.contradict(store, category, limit=limit))
    if action == "update":
        delta = args.get("trust_delta")
        updated = store.update(
            int(_need(args, "fact_id", action)),
            content=args.get("content"),
            tags=args.get("tags"),
            category=category,
            trust_delta=None if delta is None else float(delta),
        )
        return {"updated": updated}
    if action == "remove":
        return {"removed": store.remove(int(_need(args, "fact_id", action)))}
    if action == "list":
        min_trust = float(args.get("min_trust") or 0.0)
        facts = store.list(category, min_trust, limit)
        return {"facts": facts, "count": len(facts)}
    raise FactToolError(f"fact_store has no action {action!r}; use one of: {', '.join(FACT_ACTIONS)}.")


def fact_feedback(store: FactStore, args: dict[str, Any]) -> dict[str, Any]:
    action = str(args.get("action") or "")
    if action not in ("helpful", "unhelpful"):
        raise FactToolError("fact_feedback's action is 'helpful' or 'unhelpful'.")
    return store.feedback(int(_need(args, "fact_id", "feedback")), helpful=action == "helpful")


def call(store: FactStore, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    """Either tool, every refusal as `{"error": sentence}` (Hermes' error shape)."""
    try:
        if tool == "fact_store":
            return fact_store(store, args)
        if tool == "fact_feedback":
            return fact_feedback(store, args)
        raise FactToolError(f"The fact store has no tool {tool!r}.")
    except (FactToolError, FactStoreError) as exc:
        return {"error": str(exc)}
    except (TypeError, ValueError) as exc:
        return {"error": f"{tool}: an argument has the wrong type ({exc})."}
