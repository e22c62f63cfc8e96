"""A local Honcho on 127.0.0.1 that speaks the part of the v3 HTTP API the `honcho-ai` SDK uses.

Written from the requests SDK 2.7.0 actually sends (its `http/routes.py` and the bodies built in
`client.py`, `peer.py`, `session.py`): workspaces, peers, sessions, session peers and their config,
messages, peer context / representation / card, the dialectic `chat`, session context, search and
queue status. State lives in memory; representations come from `honcho_deriver`. Every request is
recorded, and faults can be injected (stall, hold until released, HTTP errors, dropped connections).

Run it alone for a demo: `python -m engine.providers.honcho_testserver --port 8000`.
Imports nothing from the UI and nothing from the SDK, so it also checks the SDK from outside.
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from engine.providers import honcho_deriver as deriver
from engine.providers.claims import words

RESOURCE_NAME = re.compile(r"^[A-Za-z0-9_-]{1,512}$")
MAX_CONTENT_CHARS = 25_000
MAX_BATCH = 100
MAX_BODY_BYTES = 8 * 1024 * 1024


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


@dataclass
class RecordedRequest:
    """One request as the server saw it, with the status it answered."""

    method: str
    path: str
    query: dict[str, str]
    body: Any
    headers: dict[str, str]
    status: int = 0
    received_at: float = field(default_factory=time.time)

    @property
    def line(self) -> str:
        return f"{self.method} {self.path}"


@dataclass
class Fault:
    """An injected misbehaviour for requests whose `METHOD /path` contains `match` (all when None)."""

    kind: str  # stall | hold | error | drop
    match: str | None = None
    times: int | None = None  # how many requests it hits; None = until cleared
    seconds: float = 0.0
    status: int = 500
    released: threading.Event = field(default_factory=threading.Event)
    held: int = 0
    _arrived: threading.Condition = field(default_factory=threading.Condition)

    def applies(self, line: str) -> bool:
        return (self.times is None or self.times > 0) and (self.match is None or self.match in line)

    def release(self) -> None:
        """Let every held request (and any later one) through."""
        self.released.set()

    def wait_held(self, count: int = 1, timeout: float = 5.0) -> bool:
        """Block until `count` requests are being held; the test's way to know the server has them."""
        with self._arrived:
            return self._arrived.wait_for(lambda: self.held >= count, timeout)

    def _note_held(self) -> None:
        with self._arrived:
            self.held += 1
            self._arrived.notify_all()


# -- the server -----------------------------------------------------------------------------------


