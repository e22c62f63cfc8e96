"""A local Honcho on 127.0.0.1 that speaks the part of the v3 HTTP API the `honcho-ai` SDK uses.

Written from the requests SDK 2.7.0 actually sends (its `http/routes.py` and the bodies built in
`client.py`, `peer.py`, `session.py`): workspaces, peers, sessions, session peers and their config,
messages, peer context / representation / card, the dialectic `chat`, session context, search and
queue status. State and routes live in `honcho_state`, representations in `honcho_deriver`.
Each request is recorded, and faults can be injected (stall, hold until released, HTTP errors,
dropped connections).

Run it alone for a demo: `python -m tests.support.honcho_server --port 8000`.
Imports nothing from the UI and nothing from the SDK, so it also checks the SDK from outside.
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from tests.support.honcho_state import (
    HonchoState,
    HttpError,
    MessageRecord,
    WorkspaceRecord,
    build_routes,
)

MAX_BODY_BYTES = 8 * 1024 * 1024


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
        self.state = HonchoState()
        self.requests: list[RecordedRequest] = []
        self.faults: list[Fault] = []
        self._lock = threading.RLock()
        self._stopping = threading.Event()
        self._httpd = _Server((host, port), _Handler)
        self._httpd.app = self
        self._thread: threading.Thread | None = None
        self._routes = build_routes(self.state)

    @property
    def workspaces(self) -> dict[str, WorkspaceRecord]:
        return self.state.workspaces

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
