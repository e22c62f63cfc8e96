"""The tools a session's config decides on: `clarify` always, `web_fetch` unless `web.allow: off`,
`web_search` only with a search backend, `delegate_task` while `delegation.enabled`, `fact_store` and
`fact_feedback` while the fact store is the memory provider. Each costs schema tokens in every call, so
none is offered that could not work."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.providers.registry import fact_store_active
from engine.tools import clarify, delegate, web_fetch, web_search
from engine.tools.registry import Tool

if TYPE_CHECKING:
    from engine.config import Config

__all__ = ["configured_tools", "fact_store_active"]


def configured_tools(config: Config) -> tuple[Tool, ...]:
    tools = [clarify.TOOL]
    if str(config.web.allow) != "off":
        tools.append(web_fetch.TOOL)
    if str(config.web.search_backend):
        tools.append(web_search.TOOL)
    if bool(config.delegation.enabled):
        tools.append(delegate.TOOL)
    if fact_store_active(config):
        from engine.tools import fact_tools

        tools.extend(fact_tools.TOOLS)
    return tuple(tools)
