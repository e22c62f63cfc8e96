"""`hws mcp serve --http`: the server on streamable HTTP, every request behind a bearer token.

The SDK's app already refuses a `Host` or `Origin` that is not loopback (DNS rebinding); in front of
it every HTTP request must carry `Authorization: Bearer <token>`, compared in constant time, or it gets
401 and never reaches MCP. Which address may be bound is the command's decision (engine/cli/mcp_cmd.py).
"""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

MCP_PATH = "/mcp"
UNAUTHORIZED = b"A bearer token is required: send Authorization: Bearer <the token hws mcp serve printed>.\n"


class BearerGuard:
    """An ASGI app that lets through only HTTP requests bearing the token; lifespan passes as it is."""

    def __init__(self, app: App, token: str) -> None:
        if not token:
            raise ValueError("the bearer token is empty")
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket") and not self._allowed(scope):
            await send(
                {
                    "type": "http.response.start",
                    "status": 401,
                    "headers": [
                        (b"content-type", b"text/plain; charset=utf-8"),
                        (b"www-authenticate", b"Bearer"),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": UNAUTHORIZED})
            return
        await self.app(scope, receive, send)

    def _allowed(self, scope: Scope) -> bool:
        given = [value for name, value in scope.get("headers", []) if name.lower() == b"authorization"]
        return len(given) == 1 and hmac.compare_digest(given[0].strip(), self.expected)


def guarded_app(server: Any, token: str, host: str) -> App:
    """The SDK's streamable HTTP app for `server`, behind the bearer token."""
    app = server.streamable_http_app(streamable_http_path=MCP_PATH, host=host)
    return BearerGuard(app, token)


async def serve_http(server: Any, host: str, port: int, token: str) -> None:
    """Serve on http://host:port/mcp until interrupted."""
    import uvicorn

    config = uvicorn.Config(guarded_app(server, token, host), host=host, port=port, log_level="warning")
    await uvicorn.Server(config).serve()
