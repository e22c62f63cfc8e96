"""Reading stored conversations for the workstation: transcript pages, the sessions list, search, lineage.

`HistoryReader` holds one read-only connection to state.db (opened when the file exists) on the
app's event loop. Pages follow a compression chain across its sessions: paging up from the first
message of a continuation goes on in its parent, paging down past the end of a parent goes on in
its continuation. Replies are laid out as Markdown in a thread, at the transcript's width.
"""

from __future__ import annotations

import asyncio
import importlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from widgets.transcript_history import HistoryItem, HistoryPage

if TYPE_CHECKING:
    from engine.config import Config
    from engine.home import Home
    from engine.sessions.records import MessageRecord, SessionRecord, ToolResultRecord
    from engine.sessions.store import SessionStore
    from engine.tools.registry import ToolRegistry


@dataclass(frozen=True)
class StoredCalls:
    """What state.db kept of a page's tool calls beside the messages: by result message id, what the
    tool layer said of the result; by tool call id, the person's answer (see `approval_of`)."""

    outcomes: Mapping[int, ToolResultRecord] = field(default_factory=dict)
    approvals: Mapping[str, str] = field(default_factory=dict)


def approval_of(rows: list[dict[str, Any]]) -> str:
    """One call's approval from its rows in `hws_approvals`: `deny` when any check was declined,
    else the person's answer (`once`, `session`), else `rule` (an earlier session approval covered it)."""
    decisions = [str(r["decision"]) for r in rows]
    if "deny" in decisions:
        return "deny"
    asked = [str(r["decision"]) for r in rows if not r["by_session_rule"]]
    if asked:
        return "session" if "session" in asked else asked[-1]
    return "rule"


@dataclass(frozen=True)
class SessionRow:
    """One conversation (a compression chain) in the sessions screen."""

    session_id: str  # its tip: resuming continues here
    root_id: str
    title: str
    when: str
    last_active: float
    source: str
    message_count: int
    sessions: tuple[str, ...]
    preview: str = ""
    snippet: str = ""  # search: the matching text, with >>>marks<<<
    match_message_id: int | None = None
    match_session_id: str = ""
    rewound: bool = False  # search: the best hit was taken back with /undo (kept, found, marked)
    branch_of: str = ""  # a /branch copy: the session it was branched from


@dataclass
class SessionsListState:
    """Where the sessions list was left: kept by the app while the screen is closed."""

    query: str = ""
    rows: list[SessionRow] = field(default_factory=list)
    highlighted: str = ""  # the root id of the highlighted conversation
    scroll_y: float = 0.0
    in_list: bool = False  # the list had the focus (else the search box)


def branched_from(session: SessionRecord) -> str:
    """The session a `/branch` copy was made from ("" for any other session)."""
    return str((session.model_config or {}).get("_branched_from") or "")