class HonchoTestServer:
    """A stateful, recording, fault-injecting Honcho stand-in; use as a context manager."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0, api_key: str | None = None) -> None:
        self.api_key = api_key
        self.workspaces: dict[str, WorkspaceRecord] = {}
        self.requests: list[RecordedRequest] = []
        self.faults: list[Fault] = []
        self._lock = threading.RLock()
        self._stopping = threading.Event()
        self._seq = 0
        self._httpd = _Server((host, port), _Handler)
        self._httpd.app = self
        self._thread: threading.Thread | None = None
        self._routes = _build_routes(self)

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> HonchoTestServer:
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="honcho-testserver",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        for fault in list(self.faults):
            fault.release()
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> HonchoTestServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- faults --------------------------------------------------------------------------------

    def _add(self, fault: Fault) -> Fault:
        with self._lock:
            self.faults.append(fault)
        return fault

    def stall(self, seconds: float, match: str | None = None, times: int | None = None) -> Fault:
        """Answer matching requests only after `seconds` (a slow or hung server)."""
        return self._add(Fault("stall", match, times, seconds=seconds))

    def hold(self, match: str | None = None, times: int | None = None) -> Fault:
        """Keep matching requests waiting until `fault.release()` (or the server stops)."""
        return self._add(Fault("hold", match, times))

    def fail(self, status: int = 500, match: str | None = None, times: int | None = None) -> Fault:
        """Answer matching requests with an HTTP error."""
        return self._add(Fault("error", match, times, status=status))

    def drop(self, match: str | None = None, times: int | None = None) -> Fault:
        """Close the connection of matching requests without answering."""
        return self._add(Fault("drop", match, times))

    def clear_faults(self) -> None:
        with self._lock:
            faults, self.faults = self.faults, []
        for fault in faults:
            fault.release()

    def _fault_for(self, line: str) -> Fault | None:
        with self._lock:
            for fault in self.faults:
                if fault.applies(line):
                    if fault.times is not None:
                        fault.times -= 1
                    return fault
        return None

    # -- inspection helpers for tests ----------------------------------------------------------

    def recorded(self, match: str = "") -> list[RecordedRequest]:
        """Requests whose `METHOD /path` contains `match`, oldest first."""
        with self._lock:
            return [r for r in self.requests if match in r.line]

    def messages(self, workspace: str, session: str | None = None) -> list[MessageRecord]:
        """Stored messages of a workspace (or one session of it), in order."""
        with self._lock:
            ws = self.workspaces.get(workspace)
            if ws is None:
                return []
            sessions = [ws.sessions[session]] if session in ws.sessions else []
            if session is None:
                sessions = list(ws.sessions.values())
            return [m for s in sessions for m in s.messages]

    # -- dispatch ------------------------------------------------------------------------------

    def handle(self, method: str, raw_path: str, headers: dict[str, str], body: Any) -> tuple[int, Any]:
        parts = urlsplit(raw_path)
        path = parts.path
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        if self.api_key is not None and headers.get("authorization") != f"Bearer {self.api_key}":
            raise HttpError(401, "Invalid or missing API key")
        for route_method, pattern, handler in self._routes:
            if route_method != method:
                continue
            match = pattern.fullmatch(path)
            if match:
                args = [unquote(group) for group in match.groups()]
                with self._lock:
                    return 200, handler(*args, query=query, body=body)
        raise HttpError(404, f"No route for {method} {path}")

    # -- state helpers (called with the lock held) ----------------------------------------------

    def _workspace(self, workspace_id: str) -> WorkspaceRecord:
        ws = self.workspaces.get(workspace_id)
        if ws is None:
            raise HttpError(404, f"Workspace {workspace_id} not found")
        return ws

    def _session(self, ws: WorkspaceRecord, session_id: str) -> SessionRecord:
        session = ws.sessions.get(session_id)
        if session is None:
            raise HttpError(404, f"Session {session_id} not found")
        return session

    def _peer(self, ws: WorkspaceRecord, peer_id: str, create: bool = False) -> PeerRecord:
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


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128
    allow_reuse_address = True
    app: HonchoTestServer


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        return

    def _serve(self) -> None:
        app = self.server.app
        headers = {k.lower(): v for k, v in self.headers.items()}
        length = int(headers.get("content-length") or 0)
        body: Any = None
        record = RecordedRequest(self.command, urlsplit(self.path).path, {}, None, {})
        try:
            if length > MAX_BODY_BYTES:
                raise HttpError(413, "Request body too large")
            raw = self.rfile.read(length) if length else b""
            if raw:
                try:
                    body = json.loads(raw)
                except (UnicodeDecodeError, json.JSONDecodeError) as exc:
                    raise HttpError(422, f"Body is not JSON: {exc}") from exc
            record.query = {k: v[-1] for k, v in parse_qs(urlsplit(self.path).query).items()}
            record.body = body
            record.headers = {
                k: ("Bearer ***" if k == "authorization" else v)
                for k, v in headers.items()
                if k in ("authorization", "x-honcho-host", "content-type", "accept")
            }
            with app._lock:
                app.requests.append(record)
            fault = app._fault_for(record.line)
            if fault is not None:
                if fault.kind == "drop":
                    record.status = -1
                    self.close_connection = True
                    self.connection.close()
                    return
                if fault.kind == "stall":
                    app._stopping.wait(fault.seconds)
                elif fault.kind == "hold":
                    fault._note_held()
                    fault.released.wait()
                elif fault.kind == "error":
                    raise HttpError(fault.status, "Injected failure from the Honcho test server")
            status, payload = app.handle(self.command, self.path, headers, body)
        except HttpError as exc:
            status, payload = exc.status, {"detail": exc.detail}
        except Exception as exc:  # a bug in the stand-in must still answer, as a 500
            status, payload = 500, {"detail": f"{type(exc).__name__}: {exc}"}
        record.status = status
        data = b"" if payload is None else json.dumps(payload).encode("utf-8")
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _serve


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


def _build_routes(app: HonchoTestServer) -> list[tuple[str, re.Pattern[str], Callable[..., Any]]]:
    seg = r"([^/]+)"
    ws_root = rf"/v3/workspaces/{seg}"

    def workspace_get_or_create(query: dict[str, str], body: Any) -> Any:
        data = _body(body)
        ws_id = _check_id("workspace", data.get("id"))
        ws = app.workspaces.get(ws_id)
        if ws is None:
            ws = app.workspaces[ws_id] = WorkspaceRecord(ws_id, metadata=dict(data.get("metadata") or {}))
            ws.configuration = dict(data.get("configuration") or {})
        return _workspace_json(ws)

    def workspace_list(query: dict[str, str], body: Any) -> Any:
        filters = _body(body).get("filters")
        items = [_workspace_json(w) for w in app.workspaces.values() if _matches(_workspace_json(w), filters)]
        return _page(items, query)

    def workspace_update(ws_id: str, query: dict[str, str], body: Any) -> Any:
        ws, data = app._workspace(ws_id), _body(body)
        if data.get("metadata") is not None:
            ws.metadata = dict(data["metadata"])
        if data.get("configuration") is not None:
            ws.configuration = dict(data["configuration"])
        return _workspace_json(ws)

    def workspace_delete(ws_id: str, query: dict[str, str], body: Any) -> Any:
        app._workspace(ws_id)
        del app.workspaces[ws_id]
        return None

    def peer_get_or_create(ws_id: str, query: dict[str, str], body: Any) -> Any:
        ws, data = app._workspace(ws_id), _body(body)
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
        ws = app._workspace(ws_id)
        filters = _body(body).get("filters")
        items = [_peer_json(ws, p) for p in ws.peers.values()]
        return _page([p for p in items if _matches(p, filters)], query)

    def peer_update(ws_id: str, peer_id: str, query: dict[str, str], body: Any) -> Any:
        ws, data = app._workspace(ws_id), _body(body)
        peer = app._peer(ws, peer_id)
        if data.get("metadata") is not None:
            peer.metadata = dict(data["metadata"])
        if data.get("configuration") is not None:
            peer.configuration = dict(data["configuration"])
        return _peer_json(ws, peer)

    def peer_sessions(ws_id: str, peer_id: str, query: dict[str, str], body: Any) -> Any:
        ws = app._workspace(ws_id)
        app._peer(ws, peer_id)
        items = [_session_json(ws, s) for s in ws.sessions.values() if peer_id in s.peers]
        return _page([s for s in items if _matches(s, _body(body).get("filters"))], query)

    def _subject(ws: WorkspaceRecord, peer_id: str, target: str | None) -> tuple[str, list[str]]:
        app._peer(ws, peer_id)
        if target and target != peer_id:
            app._peer(ws, target)
            return target, app.said_by(ws, target, observer=peer_id)
        return peer_id, app.said_by(ws, peer_id)

    def peer_context(ws_id: str, peer_id: str, query: dict[str, str], body: Any) -> Any:
        ws = app._workspace(ws_id)
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
        ws, data = app._workspace(ws_id), _body(body)
        subject, said = _subject(ws, peer_id, data.get("target"))
        if data.get("session_id"):
            session = app._session(ws, data["session_id"])
            said = [m.content for m in session.messages if m.peer_id == subject]
        limit = int(data.get("max_conclusions") or 25)
        return {"representation": deriver.representation(subject, said, limit, data.get("search_query"))}

    def peer_card_get(ws_id: str, peer_id: str, query: dict[str, str], body: Any) -> Any:
        ws = app._workspace(ws_id)
        subject, said = _subject(ws, peer_id, query.get("target"))
        peer = ws.peers[subject]
        return {"peer_card": peer.card if peer.card is not None else deriver.peer_card(subject, said) or None}

    def peer_card_set(ws_id: str, peer_id: str, query: dict[str, str], body: Any) -> Any:
        ws, data = app._workspace(ws_id), _body(body)
        card = data.get("peer_card")
        if not isinstance(card, list) or not all(isinstance(line, str) for line in card):
            raise HttpError(422, "peer_card must be a list of strings")
        subject = query.get("target") or peer_id
        app._peer(ws, subject).card = list(card)
        return {"peer_card": card}

    def _dialectic(ws: WorkspaceRecord, subject: str, said: list[str], data: dict[str, Any]) -> Any:
        question = data.get("query")
        if not isinstance(question, str) or not question.strip() or len(question) > 10_000:
            raise HttpError(422, "query must be 1 to 10,000 characters")
        if data.get("stream"):
            raise HttpError(422, "The Honcho test server answers chat without streaming only")
        return {"content": deriver.dialectic_answer(subject, said, question)}

    def peer_chat(ws_id: str, peer_id: str, query: dict[str, str], body: Any) -> Any:
        ws, data = app._workspace(ws_id), _body(body)
        subject, said = _subject(ws, peer_id, data.get("target"))
        if data.get("session_id"):
            session = app._session(ws, data["session_id"])
            said = [m.content for m in session.messages if m.peer_id == subject]
        return _dialectic(ws, subject, said, data)

    def workspace_chat(ws_id: str, query: dict[str, str], body: Any) -> Any:
        ws, data = app._workspace(ws_id), _body(body)
        said = [m.content for s in ws.sessions.values() for m in s.messages]
        return _dialectic(ws, "the workspace", said, data)

    def session_get_or_create(ws_id: str, query: dict[str, str], body: Any) -> Any:
        ws, data = app._workspace(ws_id), _body(body)
        session_id = _check_id("session", data.get("id"))
        session = ws.sessions.get(session_id)
        if session is None:
            session = ws.sessions[session_id] = SessionRecord(session_id)
        if data.get("metadata") is not None:
            session.metadata = dict(data["metadata"])
        if data.get("configuration") is not None:
            session.configuration = dict(data["configuration"])
        for peer_id, config in (data.get("peers") or {}).items():
            app._peer(ws, peer_id, create=True)
            session.peers[peer_id] = {**session.peers.get(peer_id, {}), **(config or {})}
        return _session_json(ws, session)

    def session_list(ws_id: str, query: dict[str, str], body: Any) -> Any:
        ws = app._workspace(ws_id)
        items = [_session_json(ws, s) for s in ws.sessions.values()]
        return _page([s for s in items if _matches(s, _body(body).get("filters"))], query)

    def session_update(ws_id: str, session_id: str, query: dict[str, str], body: Any) -> Any:
        ws, data = app._workspace(ws_id), _body(body)
        session = app._session(ws, session_id)
        if data.get("metadata") is not None:
            session.metadata = dict(data["metadata"])
        if data.get("configuration") is not None:
            session.configuration = dict(data["configuration"])
        return _session_json(ws, session)

    def session_delete(ws_id: str, session_id: str, query: dict[str, str], body: Any) -> Any:
        ws = app._workspace(ws_id)
        app._session(ws, session_id)
        del ws.sessions[session_id]
        return None

    def session_peers_add(ws_id: str, session_id: str, query: dict[str, str], body: Any) -> Any:
        ws = app._workspace(ws_id)
        session = app._session(ws, session_id)
        for peer_id, config in _body(body).items():
            app._peer(ws, peer_id, create=True)
            session.peers[peer_id] = {**session.peers.get(peer_id, {}), **(config or {})}
        return _session_json(ws, session)

    def session_peers_set(ws_id: str, session_id: str, query: dict[str, str], body: Any) -> Any:
        ws = app._workspace(ws_id)
        session = app._session(ws, session_id)
        session.peers = {}
        return session_peers_add(ws_id, session_id, query=query, body=body)

    def session_peers_remove(ws_id: str, session_id: str, query: dict[str, str], body: Any) -> Any:
        ws = app._workspace(ws_id)
        session = app._session(ws, session_id)
        if not isinstance(body, list):
            raise HttpError(422, "Body must be a list of peer ids")
        for peer_id in body:
            session.peers.pop(peer_id, None)
        return _session_json(ws, session)

    def session_peers_get(ws_id: str, session_id: str, query: dict[str, str], body: Any) -> Any:
        ws = app._workspace(ws_id)
        session = app._session(ws, session_id)
        return _page([_peer_json(ws, ws.peers[p]) for p in session.peers], query)

    def session_peer_config_get(ws_id: str, session_id: str, peer_id: str, **_: Any) -> Any:
        ws = app._workspace(ws_id)
        session = app._session(ws, session_id)
        if peer_id not in session.peers:
            raise HttpError(404, f"Peer {peer_id} is not in session {session_id}")
        config = session.peers[peer_id]
        return {"observe_me": config.get("observe_me"), "observe_others": config.get("observe_others")}

    def session_peer_config_set(
        ws_id: str, session_id: str, peer_id: str, query: dict[str, str], body: Any
    ) -> Any:
        ws = app._workspace(ws_id)
        session = app._session(ws, session_id)
        if peer_id not in session.peers:
            raise HttpError(404, f"Peer {peer_id} is not in session {session_id}")
        session.peers[peer_id].update(_body(body))
        return None

    def messages_create(ws_id: str, session_id: str, query: dict[str, str], body: Any) -> Any:
        ws = app._workspace(ws_id)
        session = app._session(ws, session_id)
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
            app._peer(ws, peer_id, create=True)
            session.peers.setdefault(peer_id, {})
            created.append(
                MessageRecord(
                    id=app.next_message_id(),
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
        ws = app._workspace(ws_id)
        session = app._session(ws, session_id)
        items = [_message_json(m) for m in session.messages]
        return _page([m for m in items if _matches(m, _body(body).get("filters"))], query)

    def message_get(ws_id: str, session_id: str, message_id: str, **_: Any) -> Any:
        ws = app._workspace(ws_id)
        for message in app._session(ws, session_id).messages:
            if message.id == message_id:
                return _message_json(message)
        raise HttpError(404, f"Message {message_id} not found")

    def session_context(ws_id: str, session_id: str, query: dict[str, str], body: Any) -> Any:
        ws = app._workspace(ws_id)
        session = app._session(ws, session_id)
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
        ws = app._workspace(ws_id)
        app._session(ws, session_id)
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
        ws = app._workspace(ws_id)
        return _search([m for s in ws.sessions.values() for m in s.messages], body)

    def session_search(ws_id: str, session_id: str, query: dict[str, str], body: Any) -> Any:
        ws = app._workspace(ws_id)
        return _search(app._session(ws, session_id).messages, body)

    def peer_search(ws_id: str, peer_id: str, query: dict[str, str], body: Any) -> Any:
        ws = app._workspace(ws_id)
        return _search([m for s in ws.sessions.values() for m in s.messages if m.peer_id == peer_id], body)

    def queue_status(ws_id: str, query: dict[str, str], body: Any) -> Any:
        ws = app._workspace(ws_id)
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


def main(argv: list[str] | None = None) -> int:
    """Serve until interrupted, printing the URL to put in `honcho.base_url`."""
    parser = argparse.ArgumentParser(description="A local Honcho v3 stand-in for demos and tests.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--api-key", default=None, help="require this bearer token")
    args = parser.parse_args(argv)
    server = HonchoTestServer(args.host, args.port, api_key=args.api_key).start()
    print(f"Honcho test server on {server.url} (Ctrl-C stops it)", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
