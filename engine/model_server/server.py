"""The scripted OpenAI-compatible HTTP server on 127.0.0.1: `/v1/models` and `/v1/chat/completions`.

It streams what a scenario says (text, reasoning, tool-call fragments, usage, faults) and records
every request it received, in memory and optionally as JSON lines, so tests can read the exact
system prompt of every call.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from engine.model_server.parsing import load_scenario, parse_scenario
from engine.model_server.player import Delta, Plan, Player, error_body, message_text
from engine.model_server.scenario import Scenario

MAX_BODY_BYTES = 64 * 1024 * 1024
HOST = "127.0.0.1"
CLIENT_GONE = (BrokenPipeError, ConnectionResetError, ConnectionAbortedError)


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the server received it (the Authorization value is never kept)."""

    call: int  # 1-based count of chat requests; 0 for other paths
    method: str
    path: str
    body: dict[str, Any]
    raw: bytes
    rule: str
    received_at: float
    authorized: bool
    headers: dict[str, str] = field(default_factory=dict)
    key_digest: str = ""  # the first 12 hex digits of the SHA-256 of the bearer key: which key, not the key

    @property
    def messages(self) -> list[dict[str, Any]]:
        messages = self.body.get("messages")
        return messages if isinstance(messages, list) else []

    @property
    def system_prompt(self) -> str | None:
        """The text of the leading system message, exactly as sent; None when there is none."""
        first = self.messages[0] if self.messages else None
        if isinstance(first, dict) and first.get("role") in ("system", "developer"):
            return message_text(first)
        return None

    @property
    def tool_names(self) -> list[str]:
        tools = self.body.get("tools") or []
        return [t["function"]["name"] for t in tools if isinstance(t, dict) and "function" in t]

    def as_json(self) -> dict[str, Any]:
        return {
            "call": self.call,
            "method": self.method,
            "path": self.path,
            "rule": self.rule,
            "received_at": self.received_at,
            "authorized": self.authorized,
            "key_digest": self.key_digest,
            "headers": self.headers,
            "body": self.body,
        }


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128  # the default 5 resets connections under 50 concurrent requests

    owner: ScriptedModelServer


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # without it every streamed request waits ~44 ms on delayed ACKs
    server: _HTTPServer
    server_version = "hws-scripted-model/1"
    chunk_per_event = False

    def log_message(self, format: str, *args: Any) -> None:
        if self.server.owner.verbose:
            super().log_message(format, *args)

    def handle(self) -> None:
        with contextlib.suppress(*CLIENT_GONE):
            super().handle()

    # --- routing ---------------------------------------------------------------------------

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0].rstrip("/")
        owner = self.server.owner
        owner.record(self, 0, {}, b"", "GET")
        if path in ("/v1/models", "/models"):
            self.send_json(200, owner.models_body())
        elif path.startswith(("/v1/models/", "/models/")):
            wanted = path.rsplit("/", 1)[1]
            for model in owner.models_body()["data"]:
                if model["id"] == wanted:
                    self.send_json(200, model)
                    return
            self.send_json(
                404, error_body(f"The model {wanted!r} does not exist.", "invalid_request_error", None)
            )
        elif path in ("", "/health", "/v1/health"):
            self.send_json(200, {"status": "ok", "scenario": owner.scenario.name})
        else:
            self.send_json(404, error_body(f"No route for GET {path}.", "invalid_request_error", None))

    def do_POST(self) -> None:
        path = self.path.split("?", 1)[0].rstrip("/")
        raw = self.read_body()
        if raw is None:
            return
        if path not in ("/v1/chat/completions", "/chat/completions"):
            self.server.owner.record(self, 0, {}, raw, "POST")
            self.send_json(404, error_body(f"No route for POST {path}.", "invalid_request_error", None))
            return
        try:
            body = json.loads(raw)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            self.server.owner.record(self, 0, {}, raw, "POST")
            self.send_json(
                400, error_body(f"The request body is not JSON ({exc}).", "invalid_request_error", None)
            )
            return
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            self.server.owner.record(self, 0, body if isinstance(body, dict) else {}, raw, "POST")
            self.send_json(
                400, error_body("The request needs a `messages` list.", "invalid_request_error", None)
            )
            return
        view, plan = self.server.owner.player.plan(body)
        self.server.owner.record(self, plan.call, body, raw, "POST", plan.rule_name)
        self.answer(plan, view.stream, view.include_usage)

    def read_body(self) -> bytes | None:
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        if length < 0 or length > MAX_BODY_BYTES:
            self.send_json(
                413,
                error_body(
                    "The request body is missing a length or too large.", "invalid_request_error", None
                ),
            )
            self.close_connection = True
            return None
        return self.rfile.read(length)

    # --- answering -------------------------------------------------------------------------

    def send_json(self, status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        data = json.dumps(body, ensure_ascii=False).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def answer(self, plan: Plan, stream: bool, include_usage: bool) -> None:
        owner = self.server.owner
        fault = plan.fault
        if plan.delay and owner.stopping.wait(plan.delay):
            return
        if fault is not None and fault.kind == "drop":
            self.cut()
            return
        if plan.error is not None:
            status, body, headers = plan.error
            self.send_json(status, body, headers)
            return
        if not stream:
            if fault is not None and fault.kind == "stall":
                owner.stopping.wait(fault.seconds)
            if fault is not None and fault.kind == "cut":
                self.cut()
                return
            self.send_json(200, completion_body(plan))
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        delay = float(plan.style.get("chunk_delay", 0.0))
        self.chunk_per_event = bool(plan.style.get("http_chunk_per_event", False))
        trigger = -1
        if fault is not None and fault.kind in ("cut", "stall", "stream_error"):
            trigger = min(fault.after_chunks, len(plan.deltas))
        # Events are written together unless a pause comes between them: one send instead of
        # dozens keeps an in-process server from fighting the client for the GIL on every delta.
        pending: list[bytes] = []
        sent = 0
        for event in stream_events(plan, include_usage):
            if fault is not None and sent == trigger:
                trigger = -1
                self.flush_chunks(pending)
                if fault.kind == "cut":
                    self.cut()
                    return
                if fault.kind == "stream_error":
                    message = fault.message or "The upstream provider failed in the middle of the reply."
                    body = error_body(message, "server_error", "upstream_error")
                    pending.append(b"data: " + json.dumps(body).encode("utf-8") + b"\n\n")
                    break
                if owner.stopping.wait(fault.seconds):
                    return
            if event.counts:
                if sent and delay:
                    self.flush_chunks(pending)
                    if owner.stopping.wait(delay):
                        return
                sent += 1
            pending.append(event.data)
        pending.append(b"data: [DONE]\n\n")
        self.flush_chunks(pending, last=True)

    def flush_chunks(self, pending: list[bytes], last: bool = False) -> None:
        """Write the pending events in one send: one HTTP chunk for all, or one each if the style says so."""
        if not pending:
            parts: list[bytes] = []
        elif self.chunk_per_event:
            parts = pending[:]
        else:
            parts = [b"".join(pending)]
        pending.clear()
        data = b"".join(b"%x\r\n%s\r\n" % (len(part), part) for part in parts)
        if last:
            data += b"0\r\n\r\n"
        if data:
            self.wfile.write(data)

    def cut(self) -> None:
        """Close the connection abruptly: the client sees a stream that ends mid-reply."""
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)