class HistoryReader:
    """state.db, read-only, for the transcript's pages and the sessions screen."""

    def __init__(self, home: Home, config: Config) -> None:
        self.home = home
        self.config = config
        self._store: SessionStore | None = None
        self._lock = asyncio.Lock()
        self._registry: ToolRegistry | None = None  # built on first use, for the calls' previews

    async def store(self) -> SessionStore | None:
        """The read-only store, opened on first use; None while there is no database yet."""
        async with self._lock:
            if self._store is None:
                path = self.home.state_db
                if not path.exists() or path.stat().st_size == 0:
                    return None
                # Imported off the loop: the first import costs tens of ms, and another thread may be mid-way.
                await asyncio.to_thread(importlib.import_module, "engine.sessions.store")
                from engine.sessions.store import SessionStore

                self._store = await SessionStore.open(path, settings=self.config.sessions, read_only=True)
            return self._store

    async def close(self) -> None:
        async with self._lock:
            if self._store is not None:
                await self._store.close()
                self._store = None

    # Transcript pages.

    async def page(
        self,
        direction: str,
        session_id: str,
        anchor: int,
        *,
        limit: int,
        width: int,
        stop: tuple[str, int] | None = None,
        request: int = 0,
    ) -> HistoryPage:
        store = await self.store()
        if store is None:
            return HistoryPage(direction, request=request)
        if direction == "tail":
            records, more_above, more_below = await self._tail(store, session_id, limit)
        elif direction == "around":
            records, more_above, more_below = await self._around(store, session_id, anchor, limit)
        elif direction == "up":
            records, more_above = await self._up(store, session_id, anchor, limit)
            more_below = True
        else:
            records, more_below = await self._down(store, session_id, anchor, limit, stop)
            more_above = True
        calls = await self._call_records(store, records)
        items = await asyncio.to_thread(
            history_items,
            records,
            width,
            int(self.config.tui.tool_preview_chars),
            calls,
            self._describe_call,
        )
        first = (records[0].session_id, records[0].id) if records else None
        last = (records[-1].session_id, records[-1].id) if records else None
        return HistoryPage(direction, tuple(items), first, last, more_above, more_below, request)

    async def _call_records(self, store: SessionStore, records: list[Any]) -> StoredCalls:
        """What the engine kept of the page's tool calls: each result's outcome, each call's approval."""
        result_ids = [int(r.id) for r in records if r.role == "tool"]
        if not result_ids:
            return StoredCalls()
        outcomes = await store.tool_results(result_ids)
        sessions = dict.fromkeys(r.session_id for r in records)
        for session_id in list(sessions):  # a call copied into a continuation was answered in its parent
            parent = await self._chain_parent(store, session_id)
            if parent is not None:
                sessions.setdefault(parent)
        answers: dict[str, list[dict[str, Any]]] = {}
        for session_id in sessions:
            for row in await store.approvals(session_id):
                if row["tool_call_id"]:
                    answers.setdefault(str(row["tool_call_id"]), []).append(row)
        return StoredCalls(outcomes, {call_id: approval_of(rows) for call_id, rows in answers.items()})

    def _describe_call(self, name: str, arguments: dict[str, Any]) -> str:
        """A stored call's one-line preview, as the tool registry wrote it when the call was live."""
        if self._registry is None:
            from engine.tools.knowledge import agent_registry

            self._registry = agent_registry()
        return str(self._registry.call_detail(name, arguments, int(self.config.tool_output.preview_chars)))

    async def _tail(self, store: SessionStore, session_id: str, limit: int) -> tuple[list[Any], bool, bool]:
        _first, last, total = await store.bookends(session_id, limit, roles=())
        records = trim_to_turns(last, "up", total > len(last))
        more_above = total > len(records) or await self._chain_parent(store, session_id) is not None
        return records, more_above, False

    async def _around(
        self, store: SessionStore, session_id: str, message_id: int, limit: int
    ) -> tuple[list[Any], bool, bool]:
        before, after, more_before, more_after = await store.messages_around(
            session_id, message_id, limit // 2
        )
        records = before + after
        more_above = more_before > 0 or await self._chain_parent(store, session_id) is not None
        more_below = more_after > 0 or await store.tree.continuation_of(session_id) is not None
        return records, more_above, more_below

    async def _up(
        self, store: SessionStore, session_id: str, before_id: int, limit: int
    ) -> tuple[list[Any], bool]:
        before, _after, more_before, _more_after = await store.messages_around(session_id, before_id, limit)
        if not before:
            parent = await self._chain_parent(store, session_id)
            if parent is None:
                return [], False
            _first, last, total = await store.bookends(parent, limit, roles=())
            records = trim_to_turns(last, "up", total > len(last))
            more = total > len(records) or await self._chain_parent(store, parent) is not None
            return records, more
        records = trim_to_turns(before, "up", more_before > 0)
        more = (
            more_before > 0
            or len(records) < len(before)
            or await self._chain_parent(store, session_id) is not None
        )
        return records, more

    async def _down(
        self, store: SessionStore, session_id: str, after_id: int, limit: int, stop: tuple[str, int] | None
    ) -> tuple[list[Any], bool]:
        current = session_id
        records: list[Any] = []
        for _ in range(64):  # a chain longer than this is a damaged database; stop paging
            _before, after, _more_before, more_after = await store.messages_around(
                current, after_id + 1, limit
            )
            if stop is not None and current == stop[0]:
                reached = [r for r in after if r.id < stop[1]]
                more = len(reached) == len(after) and more_after > 0
                records = trim_to_turns(reached, "down", more)
                return records, more or len(records) < len(reached)
            if after:
                records = trim_to_turns(after, "down", more_after > 0)
                more = more_after > 0 or len(records) < len(after)
                if not more:
                    more = await store.tree.continuation_of(current) is not None
                return records, more
            following = await store.tree.continuation_of(current)
            if following is None:
                return [], False
            current, after_id = following, 0
        return [], False

    async def _chain_parent(self, store: SessionStore, session_id: str) -> str | None:
        """The session this one continues after a compression (not a branch's origin)."""
        session = await store.get_session(session_id)
        if session is None or not session.parent_session_id or session.is_branch_or_delegate:
            return None
        parent = await store.get_session(session.parent_session_id)
        if parent is None or parent.end_reason != "compression":
            return None
        return parent.id

    async def session_title(self, session_id: str) -> str:
        """The title of a session's conversation, kept on its first session ("" when it has none, or
        there is no database yet)."""
        store = await self.store()
        if store is None:
            return ""
        session = await store.get_session(await store.tree.lineage_root(session_id))
        return str(session.title or "") if session is not None else ""

    # The sessions screen.

    async def conversations(self, offset: int, limit: int) -> list[SessionRow]:
        store = await self.store()
        if store is None:
            return []
        found = await store.tree.list_conversations(limit=limit, offset=offset)
        rows = []
        for conversation in found:
            first, _last, _total = await store.bookends(conversation.tip_id, 1, roles=("user",))
            if not first and conversation.root.id != conversation.tip_id:
                first, _last, _total = await store.bookends(conversation.root.id, 1, roles=("user",))
            preview = " ".join(as_typed(first[0].text).split())[:160] if first else ""
            rows.append(
                SessionRow(
                    session_id=conversation.tip_id,
                    root_id=conversation.root.id,
                    title=conversation.title or "",
                    when=conversation.root.when,
                    last_active=conversation.last_active,
                    source=conversation.root.source,
                    message_count=conversation.message_count,
                    sessions=tuple(conversation.session_ids),
                    preview=preview,
                    branch_of=branched_from(conversation.root),
                )
            )
        return rows

    async def search(self, query: str, limit: int = 10) -> tuple[list[SessionRow], str]:
        """The agent's own `session_search` (discovery mode): conversations ranked by their best hit."""
        store = await self.store()
        if store is None:
            return [], "No sessions yet: state.db does not exist."
        from engine.sessions.session_search import session_search

        result = await session_search(store, {"query": query, "limit": limit, "window": 1})
        if not result.get("success"):
            return [], str(result.get("error") or "The search failed.")
        rows = []
        for hit in result.get("results", []):
            start = hit.get("bookend_start") or []
            preview = " ".join(str(start[0].get("content", "")).split())[:160] if start else ""
            hit_session = str(hit.get("session_id"))
            # The hit's whole conversation, as the list counts it (the hit names only its session).
            conversation = await store.tree.conversation(hit_session)
            rows.append(
                SessionRow(
                    session_id=conversation.tip_id if conversation else hit_session,
                    root_id=str(hit.get("conversation") or hit_session),
                    title=str((conversation.title if conversation else hit.get("title")) or ""),
                    when=str(conversation.root.when if conversation else hit.get("when") or ""),
                    last_active=conversation.last_active if conversation else 0.0,
                    source=str(hit.get("source") or ""),
                    message_count=conversation.message_count if conversation else 0,
                    sessions=tuple(conversation.session_ids) if conversation else (),
                    preview=preview,
                    snippet=" ".join(str(hit.get("snippet") or "").split()),
                    match_message_id=hit.get("match_message_id"),
                    match_session_id=str(hit.get("session_id")),
                    rewound=bool(hit.get("rewound")),
                    branch_of=branched_from(conversation.root) if conversation else "",
                )
            )
        # The engine's notes speak to the model (its tool's arguments); a person gets the same advice
        # in the screen's own words.
        if not rows:
            note = "No past session matched: try other words (names, rare terms) or fewer; empty lists all."
        elif result.get("partial"):
            note = (
                "The search stopped at its time limit: these are the newest matches; a rarer word finds more."
            )
        else:
            note = ""
        return rows, note

    async def lineage(self, session_id: str) -> tuple[str, ...]:
        store = await self.store()
        if store is None or not session_id:
            return (session_id,) if session_id else ()
        try:
            return tuple(await store.tree.lineage(session_id))
        except Exception:
            return (session_id,)

    async def branches(self, chain: Sequence[str]) -> tuple[str, tuple[str, ...]]:
        """Of a compression chain: the session its root was branched from ("" if none), and the
        branches made from any of its sessions, oldest first."""
        store = await self.store()
        if store is None or not chain:
            return "", ()
        root = await store.get_session(chain[0])
        made: list[str] = []
        for sid in chain:
            made += [child.id for child in await store.tree.children(sid) if branched_from(child) == sid]
        return (branched_from(root) if root is not None else ""), tuple(made)

    async def lineage_rows(self, session_id: str) -> list[SessionRow]:
        """Every session of a conversation's chain, root first, with what each holds; then the branches
        made from them (each marked as one; resuming it goes on at its newest session)."""
        store = await self.store()
        if store is None:
            return []
        chain = await store.tree.lineage(session_id)
        rows = [row for sid in chain if (row := await self._lineage_row(store, sid)) is not None]
        _branch_of, branches = await self.branches(chain)
        for child in branches:
            row = await self._lineage_row(store, child)
            if row is not None:
                rows.append(replace(row, session_id=await store.tree.compression_tip(child)))
        return rows

    async def _lineage_row(self, store: SessionStore, sid: str) -> SessionRow | None:
        session = await store.get_session(sid)
        if session is None:
            return None
        first, _last, _total = await store.bookends(sid, 1, roles=("user",))
        ended = session.end_reason or "open"
        return SessionRow(
            session_id=sid,
            root_id=sid,
            title=session.title or "",
            when=session.when,
            last_active=session.ended_at or session.started_at,
            source=session.source,
            message_count=session.message_count,
            sessions=(sid,),
            preview=(" ".join(as_typed(first[0].text).split())[:120] if first else "") + f"  [{ended}]",
            branch_of=branched_from(session),
        )


