"""A real HTTP server on 127.0.0.1 that records every request (path and body) it receives: where a
test looks for what an attack tried to send."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator

ANSWER = b"listener-says-hello"


class Listener:
    def __init__(self) -> None:
        self.received: list[tuple[str, bytes]] = []
        received = self.received

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self._record()

            def do_POST(self) -> None:
                self._record()

            def _record(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                received.append((self.path, self.rfile.read(length)))
                self.send_response(200)
                self.end_headers()
                self.wfile.write(ANSWER)

            def log_message(self, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def serving() -> Iterator[Listener]:
    """The body of a `listener` fixture: a server for the test, closed after it."""
    server = Listener()
    yield server
    server.close()
