"""The state and the routes of the local Honcho test server: what each v3 endpoint stores and answers.

Records mirror the SDK's response models (`honcho/api_types.py`); `build_routes` maps each
`METHOD /v3/...` pattern the SDK 2.7.0 calls to a handler over `HonchoState`. Representations
and dialectic answers come from `honcho_deriver`. The server module adds HTTP, recording and faults.
"""

from __future__ import annotations

import datetime
import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engine.providers.claims import words
from tests.support import honcho_deriver as deriver

RESOURCE_NAME = re.compile(r"^[A-Za-z0-9_-]{1,512}$")
MAX_CONTENT_CHARS = 25_000
MAX_BATCH = 100


class HttpError(Exception):
    """Answer the request with this status and a FastAPI-style `{"detail": ...}` body."""

    def __init__(self, status: int, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat().replace("+00:00", "Z")


def _uid() -> str:
    return uuid.uuid4().hex[:21]


def _check_id(kind: str, value: Any) -> str:
    if not isinstance(value, str) or not RESOURCE_NAME.match(value):
        raise HttpError(422, f"{kind} id must match ^[a-zA-Z0-9_-]+$ (1 to 512 characters), got {value!r}")
    return value


# -- state ----------------------------------------------------------------------------------------


@dataclass
class PeerRecord:
    id: str
    uid: str = field(default_factory=_uid)
    metadata: dict[str, Any] = field(default_factory=dict)
    configuration: dict[str, Any] = field(default_factory=dict)
    created_at: str = field(default_factory=_now)
    card: list[str] | None = None  # set through PUT card; otherwise derived


@dataclass
class MessageRecord:
    id: str
    content: str
    peer_id: str
    session_id: str
    workspace_id: str
    metadata: dict[str, Any]
    created_at: str
    token_count: int


@dataclass
class SessionRecord:
    id: str
    uid: str = field(default_factory=_uid)
    metadata: dict[str, Any] = field(default_factory=dict)
    configuration: dict[str, Any] = field(default_factory=dict)
    created_at: str = field(default_factory=_now)
    is_active: bool = True
    peers: dict[str, dict[str, Any]] = field(default_factory=dict)  # peer id -> session peer config
    messages: list[MessageRecord] = field(default_factory=list)


@dataclass
class WorkspaceRecord:
    id: str
    uid: str = field(default_factory=_uid)
    metadata: dict[str, Any] = field(default_factory=dict)
    configuration: dict[str, Any] = field(default_factory=dict)
    created_at: str = field(default_factory=_now)
    peers: dict[str, PeerRecord] = field(default_factory=dict)
    sessions: dict[str, SessionRecord] = field(default_factory=dict)


class HonchoState:
    """Workspaces with their peers, sessions and messages; callers hold the server's lock."""

    def __init__(self) -> None:
        self.workspaces: dict[str, WorkspaceRecord] = {}
        self._seq = 0

    def workspace(self, workspace_id: str) -> WorkspaceRecord:
        ws = self.workspaces.get(workspace_id)
        if ws is None:
            raise HttpError(404, f"Workspace {workspace_id} not found")
        return ws

    def session(self, ws: WorkspaceRecord, session_id: str) -> SessionRecord:
        session = ws.sessions.get(session_id)
        if session is None:
            raise HttpError(404, f"Session {session_id} not found")
        return session

    def peer(self, ws: WorkspaceRecord, peer_id: str, create: bool = False) -> PeerRecord:
        peer = ws.peers.get(peer_id)
        if peer is None:
            if not create:
                raise HttpError(404, f"Peer {peer_id} not found")
            peer = ws.peers[_check_id("peer", peer_id)] = PeerRecord(peer_id)
        return peer

    def next_message_id(self) -> str:
        self._seq += 1
        return f"msg_{self._seq:06d}"

    def said_by(self, ws: WorkspaceRecord, peer_id: str, observer: str | None = None) -> list[str]:
        """What a peer said where it may be observed: `observe_me` on the peer and in the session.

        With an `observer`, only sessions where that peer sat with `observe_others` on count:
        the observer's own view of the peer, as Honcho's local representations work.
        """
        peer = ws.peers.get(peer_id)
        if peer is None or peer.configuration.get("observe_me") is False:
            return []
        out = []
        for session in ws.sessions.values():
            if session.peers.get(peer_id, {}).get("observe_me") is False:
                continue
            if observer and observer != peer_id:
                config = session.peers.get(observer)
                if config is None or not config.get("observe_others"):
                    continue
            out.extend(m.content for m in session.messages if m.peer_id == peer_id)
        return out


# -- responses ------------------------------------------------------------------------------------


def _workspace_json(ws: WorkspaceRecord) -> dict[str, Any]:
    return {
        "id": ws.id,
        "uid": ws.uid,
        "metadata": ws.metadata,
        "configuration": ws.configuration,
        "created_at": ws.created_at,
    }


def _peer_json(ws: WorkspaceRecord, peer: PeerRecord) -> dict[str, Any]:
    return {
        "id": peer.id,
        "uid": peer.uid,
        "workspace_id": ws.id,
        "created_at": peer.created_at,
        "metadata": peer.metadata,
        "configuration": peer.configuration,
    }


def _session_json(ws: WorkspaceRecord, session: SessionRecord) -> dict[str, Any]:
    return {
        "id": session.id,
        "uid": session.uid,
        "is_active": session.is_active,
        "workspace_id": ws.id,
        "metadata": session.metadata,
        "configuration": session.configuration,
        "created_at": session.created_at,
    }


def _message_json(message: MessageRecord) -> dict[str, Any]:
    return dict(message.__dict__)


def _page(items: list[Any], query: dict[str, str]) -> dict[str, Any]:
    page = max(1, int(query.get("page", 1)))
    size = max(1, min(100, int(query.get("size", 50))))
    if query.get("reverse") == "true":
        items = list(reversed(items))
    start = (page - 1) * size
    pages = max(1, -(-len(items) // size))
    return {
        "items": items[start : start + size],
        "total": len(items),
        "page": page,
        "size": size,
        "pages": pages,
    }


def _matches(record: dict[str, Any], filters: dict[str, Any] | None) -> bool:
    """The filter subset the stand-in honours: equality, `{"in": [...]}`, and metadata equality."""
    for key, wanted in (filters or {}).items():
        if key == "metadata" and isinstance(wanted, dict):
            meta = record.get("metadata") or {}
            if any(meta.get(k) != v for k, v in wanted.items()):
                return False
            continue
        have = record.get(key)
        if isinstance(wanted, dict):
            if "in" in wanted and have not in wanted["in"]:
                return False
            if "ne" in wanted and have == wanted["ne"]:
                return False
        elif have != wanted:
            return False
    return True


def _body(body: Any) -> dict[str, Any]:
    if body is None:
        return {}
    if not isinstance(body, dict):
        raise HttpError(422, "Body must be a JSON object")
    return body


def _int(query: dict[str, str], key: str, default: int) -> int:
    try:
        return int(query.get(key, default))
    except ValueError as exc:
        raise HttpError(422, f"Query parameter {key} must be a whole number") from exc


def build_routes(state: HonchoState) -> list[tuple[str, re.Pattern[str], Callable[..., Any]]]:
    seg = r"([^/]+)"
    ws_root = rf"/v3/workspaces/{seg}"

    def workspace_get_or_create(query: dict[str, str], body: Any) -> Any:
        data = _body(body)
        ws_id = _check_id("workspace", data.get("id"))
        ws = state.workspaces.get(ws_id)
        if ws is None:
            ws = state.workspaces[ws_id] = WorkspaceRecord(ws_id, metadata=dict(data.get("metadata") or {}))
            ws.configuration = dict(data.get("configuration") or {})
        return _workspace_json(ws)

    def workspace_list(query: dict[str, str], body: Any) -> Any:
        filters = _body(body).get("filters")
        items = [
            _workspace_json(w) for w in state.workspaces.values() if _matches(_workspace_json(w), filters)
        ]
        return _page(items, query)

    def workspace_update(ws_id: str, query: dict[str, str], body: Any) -> Any:
        ws, data = state.workspace(ws_id), _body(body)
        if data.get("metadata") is not None:
            ws.metadata = dict(data["metadata"])
        if data.get("configuration") is not None:
            ws.configuration = dict(data["configuration"])
        return _workspace_json(ws)

    def workspace_delete(ws_id: str, query: dict[str, str], body: Any) -> Any:
        state.workspace(ws_id)
        del state.workspaces[ws_id]
        return None

    def peer_get_or_create(ws_id: str, query: dict[str, str], body: Any) -> Any:
        ws, data = state.workspace(ws_id), _body(body)
        peer_id = _check_id("peer", data.get("id"))
        peer = ws.peers.get(peer_id)
        if peer is None:
            peer = ws.peers[peer_id] = PeerRecord(peer_id)
        if data.get("metadata") is not None:
            peer.metadata = dict(data["metadata"])
        if data.get("configuration") is not None:
            peer.configuration = {**peer.configuration, **data["configuration"]}
        return _peer_json(ws, peer)

    def peer_list(ws_id: str, query: dict[str, str], body: Any) -> Any:
        ws = state.workspace(ws_id)
        filters = _body(body).get("filters")
        items = [_peer_json(ws, p) for p in ws.peers.values()]
        return _page([p for p in items if _matches(p, filters)], query)

    def peer_update(ws_id: str, peer_id: str, query: dict[str, str], body: Any) -> Any:
        ws, data = state.workspace(ws_id), _body(body)
        peer = state.peer(ws, peer_id)
        if data.get("metadata") is not None:
            peer.metadata = dict(data["metadata"])
        if data.get("configuration") is not None:
            peer.configuration = dict(data["configuration"])
        return _peer_json(ws, peer)

    def peer_sessions(ws_id: str, peer_id: str, query: dict[str, str], body: Any) -> Any:
        ws = state.workspace(ws_id)
        state.peer(ws, peer_id)
        items = [_session_json(ws, s) for s in ws.sessions.values() if peer_id in s.peers]
        return _page([s for s in items if _matches(s, _body(body).get("filters"))], query)

    def _subject(ws: WorkspaceRecord, peer_id: str, target: str | None) -> tuple[str, list[str]]:
        state.peer(ws, peer_id)
        if target and target != peer_id:
            state.peer(ws, target)
            return target, state.said_by(ws, target, observer=peer_id)
        return peer_id, state.said_by(ws, peer_id)

    def peer_context(ws_id: str, peer_id: str, query: dict[str, str], body: Any) -> Any:
        ws = state.workspace(ws_id)
        target = query.get("target")
        subject, said = _subject(ws, peer_id, target)
        limit = _int(query, "max_conclusions", 25)
        card_owner = ws.peers[subject]
        return {
            "peer_id": peer_id,
            "target_id": target or peer_id,
            "representation": deriver.representation(subject, said, limit, query.get("search_query")) or None,
            "peer_card": card_owner.card
            if card_owner.card is not None
            else deriver.peer_card(subject, said) or None,
        }

    def peer_representation(ws_id: str, peer_id: str, query: dict[str, str], body: Any) -> Any:
        ws, data = state.workspace(ws_id), _body(body)
        subject, said = _subject(ws, peer_id, data.get("target"))
        if data.get("session_id"):
            session = state.session(ws, data["session_id"])
            said = [m.content for m in session.messages if m.peer_id == subject]
        limit = int(data.get("max_conclusions") or 25)
        return {"representation": deriver.representation(subject, said, limit, data.get("search_query"))}

    def peer_card_get(ws_id: str, peer_id: str, query: dict[str, str], body: Any) -> Any:
        ws = state.workspace(ws_id)
        subject, said = _subject(ws, peer_id, query.get("target"))
        peer = ws.peers[subject]
        return {"peer_card": peer.card if peer.card is not None else deriver.peer_card(subject, said) or None}

    def peer_card_set(ws_id: str, peer_id: str, query: dict[str, str], body: Any) -> Any:
        ws, data = state.workspace(ws_id), _body(body)
        card = data.get("peer_card")
        if not isinstance(card, list) or not all(isinstance(line, str) for line in card):
            raise HttpError(422, "peer_card must be a list of strings")
        subject = query.get("target") or peer_id
        state.peer(ws, subject).card = list(card)
        return {"peer_card": card}

    def _dialectic(ws: WorkspaceRecord, subject: str, said: list[str], data: dict[str, Any]) -> Any:
        question = data.get("query")
        if not isinstance(question, str) or not question.strip() or len(question) > 10_000:
            raise HttpError(422, "query must be 1 to 10,000 characters")
        if data.get("stream"):
            raise HttpError(422, "The Honcho test server answers chat without streaming only")
        return {"content": deriver.dialectic_answer(subject, said, question)}

    def peer_chat(ws_id: str, peer_id: str, query: dict[str, str], body: Any) -> Any:
        ws, data = state.workspace(ws_id), _body(body)
        subject, said = _subject(ws, peer_id, data.get("target"))
        if data.get("session_id"):
            session = state.session(ws, data["session_id"])
            said = [m.content for m in session.messages if m.peer_id == subject]
        return _dialectic(ws, subject, said, data)

    def workspace_chat(ws_id: str, query: dict[str, str], body: Any) -> Any:
        ws, data = state.workspace(ws_id), _body(body)
        said = [m.content for s in ws.sessions.values() for m in s.messages]
        return _dialectic(ws, "the workspace", said, data)

    def session_get_or_create(ws_id: str, query: dict[str, str], body: Any) -> Any:
        ws, data = state.workspace(ws_id), _body(body)
        session_id = _check_id("session", data.get("id"))
        session = ws.sessions.get(session_id)
        if session is None:
            session = ws.sessions[session_id] = SessionRecord(session_id)
        if data.get("metadata") is not None:
            session.metadata = dict(data["metadata"])
        if data.get("configuration") is not None:
            session.configuration = dict(data["configuration"])
        for peer_id, config in (data.get("peers") or {}).items():
            state.peer(ws, peer_id, create=True)
            session.peers[peer_id] = {**session.peers.get(peer_id, {}), **(config or {})}
        return _session_json(ws, session)

    def session_list(ws_id: str, query: dict[str, str], body: Any) -> Any:
        ws = state.workspace(ws_id)
        items = [_session_json(ws, s) for s in ws.sessions.values()]
        return _page([s for s in items if _matches(s, _body(body).get("filters"))], query)

    def session_update(ws_id: str, session_id: str, query: dict[str, str], body: Any) -> Any:
        ws, data = state.workspace(ws_id), _body(body)
        session = state.session(ws, session_id)
        if data.get("metadata") is not None:
            session.metadata = dict(data["metadata"])
        if data.get("configuration") is not None:
            session.configuration = dict(data["configuration"])
        return _session_json(ws, session)

    def session_delete(ws_id: str, session_id: str, query: dict[str, str], body: Any) -> Any:
        ws = state.workspace(ws_id)
        state.session(ws, session_id)
        del ws.sessions[session_id]
        return None

    def session_peers_add(ws_id: str, session_id: str, query: dict[str, str], body: Any) -> Any:
        ws = state.workspace(ws_id)
        session = state.session(ws, session_id)
        for peer_id, config in _body(body).items():
            state.peer(ws, peer_id, create=True)
            session.peers[peer_id] = {**session.peers.get(peer_id, {}), **(config or {})}
        return _session_json(ws, session)

    def session_peers_set(ws_id: str, session_id: str, query: dict[str, str], body: Any) -> Any:
        ws = state.workspace(ws_id)
        session = state.session(ws, session_id)
        session.peers = {}
        return session_peers_add(ws_id, session_id, query=query, body=body)

    def session_peers_remove(ws_id: str, session_id: str, query: dict[str, str], body: Any) -> Any:
        ws = state.workspace(ws_id)
        session = state.session(ws, session_id)
        if not isinstance(body, list):
            raise HttpError(422, "Body must be a list of peer ids")
        for peer_id in body:
            session.peers.pop(peer_id, None)
        return _session_json(ws, session)

    def session_peers_get(ws_id: str, session_id: str, query: dict[str, str], body: Any) -> Any:
        ws = state.workspace(ws_id)
        session = state.session(ws, session_id)
        return _page([_peer_json(ws, ws.peers[p]) for p in session.peers], query)

    def session_peer_config_get(ws_id: str, session_id: str, peer_id: str, **_: Any) -> Any:
        ws = state.workspace(ws_id)
        session = state.session(ws, session_id)
        if peer_id not in session.peers:
            raise HttpError(404, f"Peer {peer_id} is not in session {session_id}")
        config = session.peers[peer_id]
        return {"observe_me": config.get("observe_me"), "observe_others": config.get("observe_others")}

    def session_peer_config_set(
        ws_id: str, session_id: str, peer_id: str, query: dict[str, str], body: Any
    ) -> Any:
        ws = state.workspace(ws_id)
        session = state.session(ws, session_id)
        if peer_id not in session.peers:
            raise HttpError(404, f"Peer {peer_id} is not in session {session_id}")
        session.peers[peer_id].update(_body(body))
        return None

    def messages_create(ws_id: str, session_id: str, query: dict[str, str], body: Any) -> Any:
        ws = state.workspace(ws_id)
        session = state.session(ws, session_id)
        batch = _body(body).get("messages")
        if not isinstance(batch, list) or not 1 <= len(batch) <= MAX_BATCH:
            raise HttpError(422, f"messages must be a list of 1 to {MAX_BATCH} messages")
        created = []
        for item in batch:
            if not isinstance(item, dict) or not isinstance(item.get("content"), str):
                raise HttpError(422, "each message needs a string content and a peer_id")
            if len(item["content"]) > MAX_CONTENT_CHARS:
                raise HttpError(422, f"message content is longer than {MAX_CONTENT_CHARS} characters")
            peer_id = _check_id("peer", item.get("peer_id"))
            state.peer(ws, peer_id, create=True)
            session.peers.setdefault(peer_id, {})
            created.append(
                MessageRecord(
                    id=state.next_message_id(),
                    content=item["content"],
                    peer_id=peer_id,
                    session_id=session.id,
                    workspace_id=ws.id,
                    metadata=dict(item.get("metadata") or {}),
                    created_at=item.get("created_at") or _now(),
                    token_count=max(1, round(len(words(item["content"])) * 4 / 3)),
                )
            )
        session.messages.extend(created)
        return [_message_json(m) for m in created]

    def messages_list(ws_id: str, session_id: str, query: dict[str, str], body: Any) -> Any:
        ws = state.workspace(ws_id)
        session = state.session(ws, session_id)
        items = [_message_json(m) for m in session.messages]
        return _page([m for m in items if _matches(m, _body(body).get("filters"))], query)

    def message_get(ws_id: str, session_id: str, message_id: str, **_: Any) -> Any:
        ws = state.workspace(ws_id)
        for message in state.session(ws, session_id).messages:
            if message.id == message_id:
                return _message_json(message)
        raise HttpError(404, f"Message {message_id} not found")

    def session_context(ws_id: str, session_id: str, query: dict[str, str], body: Any) -> Any:
        ws = state.workspace(ws_id)
        session = state.session(ws, session_id)
        budget = _int(query, "tokens", 100_000)
        kept: list[MessageRecord] = []
        used = 0
        for message in reversed(session.messages):
            if used + message.token_count > budget:
                break
            kept.append(message)
            used += message.token_count
        result: dict[str, Any] = {
            "id": session.id,
            "messages": [_message_json(m) for m in reversed(kept)],
            "summary": None,
            "peer_representation": None,
            "peer_card": None,
        }
        target = query.get("peer_target")
        if target:
            perspective = query.get("peer_perspective")
            subject, said = _subject(ws, perspective or target, target if perspective else None)
            if query.get("limit_to_session") == "true":
                said = [m.content for m in session.messages if m.peer_id == subject]
            limit = _int(query, "max_conclusions", 25)
            result["peer_representation"] = deriver.representation(
                subject, said, limit, query.get("search_query")
            )
            result["peer_card"] = deriver.peer_card(subject, said) or None
        return result

    def session_summaries(ws_id: str, session_id: str, **_: Any) -> Any:
        ws = state.workspace(ws_id)
        state.session(ws, session_id)
        return {"id": session_id, "short_summary": None, "long_summary": None}

    def _search(messages: list[MessageRecord], body: Any) -> Any:
        data = _body(body)
        wanted = set(words(str(data.get("query") or "")))
        limit = int(data.get("limit") or 10)
        hits = [
            m
            for m in messages
            if wanted & set(words(m.content)) and _matches(m.__dict__, data.get("filters"))
        ]
        return [_message_json(m) for m in hits[:limit]]

    def workspace_search(ws_id: str, query: dict[str, str], body: Any) -> Any:
        ws = state.workspace(ws_id)
        return _search([m for s in ws.sessions.values() for m in s.messages], body)

    def session_search(ws_id: str, session_id: str, query: dict[str, str], body: Any) -> Any:
        ws = state.workspace(ws_id)
        return _search(state.session(ws, session_id).messages, body)

    def peer_search(ws_id: str, peer_id: str, query: dict[str, str], body: Any) -> Any:
        ws = state.workspace(ws_id)
        return _search([m for s in ws.sessions.values() for m in s.messages if m.peer_id == peer_id], body)

    def queue_status(ws_id: str, query: dict[str, str], body: Any) -> Any:
        ws = state.workspace(ws_id)
        done = sum(len(s.messages) for s in ws.sessions.values())
        # The stand-in derives on read, so every unit of work is already complete.
        return {
            "total_work_units": done,
            "completed_work_units": done,
            "in_progress_work_units": 0,
            "pending_work_units": 0,
            "sessions": None,
        }

    peer_root = rf"{ws_root}/peers/{seg}"
    session_root = rf"{ws_root}/sessions/{seg}"
    table: list[tuple[str, str, Callable[..., Any]]] = [
        ("POST", r"/v3/workspaces", workspace_get_or_create),
        ("POST", r"/v3/workspaces/list", workspace_list),
        ("PUT", ws_root, workspace_update),
        ("DELETE", ws_root, workspace_delete),
        ("POST", rf"{ws_root}/chat", workspace_chat),
        ("POST", rf"{ws_root}/search", workspace_search),
        ("GET", rf"{ws_root}/queue/status", queue_status),
        ("POST", rf"{ws_root}/peers", peer_get_or_create),
        ("POST", rf"{ws_root}/peers/list", peer_list),
        ("PUT", peer_root, peer_update),
        ("POST", rf"{peer_root}/chat", peer_chat),
        ("POST", rf"{peer_root}/representation", peer_representation),
        ("GET", rf"{peer_root}/context", peer_context),
        ("GET", rf"{peer_root}/card", peer_card_get),
        ("PUT", rf"{peer_root}/card", peer_card_set),
        ("POST", rf"{peer_root}/search", peer_search),
        ("POST", rf"{peer_root}/sessions", peer_sessions),
        ("POST", rf"{ws_root}/sessions", session_get_or_create),
        ("POST", rf"{ws_root}/sessions/list", session_list),
        ("PUT", session_root, session_update),
        ("DELETE", session_root, session_delete),
        ("POST", rf"{session_root}/peers", session_peers_add),
        ("PUT", rf"{session_root}/peers", session_peers_set),
        ("DELETE", rf"{session_root}/peers", session_peers_remove),
        ("GET", rf"{session_root}/peers", session_peers_get),
        ("GET", rf"{session_root}/peers/{seg}/config", session_peer_config_get),
        ("PUT", rf"{session_root}/peers/{seg}/config", session_peer_config_set),
        ("POST", rf"{session_root}/messages", messages_create),
        ("POST", rf"{session_root}/messages/list", messages_list),
        ("GET", rf"{session_root}/messages/{seg}", message_get),
        ("GET", rf"{session_root}/context", session_context),
        ("GET", rf"{session_root}/summaries", session_summaries),
        ("POST", rf"{session_root}/search", session_search),
    ]
    return [(method, re.compile(pattern), handler) for method, pattern, handler in table]