def trim_to_turns(records: list[Any], direction: str, more: bool) -> list[Any]:
    """Cut a page at a user message, so it never splits a turn (when more of it exists beyond)."""
    if not more or not records:
        return records
    users = [i for i, r in enumerate(records) if r.role == "user"]
    if direction == "up":  # start at a turn's user message
        return records[users[0] :] if users and users[0] > 0 else records
    return records[: users[-1]] if users and users[-1] > 0 else records  # end before the next turn


def as_typed(text: str) -> str:
    """A stored user message as the person typed it: a skill's invocation is `/name instruction`."""
    from engine.skills.invoke import describe_invocation

    return describe_invocation(text) or text


def history_items(
    records: list[MessageRecord],
    width: int,
    preview_chars: int,
    calls: StoredCalls | None = None,
    describe: Callable[[str, dict[str, Any]], str] | None = None,
) -> list[HistoryItem]:
    """Stored messages as transcript items: user lines, laid-out replies, tool calls with results.

    A tool call is drawn as it was live: `describe` gives its one-line preview (the registry's),
    `calls` its result's outcome and summary and the person's approval; a call whose outcome was
    never kept (an older database, Hermes' own sessions) is judged from its result's text.
    """
    from engine import events
    from engine.compression.messages import looks_like_summary
    from engine.compression.summary_message import split_summary
    from widgets.transcript_blocks import reply_strips

    calls = calls or StoredCalls()
    items: list[HistoryItem] = []
    call_items: dict[str, int] = {}  # tool call id -> index of its item
    previous_session = records[0].session_id if records else ""
    for record in records:
        ref = (record.session_id, int(record.id))
        if record.session_id != previous_session:
            items.append(HistoryItem("divider", ref, text=f"continued in session {record.session_id}"))
            previous_session = record.session_id
        text = record.text
        if record.role in ("user", "assistant") and looks_like_summary(text):
            body, rest = split_summary(text)
            items.append(HistoryItem("summary", ref, text=body))
            if rest:
                items.append(HistoryItem("user", ref, text=rest))
            continue
        if record.role == "user":
            items.append(HistoryItem("user", ref, text=as_typed(text)))
        elif record.role == "assistant":
            if text.strip():
                strips = tuple(reply_strips(text, max(1, width)))
                items.append(HistoryItem("reply", ref, text=text, strips=strips, width=width))
            for call in record.tool_calls or []:
                call_id, name, arguments = _call_parts(call)
                call_items[call_id] = len(items)
                preview = _preview(describe, name, arguments)
                called = events.ToolCalled(record.session_id, call_id, name, arguments, preview)
                approval = calls.approvals.get(call_id, "auto")
                items.append(HistoryItem("tool", ref, call=called, approval=approval))
        elif record.role == "tool":
            call_id = str(record.tool_call_id or "")
            kept = calls.outcomes.get(int(record.id))
            ok, summary = (kept.ok, kept.summary) if kept else judged_result(text, preview_chars)
            result = events.ToolFinished(
                record.session_id,
                call_id,
                str(record.tool_name or "tool"),
                ok,
                summary,
                kept.duration_s if kept else 0.0,
                text,
            )
            index = call_items.get(call_id)
            if index is not None:
                item = items[index]
                items[index] = replace(item, ref_end=ref, result=result)
            else:
                called = events.ToolCalled(record.session_id, call_id, result.name, {}, "")
                approval = calls.approvals.get(call_id, "auto")
                items.append(HistoryItem("tool", ref, call=called, result=result, approval=approval))
    return items


