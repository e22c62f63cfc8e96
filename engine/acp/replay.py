"""A resumed session's history as the `session/update`s a client replays on `session/load`.

The person's messages come back as user chunks, the replies as agent chunks, each tool call as a
finished call with its result: what the client showed before, rebuilt from `state.db`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from acp import (
    start_tool_call,
    text_block,
    tool_content,
    update_agent_message_text,
    update_tool_call,
    update_user_message_text,
)

from engine.acp.updates import tool_kind
from engine.tools.preview import format_call, one_line

TITLE_WIDTH = 80  # characters of a replayed call's arguments in its title


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # the API's list of parts: keep the text ones
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


def _arguments(raw: Any) -> dict[str, Any]:
    try:
        value = json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _calls(message: dict[str, Any]) -> list[Any]:
    started = []
    for call in message.get("tool_calls") or ():
        function = call.get("function") or {}
        name = str(function.get("name", "tool"))
        arguments = _arguments(function.get("arguments"))
        detail = " ".join(str(v) for v in arguments.values() if isinstance(v, str | int | float))
        title = format_call(name, one_line(detail, TITLE_WIDTH)).strip()
        started.append(
            start_tool_call(
                str(call.get("id", "")), title, kind=tool_kind(name), status="completed", raw_input=arguments
            )
        )
    return started


def history_updates(history: Iterable[dict[str, Any]]) -> list[Any]:
    updates: list[Any] = []
    for message in history:
        role, text = message.get("role"), _text(message.get("content"))
        if role == "user" and text:
            updates.append(update_user_message_text(text))
        elif role == "assistant":
            if text:
                updates.append(update_agent_message_text(text))
            updates.extend(_calls(message))
        elif role == "tool":
            content = [tool_content(text_block(text))] if text else None
            updates.append(
                update_tool_call(str(message.get("tool_call_id", "")), status="completed", content=content)
            )
    return updates