@dataclass
class _Event:
    data: bytes
    counts: bool  # a content delta (counted for `after_chunks`), not the finish or usage event


def stream_events(plan: Plan, include_usage: bool) -> Iterator[_Event]:
    """The SSE `data:` events of a streamed reply, one chunk object each."""
    created = int(time.time())
    base = {"id": f"chatcmpl-scripted-{plan.call}", "object": "chat.completion.chunk", "created": created}
    base["model"] = plan.model

    def event(choices: list[dict[str, Any]], usage: dict[str, Any] | None = None) -> bytes:
        chunk = dict(base, choices=choices)
        if usage is not None:
            chunk["usage"] = usage
        return b"data: " + json.dumps(chunk, ensure_ascii=False).encode("utf-8") + b"\n\n"

    reasoning_field = plan.style.get("reasoning_field", "reasoning_content")
    first = True
    for delta in plan.deltas:
        body = delta_body(delta, reasoning_field)
        if first:
            body = {"role": "assistant", **body}
            first = False
        yield _Event(event([{"index": 0, "delta": body, "finish_reason": None}]), True)
    final: dict[str, Any] = {} if not first else {"role": "assistant", "content": ""}
    yield _Event(event([{"index": 0, "delta": final, "finish_reason": plan.finish_reason}]), False)
    if include_usage:
        yield _Event(event([], plan.usage), False)


def delta_body(delta: Delta, reasoning_field: str) -> dict[str, Any]:
    if delta.tool_index >= 0:
        call: dict[str, Any] = {"index": delta.tool_index}
        function: dict[str, Any] = {"arguments": delta.tool_arguments}
        if delta.tool_id:
            call["id"] = delta.tool_id
            call["type"] = "function"
        if delta.tool_name:
            function["name"] = delta.tool_name
        call["function"] = function
        return {"tool_calls": [call]}
    if delta.reasoning:
        return {reasoning_field: delta.reasoning}
    return {"content": delta.text}


def completion_body(plan: Plan) -> dict[str, Any]:
    """The whole reply as one `chat.completion` object (a request without `stream`)."""
    message: dict[str, Any] = {
        "role": "assistant",
        "content": plan.text if plan.text or not plan.tool_calls else None,
    }
    if plan.reasoning:
        message[plan.style.get("reasoning_field", "reasoning_content")] = plan.reasoning
    if plan.tool_calls:
        message["tool_calls"] = plan.tool_calls
    return {
        "id": f"chatcmpl-scripted-{plan.call}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": plan.model,
        "choices": [{"index": 0, "message": message, "finish_reason": plan.finish_reason}],
        "usage": plan.usage,
    }


