"""The `session_search` tool: the agent's way to recall past conversations.

`session_search(store, arguments)` takes the tool call's argument dict and returns the result
dict; the agent's tool wrapper only serialises it. Four shapes, chosen by the arguments:

- discovery (`query`): ranked hits grouped by conversation (a compression chain is one, and its
  compressed parents are searched too), each with the messages around the hit and the first and
  last messages of its session;
- scroll (`session_id` + `around_message_id`): the messages around one message;
- read (`session_id`): a whole session, or its start and end when it is long;
- browse (nothing): the most recent conversations.

With `summarize: true` and a `summarizer` (an async callable taking the transcript text and
returning a past-tense recap, e.g. a call to the auxiliary model with `RECAP_INSTRUCTIONS`), each
hit conversation is recapped; without one, the raw hits are returned.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import datetime, time, timedelta
from typing import Any

from engine.sessions.as_text import centred_cut, recap_transcript
from engine.sessions.errors import SessionNotFound, StoreError
from engine.sessions.fts import SearchHit
from engine.sessions.lineage import HIDDEN_SOURCES
from engine.sessions.records import MessageRecord, SessionRecord, when
from engine.sessions.store import SessionStore

Summarizer = Callable[[str], Awaitable[str]]

DEFAULT_ROLES = ("user", "assistant")
BOOKEND = 3  # first and last messages shown for each discovered session
MAX_LIMIT = 10
MAX_SUMMARIZED = 5  # a recap is one model call per session
RAW_PREVIEW_CHARS = 500
REWOUND_NOTE = (
    "The best match was rewound: the user took it back with /undo, so the conversation went on without "
    "it (messages marked rewound)."
)

RECAP_INSTRUCTIONS = (
    "You are reading the transcript of a past conversation between a user and an AI agent. "
    "Write a concise recap in the past tense: the user's goal, what was done and what came of it, "
    "decisions made, exact commands, file paths and names worth reusing, and anything left open. "
    "Focus on what relates to the search query given above the transcript. Do not invent details."
)

SESSION_SEARCH_SCHEMA: dict[str, Any] = {
    "name": "session_search",
    "description": (
        "Search your memory of past conversations with this user (every earlier session is stored). "
        "Use it when the user refers to something from before, or when past work would help. "
        "Give `query` in natural language or keywords; quote an exact phrase. Results are grouped "
        "by conversation with the messages around each hit. Then use `session_id` with "
        "`around_message_id` to scroll, or `session_id` alone to read a session. With no "
        "arguments, lists recent conversations."
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "query": {
                "type": "string",
                "description": 'What to look for: a question, keywords, or a "quoted phrase".',
            },
            "limit": {
                "type": "integer",
                "description": "Conversations to return (1-10; default 3).",
                "minimum": 1,
                "maximum": MAX_LIMIT,
            },
            "sort": {
                "type": "string",
                "enum": ["relevance", "newest", "oldest"],
                "description": "Order of the conversations found (default relevance).",
            },
            "session_id": {
                "type": "string",
                "description": "A session to read, scroll, or search within.",
            },
            "around_message_id": {
                "type": "integer",
                "description": "With session_id: show the messages around this message id.",
            },
            "window": {
                "type": "integer",
                "description": "Messages shown each side of a hit or of around_message_id (1-20; default 5).",
                "minimum": 1,
                "maximum": 20,
            },
            "role_filter": {
                "type": "string",
                "description": "Comma-separated roles to search (default user,assistant; also tool, system).",
            },
            "since": {
                "type": "string",
                "description": "Only messages on or after this date (YYYY-MM-DD or ISO date-time).",
            },
            "until": {
                "type": "string",
                "description": "Only messages on or before this date (YYYY-MM-DD or ISO date-time).",
            },
            "source": {
                "type": "string",
                "description": "Only sessions from this source (cli, tui, telegram, ...).",
            },
            "summarize": {
                "type": "boolean",
                "description": "Recap each conversation found with the auxiliary model instead of raw hits.",
            },
        },
        "additionalProperties": False,
    },
}


class ArgumentError(ValueError):
    """A tool argument has the wrong type or value; the message says which and why."""


def _failure(message: str) -> dict[str, Any]:
    return {"success": False, "error": message}


async def session_search(
    store: SessionStore,
    arguments: Mapping[str, Any] | None,
    *,
    current_session_id: str | None = None,
    summarizer: Summarizer | None = None,
) -> dict[str, Any]:
    """Run one `session_search` tool call and return its result dict (never raises on bad input)."""
    args = dict(arguments or {})
    try:
        request = _Request(args, store.settings)
    except ArgumentError as exc:
        return _failure(str(exc))
    try:
        if request.session_id and request.around is not None:
            return await _scroll(store, request)
        if request.query:
            return await _discover(store, request, current_session_id, summarizer)
        if request.session_id:
            return await _read(store, request)
        return await _browse(store, request)
    except SessionNotFound:
        return _failure(
            f"There is no session {request.session_id!r}. "
            "Search with a query to find session ids, or call session_search with no arguments."
        )
    except StoreError as exc:
        return _failure(str(exc))


class _Request:
    """The validated arguments of one call."""

    def __init__(self, args: dict[str, Any], settings: Mapping[str, Any]) -> None:
        unknown = sorted(set(args) - set(SESSION_SEARCH_SCHEMA["parameters"]["properties"]))
        if unknown:
            raise ArgumentError(f"Unknown argument(s) {', '.join(unknown)}; see the tool's parameters.")
        self.query = _text(args, "query").strip()
        self.session_id = _text(args, "session_id").strip()
        self.source = _text(args, "source").strip()
        self.summarize = _flag(args, "summarize")
        default_limit = int(settings["search_limit"])
        top = MAX_SUMMARIZED if self.summarize else MAX_LIMIT
        self.limit = max(1, min(top, _integer(args, "limit", default_limit)))
        self.window = max(1, min(20, _integer(args, "window", int(settings["search_window"]))))
        around = args.get("around_message_id")
        self.around = None if around is None else _integer(args, "around_message_id", 0)
        if self.around is not None and not self.session_id:
            raise ArgumentError("around_message_id needs session_id: the session the message belongs to.")
        self.sort = _text(args, "sort").strip().lower() or "relevance"
        if self.sort not in ("relevance", "newest", "oldest"):
            raise ArgumentError(f"sort must be relevance, newest or oldest, not {self.sort!r}.")
        roles = _text(args, "role_filter")
        self.roles = tuple(r.strip().lower() for r in roles.split(",") if r.strip()) or DEFAULT_ROLES
        self.since = _date(args, "since", end_of_day=False)
        self.until = _date(args, "until", end_of_day=True)
        self.hits = int(settings["search_hits"])
        self.session_share = float(settings["search_session_share"])
        self.message_chars = int(settings["message_chars"])
        self.head = int(settings["read_head"])
        self.tail = int(settings["read_tail"])
        self.browse_limit = int(settings["browse_limit"])
        self.summary_chars = int(settings["summary_max_chars"])
        self.tool_chars = int(settings["summary_tool_chars"])


def _text(args: dict[str, Any], name: str) -> str:
    value = args.get(name)
    if value is None:
        return ""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, str):
        raise ArgumentError(f"{name} must be a string.")
    return value


def _integer(args: dict[str, Any], name: str, default: int) -> int:
    value = args.get(name)
    if value is None or value == "":
        return default
    if isinstance(value, bool):
        raise ArgumentError(f"{name} must be a whole number.")
    try:
        return int(value)
    except (TypeError, ValueError):
        raise ArgumentError(f"{name} must be a whole number, not {value!r}.") from None


def _flag(args: dict[str, Any], name: str) -> bool:
    value = args.get(name, False)
    if isinstance(value, str):
        return value.strip().lower() in ("1", "true", "yes")
    return bool(value)


def _date(args: dict[str, Any], name: str, *, end_of_day: bool) -> float | None:
    text = _text(args, name).strip()
    if not text:
        return None
    try:
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
            day = datetime.combine(datetime.fromisoformat(text).date(), time.min)
            return (day + timedelta(days=1) - timedelta(microseconds=1) if end_of_day else day).timestamp()
        return datetime.fromisoformat(text).timestamp()
    except ValueError:
        raise ArgumentError(
            f"{name} must be a date like 2026-06-16 or 2026-06-16T15:04, not {text!r}."
        ) from None


def _brief(messages: Sequence[MessageRecord], chars: int, anchor: int | None = None) -> list[dict[str, Any]]:
    out = []
    for message in messages:
        item = message.brief(chars)
        if anchor is not None and message.id == anchor:
            item["anchor"] = True
        out.append(item)
    return out


def _session_head(session: SessionRecord) -> dict[str, Any]:
    return {
        "session_id": session.id,
        "title": session.title,
        "when": when(session.started_at),
        "source": session.source,
        "model": session.model,
    }


def _weight(hits: Sequence[SearchHit], share: float) -> float:
    """A conversation's relevance: its best hit's score, plus `share` of its other hits' scores.

    A conversation that tells of the thing asked about usually holds it more than once (the
    telling, the other person's reply, a later mention), while a passing aside elsewhere may
    hold the question's words just as densely in one short message: ranking conversations by
    their best hit alone lets the asides crowd the telling out of the few conversations shown.
    """
    return hits[0].score + share * sum(hit.score for hit in hits[1:])


async def _discover(
    store: SessionStore, request: _Request, current_session_id: str | None, summarizer: Summarizer | None
) -> dict[str, Any]:
    exclude: list[str] = []
    within: list[str] = []
    if request.session_id:
        session = await store.require_session(request.session_id)
        within = await store.tree.lineage(session.id)
    elif current_session_id:
        # The current conversation is already in the model's context; compressed parents included.
        exclude = await store.tree.lineage(current_session_id)
    result = await store.search(
        request.query,
        limit=request.hits,
        roles=request.roles,
        since=request.since,
        until=request.until,
        session_ids=within,
        sources=(request.source,) if request.source else (),
        exclude_sources=() if request.source else HIDDEN_SOURCES,
        exclude_session_ids=exclude,
    )
    roots = await store.tree.lineage_roots([hit.session_id for hit in result.hits])
    groups: dict[str, list[Any]] = {}
    for hit in result.hits:
        groups.setdefault(roots[hit.session_id], []).append(hit)
    chosen = list(groups.items())
    if request.sort == "relevance":
        chosen.sort(key=lambda item: -_weight(item[1], request.session_share))
    else:
        chosen.sort(key=lambda item: item[1][0].timestamp, reverse=request.sort == "newest")
    chosen = chosen[: request.limit]
    results = []
    for root, hits in chosen:
        best = hits[0]
        session = await store.get_session(best.session_id)
        if session is None:
            continue
        before, after, more_before, more_after = await store.messages_around(
            session.id, best.message_id, request.window, include_inactive=best.rewound
        )
        first, last, _total = await store.bookends(session.id, BOOKEND)
        entry = _session_head(session)
        if best.rewound:
            entry["rewound"] = True
            entry["note"] = REWOUND_NOTE
        entry.update(
            {
                "conversation": root,
                "snippet": best.snippet,
                "match_message_id": best.message_id,
                "match_role": best.role,
                "other_matches": [h.message_id for h in hits[1:6]],
                "bookend_start": _brief(first, request.message_chars),
                "messages": _brief(before + after, request.message_chars, anchor=best.message_id),
                "bookend_end": _brief(last, request.message_chars),
                "messages_before": more_before,
                "messages_after": more_after,
            }
        )
        results.append(entry)
    out: dict[str, Any] = {
        "success": True,
        "mode": "discovery",
        "query": request.query,
        "results": results,
        "count": len(results),
        "conversations_found": len(groups),
    }
    if result.partial:
        out["partial"] = True
        out["note"] = "The search stopped at its time limit; narrow it with since/until or a rarer word."
    if not results:
        out["message"] = (
            "No past session matched. Try other words (names, rare terms), fewer words, "
            "or call session_search with no arguments to browse recent conversations."
        )
    if request.summarize and results:
        await _summarize(store, request, results, summarizer)
    return out


async def _summarize(
    store: SessionStore, request: _Request, results: list[dict[str, Any]], summarizer: Summarizer | None
) -> None:
    if summarizer is None:
        for entry in results:
            entry["summary"] = None
        results[0]["note"] = "No auxiliary model is set up for recaps; these are the raw hits."
        return

    async def recap(entry: dict[str, Any]) -> None:
        messages = await store.get_messages(entry["session_id"])
        transcript = recap_transcript(messages, request.tool_chars)
        focus = _first_hit_offset(transcript, entry["snippet"])
        text = centred_cut(transcript, focus, request.summary_chars)
        try:
            entry["summary"] = (await summarizer(f"Search query: {request.query}\n\n{text}")).strip()
        except Exception as exc:  # a failed recap must not lose the hit
            entry["summary"] = (
                f"[Raw preview — summarization unavailable: {type(exc).__name__}] " + text[:RAW_PREVIEW_CHARS]
            )

    await asyncio.gather(*(recap(entry) for entry in results))


def _first_hit_offset(transcript: str, snippet: str) -> int:
    marked = re.search(r">>>(.+?)<<<", snippet or "")
    if not marked:
        return 0
    position = transcript.lower().find(marked.group(1).lower())
    return max(0, position)


async def _scroll(store: SessionStore, request: _Request) -> dict[str, Any]:
    session = await store.require_session(request.session_id)
    assert request.around is not None
    target = await store.get_message(request.around)
    if target is None or target.session_id != session.id:
        return _failure(
            f"Message {request.around} is not in session {session.id}; "
            "use a match_message_id or message id returned for that session."
        )
    before, after, more_before, more_after = await store.messages_around(
        session.id, request.around, request.window
    )
    out = {"success": True, "mode": "scroll", **_session_head(session)}
    out.update(
        {
            "messages": _brief(before + after, request.message_chars, anchor=request.around),
            "messages_before": more_before,
            "messages_after": more_after,
        }
    )
    return out


async def _read(store: SessionStore, request: _Request) -> dict[str, Any]:
    session = await store.require_session(request.session_id)
    messages = await store.get_messages(session.id)
    out: dict[str, Any] = {"success": True, "mode": "read", **_session_head(session)}
    chain = await store.tree.lineage(session.id)
    if len(chain) > 1:
        out["conversation"] = chain
    if len(messages) > request.head + request.tail:
        omitted = len(messages) - request.head - request.tail
        shown = messages[: request.head] + messages[-request.tail :]
        out["messages"] = _brief(shown, request.message_chars)
        out["omitted"] = omitted
        out["note"] = (
            f"{omitted} messages in the middle are not shown; use around_message_id "
            f"(e.g. {messages[request.head].id}) to scroll there."
        )
    else:
        out["messages"] = _brief(messages, request.message_chars)
    out["message_count"] = len(messages)
    return out


async def _browse(store: SessionStore, request: _Request) -> dict[str, Any]:
    conversations = await store.tree.list_conversations(
        limit=request.browse_limit, source=request.source or None
    )
    sessions = []
    for conversation in conversations:
        first, _last, _total = await store.bookends(conversation.tip_id, 1, roles=("user",))
        preview = first[0].text.strip()[:160] if first else ""
        sessions.append(
            {
                "session_id": conversation.tip_id,
                "title": conversation.title,
                "when": when(conversation.root.started_at),
                "last_active": when(conversation.last_active),
                "source": conversation.root.source,
                "message_count": conversation.message_count,
                "sessions": list(conversation.session_ids),
                "preview": preview,
            }
        )
    return {"success": True, "mode": "browse", "sessions": sessions, "count": len(sessions)}
