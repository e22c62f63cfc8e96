"""Tool-call safety: every tool result follows the assistant message that asked for it, and every call
has a result, or a provider refuses the history."""

from __future__ import annotations

from typing import Any

from engine.compression.messages import STUB_FLAG, call_id, call_name, tool_calls

STUB_RESULT = "[Result from earlier conversation — see context summary above]"


def sanitize_tool_pairs(messages: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], int, int]:
    """The messages with orphaned results dropped and missing results stubbed; (messages, dropped, stubbed).

    A result counts only inside the run of tool messages right after its assistant message: that is
    where every provider expects it.
    """
    out: list[dict[str, Any]] = []
    dropped = stubbed = 0
    open_calls: dict[str, str] = {}  # id -> name, of the assistant message the current run answers
    answered: set[str] = set()

    def close_run() -> None:
        nonlocal stubbed
        for cid, name in open_calls.items():
            if cid not in answered:
                out.append(
                    {
                        "role": "tool",
                        "tool_call_id": cid,
                        "content": STUB_RESULT,
                        "name": name,
                        STUB_FLAG: True,
                    }
                )
                stubbed += 1
        open_calls.clear()
        answered.clear()

    for message in messages:
        role = message.get("role")
        if role == "tool":
            cid = str(message.get("tool_call_id") or "")
            if cid in open_calls and cid not in answered:
                answered.add(cid)
                out.append(message)
            else:
                dropped += 1
            continue
        close_run()
        out.append(message)
        for call in tool_calls(message):
            cid = call_id(call)
            if cid:
                open_calls[cid] = call_name(call)
    close_run()
    return out, dropped, stubbed