class ScriptedModelServer:
    """A real HTTP server on 127.0.0.1 playing a scenario; use it as a context manager.

    with ScriptedModelServer("default") as server:
        client = AsyncOpenAI(base_url=server.base_url, api_key="none")
        ...
        server.requests[-1].system_prompt
    """

    def __init__(
        self,
        scenario: Scenario | str | Path,
        *,
        port: int = 0,
        log_path: str | Path | None = None,
        verbose: bool = False,
    ) -> None:
        self.scenario = scenario if isinstance(scenario, Scenario) else load_scenario(scenario)
        self.player = Player(self.scenario)
        self.verbose = verbose
        self.stopping = threading.Event()
        self._port = port
        self._log_path = Path(log_path) if log_path else None
        self._log_lock = threading.Lock()
        self._requests: list[RecordedRequest] = []
        self._arrived = threading.Condition(self._log_lock)
        self._http: _HTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._bound_port: int | None = None

    @classmethod
    def from_yaml(cls, text: str, **kwargs: Any) -> ScriptedModelServer:
        """A server playing scenario YAML given as text (handy in tests)."""
        return cls(parse_scenario(text, source="<inline scenario>"), **kwargs)

    # --- life cycle -------------------------------------------------------------------------

    def start(self) -> ScriptedModelServer:
        if self._http is not None:
            return self
        self.stopping.clear()
        http = _HTTPServer((HOST, self._port), _Handler)
        http.owner = self
        self._http = http
        self._bound_port = int(http.server_address[1])
        self._thread = threading.Thread(
            target=http.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="scripted-model-server",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving; stalled replies are released at once."""
        if self._http is None:
            return
        self.stopping.set()
        self._http.shutdown()
        self._http.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._http = None
        self._thread = None

    def __enter__(self) -> ScriptedModelServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def serve_forever(self) -> None:
        """Serve in the calling thread until interrupted (the CLI's way)."""
        self.start()
        try:
            while self._thread is not None and self._thread.is_alive():
                self._thread.join(timeout=0.5)
        finally:
            self.stop()

    @property
    def port(self) -> int:
        """The port it listens on (still readable after `stop()`, for reports)."""
        if self._bound_port is None:
            raise RuntimeError("the scripted model server has not been started; call start() first")
        return self._bound_port

    @property
    def base_url(self) -> str:
        """The OpenAI-compatible base URL, e.g. http://127.0.0.1:40123/v1."""
        return f"http://{HOST}:{self.port}/v1"

    # --- what was asked ---------------------------------------------------------------------

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request received so far, oldest first."""
        with self._log_lock:
            return list(self._requests)

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        """The chat-completion requests only, in the order they arrived."""
        return [r for r in self.requests if r.call > 0]

    def wait_for_requests(self, count: int, timeout: float = 5.0) -> list[RecordedRequest]:
        """Block until at least `count` chat requests arrived (or the timeout passes)."""
        deadline = time.monotonic() + timeout
        with self._arrived:
            while sum(1 for r in self._requests if r.call > 0) < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._arrived.wait(left)
            return [r for r in self._requests if r.call > 0]

    def reset(self) -> None:
        """Forget the requests, rule uses and call count, as if freshly started."""
        with self._log_lock:
            self._requests.clear()
        self.player.reset()

    def models_body(self) -> dict[str, Any]:
        data: list[dict[str, Any]] = []
        for name in self.scenario.models:
            entry: dict[str, Any] = {"id": name, "object": "model", "created": 0, "owned_by": "hws-scripted"}
            if self.scenario.context_length:
                entry["context_length"] = self.scenario.context_length
            data.append(entry)
        return {"object": "list", "data": data}

    def record(
        self, handler: _Handler, call: int, body: dict[str, Any], raw: bytes, method: str, rule: str = ""
    ) -> None:
        headers = {k.lower(): v for k, v in handler.headers.items() if k.lower() != "authorization"}
        entry = RecordedRequest(
            call=call,
            method=method,
            path=handler.path,
            body=body,
            raw=raw,
            rule=rule,
            received_at=time.time(),
            authorized=bool(handler.headers.get("Authorization")),
            headers=headers,
            key_digest=key_digest(handler.headers.get("Authorization") or ""),
        )
        with self._arrived:
            self._requests.append(entry)
            if self._log_path is not None:
                with self._log_path.open("a", encoding="utf-8") as log:
                    log.write(json.dumps(entry.as_json(), ensure_ascii=False) + "\n")
            self._arrived.notify_all()


def key_digest(authorization: str) -> str:
    """Which bearer key a request carried, as a short SHA-256 digest ("" without one)."""
    key = authorization.removeprefix("Bearer ").strip()
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:12] if key else ""
