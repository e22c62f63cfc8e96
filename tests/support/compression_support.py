"""Conversations for the compression tests: realistic turns with tool calls, built deterministically."""

from __future__ import annotations

import json
from typing import Any

TOOL_PAIR_ROLES = ("assistant", "tool")


def call(call_id: str, name: str, **arguments: Any) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def assistant(text: str = "", *calls: dict[str, Any]) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if calls:
        message["tool_calls"] = list(calls)
    return message


def result(call_id: str, text: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": text}


def turn(index: int, *, words: int = 40, output_lines: int = 60, tag: str = "t") -> list[dict[str, Any]]:
    """One user turn: a question, a terminal call with its output, and an answer."""
    cid = f"{tag}{index}"
    output = "[exit 0; 0.1s]\n" + "\n".join(
        f"{tag}{index} line {n} of the listing" for n in range(output_lines)
    )
    return [
        user(f"Question {index} ({tag}): please check folder {index}. " + "detail " * words),
        assistant("", call(cid, "terminal", command=f"ls -la /srv/{tag}/{index}")),
        result(cid, output),
        assistant(f"Answer {index} ({tag}): folder {index} holds {output_lines} entries. " + "note " * words),
    ]


def conversation(turns: int, *, tag: str = "t", start: int = 0, **kwargs: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for index in range(start, start + turns):
        out.extend(turn(index, tag=tag, **kwargs))
    return out


def pairing_problems(messages: list[dict[str, Any]]) -> list[str]:
    """Each way the history breaks the rule: results directly follow their call; every call has one."""
    problems = []
    open_ids: set[str] = set()
    for index, message in enumerate(messages):
        role = message.get("role")
        if role == "tool":
            cid = message.get("tool_call_id")
            if cid not in open_ids:
                problems.append(f"message {index}: result {cid} does not follow its call")
            open_ids.discard(cid)
            continue
        if open_ids:
            problems.append(f"message {index}: calls {sorted(open_ids)} have no result")
        open_ids = {c["id"] for c in message.get("tool_calls") or []}
    if open_ids:
        problems.append(f"end: calls {sorted(open_ids)} have no result")
    return problems


def pasted_log(lines: int, tag: str = "paste") -> str:
    """A big paste as a person makes one: a log of `lines` lines (about 88 characters each, so 23,165
    lines are 2.0 MB, the paste that filled a 32K window 12 times over)."""
    return "".join(
        f"{tag} line {n:06d}: 2025-05-14 09:12:44 worker 3 finished batch 81 in 12 ms, queue depth 7\n"
        for n in range(lines)
    )
