"""`web_fetch`: one page from the web, as Markdown (HTML's main text), text, or a PDF's text.

The sandbox's no-network rule is the terminal's; this tool is the agent's visible, approvable way
out (`web_policy`). The client has timeouts, follows at most `web.max_redirects` redirects (each
target checked like the first URL), refuses bodies past `web.max_bytes` and types it does not read.
What comes back is marked as untrusted content and scanned for prompt injection (`untrusted`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin

from engine.tools import web_policy
from engine.tools.context import ToolContext
from engine.tools.errors import ToolError
from engine.tools.preview import one_line
from engine.tools.registry import Tool, ToolResult
from engine.tools.untrusted import wrap
from engine.tools.web_extract import Extracted, extract, kind_of, sniff

USER_AGENT = "hermes-workstation/0.1 (web_fetch)"
ACCEPT = "text/html,application/xhtml+xml,application/pdf;q=0.9,text/*;q=0.8,*/*;q=0.1"
REDIRECTS = (301, 302, 303, 307, 308)

DESCRIPTION = "Fetch a web page or PDF by URL; returns its main text as Markdown (untrusted content)."
PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {"url": {"type": "string"}},
    "required": ["url"],
    "additionalProperties": False,
}


@dataclass(frozen=True)
class _Fetched:
    url: str  # after redirects
    status: int
    content_type: str
    charset: str | None
    body: bytes


async def fetch(url: str, ctx: ToolContext) -> _Fetched:
    """GET `url`, following redirects by hand so that every target passes `web_policy.check`."""
    import httpx

    web = ctx.config.web
    max_bytes = int(web.max_bytes)
    seen: set[str] = set()
    timeout = httpx.Timeout(float(web.timeout), connect=min(float(web.timeout), 10.0))
    headers = {"User-Agent": USER_AGENT, "Accept": ACCEPT}
    backend = web_policy.PinnedBackend()
    transport = pinned_transport(backend)
    async with httpx.AsyncClient(
        transport=transport, timeout=timeout, headers=headers, follow_redirects=False, trust_env=False
    ) as client:
        for _hop in range(int(web.max_redirects) + 1):
            host, address = await web_policy.check(url, ctx)
            backend.pins[host] = address
            seen.add(url)
            try:
                async with client.stream("GET", url) as response:
                    if response.status_code in REDIRECTS and "location" in response.headers:
                        target = urljoin(url, response.headers["location"])
                        if target in seen:
                            raise ToolError(f"{url} redirects in a loop (back to {target}); nothing fetched.")
                        url = target
                        continue
                    body = await _read_capped(response, max_bytes, url)
                    content_type = response.headers.get("content-type", "")
                    return _Fetched(url, response.status_code, content_type, response.charset_encoding, body)
            except httpx.TimeoutException:
                raise ToolError(
                    f"{url} did not answer within {float(web.timeout):g} s (web.timeout)."
                ) from None
            except httpx.HTTPError as exc:
                raise ToolError(f"{url} could not be fetched: {type(exc).__name__}: {exc}") from None
        raise ToolError(
            f"More than {int(web.max_redirects)} redirects (web.max_redirects); stopped at {url}."
        )


def pinned_transport(backend: web_policy.PinnedBackend) -> Any:
    """httpx's transport whose connections go through `backend` (TLS still names the URL's host)."""
    import httpcore
    import httpx

    transport = httpx.AsyncHTTPTransport(trust_env=False)
    transport._pool = httpcore.AsyncConnectionPool(  # the pool httpx builds, with our network backend
        ssl_context=httpx.create_ssl_context(trust_env=False), network_backend=backend
    )
    return transport


async def _read_capped(response: Any, max_bytes: int, url: str) -> bytes:
    too_big = (
        f"{url} is larger than web.max_bytes ({max_bytes:,} bytes); nothing kept. Look for a smaller "
        "page (a section, a print view, a raw file) or raise web.max_bytes."
    )
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > max_bytes:
        raise ToolError(too_big)
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        size += len(chunk)
        if size > max_bytes:
            raise ToolError(too_big)
        chunks.append(chunk)
    return b"".join(chunks)


async def web_fetch(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    url = str(args["url"]).strip()
    if "://" not in url:
        url = "https://" + url
    got = await fetch(url, ctx)
    kind = kind_of(got.content_type)
    if got.content_type.split(";")[0].strip().lower() in ("", "application/octet-stream"):
        kind = sniff(got.body)
    if not kind:
        raise ToolError(
            f"web_fetch reads HTML, text and PDF, not {got.content_type.split(';')[0]} ({got.url})."
        )
    page: Extracted = await asyncio.to_thread(extract, got.body, kind, got.charset, got.url)
    limit = int(ctx.config.web.max_chars)
    text = page.text
    cut = ""
    if len(text) > limit:
        cut = f"[cut at {limit:,} of {len(text):,} characters (web.max_chars)]"
        text = text[:limit]
    status = "" if got.status < 400 else f"HTTP {got.status}"
    wrapped, flags = await asyncio.to_thread(wrap, "web_fetch", got.url, text, page.title, status, cut)
    summary = f"{page.kind}, {len(page.text):,} chars" + (f", {status}" if status else "")
    if flags:
        summary += f"; flagged: {', '.join(flags)}"
    return ToolResult(wrapped, ok=got.status < 400, summary=summary)


def _preview(args: Mapping[str, Any], width: int) -> str:
    return one_line(str(args.get("url") or ""), width)


TOOL = Tool("web_fetch", "web", DESCRIPTION, PARAMETERS, web_fetch, _preview)
