"""`web_search`: results (title, URL, snippet) from the search backend named by `web.search_backend`.

SearXNG is asked through its JSON API at `web.search_url`; Brave, Tavily and Exa through their
public APIs (or `web.search_url` instead), with the key named `<BACKEND>_API_KEY` in .env. The tool is
offered only when a backend is set (`offered.py`). Results are untrusted content, like a page.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from engine.tools.context import ToolContext
from engine.tools.errors import ToolError
from engine.tools.preview import quoted
from engine.tools.registry import Tool, ToolResult
from engine.tools.untrusted import wrap

PUBLIC_URLS = {
    "brave": "https://api.search.brave.com/res/v1/web/search",
    "tavily": "https://api.tavily.com/search",
    "exa": "https://api.exa.ai/search",
}
KEY_NAMES = {"brave": "BRAVE_API_KEY", "tavily": "TAVILY_API_KEY", "exa": "EXA_API_KEY"}
SNIPPET_CHARS = 400

DESCRIPTION = (
    "Search the web; returns titles, URLs and snippets (untrusted content). Read a page with web_fetch."
)
PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {"query": {"type": "string"}},
    "required": ["query"],
    "additionalProperties": False,
}


def _key(ctx: ToolContext, backend: str) -> str:
    name = KEY_NAMES[backend]
    key = ctx.config.secret(name)
    if not key:
        raise ToolError(f"web_search uses {backend}, which needs {name} in .env; it is not set.")
    return str(key)


async def _ask_backend(backend: str, url: str, query: str, count: int, ctx: ToolContext) -> Any:
    import httpx

    timeout = httpx.Timeout(float(ctx.config.web.timeout), connect=10.0)
    async with httpx.AsyncClient(timeout=timeout, trust_env=False) as client:
        if backend == "searxng":
            endpoint = url.rstrip("/")
            endpoint = endpoint if endpoint.endswith("/search") else endpoint + "/search"
            response = await client.get(endpoint, params={"q": query, "format": "json"})
        elif backend == "brave":
            headers = {"X-Subscription-Token": _key(ctx, backend), "Accept": "application/json"}
            response = await client.get(url, params={"q": query, "count": count}, headers=headers)
        elif backend == "tavily":
            headers = {"Authorization": f"Bearer {_key(ctx, backend)}"}
            response = await client.post(url, json={"query": query, "max_results": count}, headers=headers)
        else:  # exa
            body = {
                "query": query,
                "numResults": count,
                "contents": {"text": {"maxCharacters": SNIPPET_CHARS}},
            }
            response = await client.post(url, json=body, headers={"x-api-key": _key(ctx, backend)})
        if response.status_code >= 400:
            raise ToolError(
                f"The {backend} search answered HTTP {response.status_code}: {response.text[:200]}"
            )
        try:
            return response.json()
        except ValueError:
            raise ToolError(
                f"The {backend} search did not answer with JSON (is web.search_url right?)."
            ) from None


def results(backend: str, data: Any, count: int) -> list[dict[str, str]]:
    """(title, url, snippet) of each result in the backend's answer, at most `count`."""
    if not isinstance(data, dict):
        return []
    holder = (data.get("web") or {}) if backend == "brave" else data
    items = holder.get("results") or [] if isinstance(holder, dict) else []
    out: list[dict[str, str]] = []
    for item in items:
        if not isinstance(item, dict) or not item.get("url"):
            continue
        snippet = item.get("content") or item.get("description") or item.get("text") or ""
        snippet = " ".join(str(snippet).split())[:SNIPPET_CHARS]
        out.append({"title": str(item.get("title") or ""), "url": str(item["url"]), "snippet": snippet})
        if len(out) >= count:
            break
    return out


def as_text(found: list[dict[str, str]]) -> str:
    if not found:
        return "No results."
    blocks = [f"{n}. {r['title']}\n   {r['url']}\n   {r['snippet']}" for n, r in enumerate(found, 1)]
    return "\n".join(blocks)


async def web_search(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    query = str(args["query"]).strip()
    if not query:
        raise ToolError("web_search needs a `query`.")
    web = ctx.config.web
    backend = str(web.search_backend)
    if not backend:
        raise ToolError("No search backend is set (web.search_backend in config.yaml).")
    url = str(web.search_url) or PUBLIC_URLS.get(backend, "")
    if not url:
        raise ToolError("web.search_backend: searxng needs web.search_url, the SearXNG server's address.")
    count = int(web.search_results)
    try:
        data = await _ask_backend(backend, url, query, count, ctx)
    except ToolError:
        raise
    except Exception as exc:  # httpx's errors: the backend is down or unreachable
        raise ToolError(f"The {backend} search could not be reached: {type(exc).__name__}: {exc}") from None
    found = results(backend, data, count)
    text, flags = await asyncio.to_thread(wrap, "web_search", f"{backend}: {query}", as_text(found))
    summary = f"{len(found)} result{'' if len(found) == 1 else 's'}"
    if flags:
        summary += f"; flagged: {', '.join(flags)}"
    return ToolResult(text, summary=summary)


def _preview(args: Mapping[str, Any], width: int) -> str:
    return quoted(str(args.get("query") or ""), width)


TOOL = Tool("web_search", "web", DESCRIPTION, PARAMETERS, web_search, _preview)
