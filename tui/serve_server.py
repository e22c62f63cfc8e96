"""textual-serve's server behind `hws serve`'s door: every request passes `ServeAccess` first.

The page hands the token on to its WebSocket in the path (`/ws/<token>`; textual.js appends
`?width=…&height=…` to the URL it is given), and a token-bearing page load sets an HttpOnly,
SameSite=Strict cookie so that a reload without `?token=` still opens.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp_jinja2
from aiohttp import hdrs, web
from textual_serve.server import Server, to_int

from engine.cli.serve_access import ServeAccess

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
PAGE_HEADERS = {
    "Cache-Control": "no-store",  # the page carries the token
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": "frame-ancestors 'none'",
}


def guard(access: ServeAccess) -> Callable[[web.Request, Handler], Awaitable[web.StreamResponse]]:
    """Middleware refusing (403, one sentence) a foreign Host, a foreign Origin or a missing token."""

    @web.middleware
    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        presented = [
            request.match_info.get("token"),
            *request.query.getall("token", []),
            request.cookies.get(access.cookie_name()),
        ]
        reason = access.refusal(
            request.headers.getall(hdrs.HOST, []),
            request.headers.getall(hdrs.ORIGIN, []),
            [value for value in presented if value],
            needs_token=not request.path.startswith("/static/"),  # textual-serve's own files
        )
        if reason is not None:
            return web.Response(status=403, text=reason + "\n", headers={"Cache-Control": "no-store"})
        return await handler(request)

    return middleware


class GuardedServer(Server):
    """textual-serve's `Server` with the access guard and a page that passes its token on."""

    def __init__(self, command: str, access: ServeAccess, **options: Any) -> None:
        super().__init__(command, public_url=access.public_url, **options)
        self.access = access

    async def _make_app(self) -> web.Application:
        app = await super()._make_app()
        app.middlewares.append(guard(self.access))
        app.router.add_get("/ws/{token}", self.handle_websocket, name="websocket-token")
        return app

    def _base_url(self, request: web.Request) -> str:
        """Where the browser reached us: the public URL if given, else the Host it used (checked)."""
        if self.access.public_url:
            return self.access.public_url.rstrip("/")
        return f"http://{request.headers[hdrs.HOST]}"

    async def handle_index(self, request: web.Request) -> web.Response:
        base = self._base_url(request)
        token = self.access.token
        websocket_path = f"/ws/{token}" if token else "/ws"
        scheme, rest = base.split(":", 1)
        context = {
            "font_size": to_int(request.query.get("fontsize", "16"), 16),
            "app_websocket_url": ("wss:" if scheme == "https" else "ws:") + rest + websocket_path,
            "config": {"static": {"url": f"{base}/static/"}},
            "application": {"name": self.title},
        }
        response = aiohttp_jinja2.render_template("app_index.html", request, context)
        response.headers.update(PAGE_HEADERS)
        if token and self.access.token_matches(request.query.get("token")):
            response.set_cookie(self.access.cookie_name(), token, httponly=True, samesite="Strict", path="/")
        return response