def _preview(
    describe: Callable[[str, dict[str, Any]], str] | None, name: str, arguments: dict[str, Any]
) -> str:
    if describe is None:
        return ""
    try:
        return describe(name, arguments)
    except Exception:  # a preview is a nicety: the arguments still show
        return ""


def judged_result(text: str, limit: int) -> tuple[bool, str]:
    """Whether a stored result without a kept outcome failed, and its one-line summary, from its text:
    the error and refusal shapes the tool layer writes (`{"error": …}`, `{"success": false, …}`,
    `{"declined": true, …}`)."""
    from engine.tools.preview import default_summary, one_line

    try:
        value = json.loads(text) if text.lstrip().startswith("{") else None
    except ValueError:
        value = None
    if isinstance(value, dict):
        if value.get("declined") is True:
            return False, "declined by the user"
        failed = value.get("success") is False or ("error" in value and value.get("success") is not True)
        if failed:
            return False, one_line(f"error: {value.get('error') or value.get('message') or 'failed'}", limit)
        return True, default_summary(value, limit)
    return not text.lstrip().startswith("Error"), default_summary(text, limit)


def _call_parts(call: Any) -> tuple[str, str, dict[str, Any]]:
    if not isinstance(call, dict):
        return "", "tool", {}
    function = call.get("function") if isinstance(call.get("function"), dict) else call
    raw = function.get("arguments", {})
    if isinstance(raw, str):
        try:
            arguments = json.loads(raw) if raw.strip() else {}
        except ValueError:
            arguments = {"arguments": raw}
    else:
        arguments = raw if isinstance(raw, dict) else {}
    if not isinstance(arguments, dict):
        arguments = {"arguments": arguments}
    return str(call.get("id") or ""), str(function.get("name") or "tool"), arguments
