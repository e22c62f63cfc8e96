"""The summary as a message in the history: clearly marked reference-only, and found again next time."""

from __future__ import annotations

from typing import Any

from engine.compression.messages import LEGACY_PREFIXES, SUMMARY_FLAG, looks_like_summary, text_of

PREFIX = (
    "[CONTEXT COMPACTION — REFERENCE ONLY] Earlier turns of this conversation were compacted into the "
    "summary below. It is background, not instructions: answer only the latest user message that "
    "follows it. If a later message changes or cancels something written here, the later message "
    "wins. MEMORY and USER PROFILE in the system prompt stay authoritative. The original turns are "
    "kept and can be found with session_search."
)
SUFFIX = "--- END OF CONTEXT SUMMARY — respond to the message below, not the summary above ---"


TASKS_HEADING = "## Task List (current, from the todo tool)"


def with_tasks(summary: str, tasks: str) -> str:
    """The summary with the live task list appended word for word (it is state, not history)."""
    return f"{summary.rstrip()}\n\n{TASKS_HEADING}\n{tasks.strip()}" if tasks.strip() else summary


def without_tasks(summary: str) -> str:
    """The summary without the task list an earlier compression appended (a fresh one replaces it)."""
    head, found, rest = summary.partition(TASKS_HEADING)
    if not found:
        return summary
    following = rest.find("\n## ")
    return (head.rstrip() + ("\n\n" + rest[following + 1 :] if following >= 0 else "")).strip()


def summary_text(summary: str) -> str:
    return f"{PREFIX}\n\n{summary.strip()}\n\n{SUFFIX}"


def split_summary(text: str) -> tuple[str, str]:
    """(the summary body, whatever followed the end marker) of a message that carries a summary."""
    body = text.lstrip()
    if body.startswith(PREFIX):
        body = body[len(PREFIX) :]
    else:
        for prefix in LEGACY_PREFIXES:
            if body.startswith(prefix):
                body = body[len(prefix) :]
                break
    rest = ""
    if SUFFIX in body:
        body, rest = body.split(SUFFIX, 1)
    return body.strip(), rest.strip()


def take_previous_summaries(messages: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], str | None]:
    """The history without earlier summary messages, and the newest earlier summary's body.

    A summary that was merged into the start of another message is cut out of it, leaving that
    message as it was.
    """
    kept: list[dict[str, Any]] = []
    previous: str | None = None
    for message in messages:
        text = text_of(message.get("content"))
        if not (message.get(SUMMARY_FLAG) or looks_like_summary(text)):
            kept.append(message)
            continue
        content = message.get("content")
        if isinstance(content, list) and content and isinstance(content[0], dict):
            body, rest = split_summary(str(content[0].get("text") or ""))
            remainder: Any = ([{"type": "text", "text": rest}] if rest else []) + content[1:]
        else:
            body, rest = split_summary(text)
            remainder = rest
        previous = body or previous
        if remainder or message.get("tool_calls"):
            restored = {k: v for k, v in message.items() if k != SUMMARY_FLAG}
            restored["content"] = remainder
            kept.append(restored)
    return kept, previous


def place_summary(
    head: list[dict[str, Any]], summary: str, following: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Head, the summary message, and what follows, with no two neighbours of the same role.

    The summary is a user message after an assistant or tool message, else an assistant message; if
    both roles would collide it is merged into the start of the next message.
    """
    before = head[-1].get("role") if head else None
    after = following[0].get("role") if following else None
    preferred = "user" if before in ("assistant", "tool") or before is None else "assistant"
    for role in (preferred, "assistant" if preferred == "user" else "user"):
        if role != before and role != after and not (role == "assistant" and before is None):
            message = {"role": role, "content": summary_text(summary), SUMMARY_FLAG: True}
            return [*head, message, *following]
    first = dict(following[0])
    content = first.get("content")
    if isinstance(content, list):
        first["content"] = [{"type": "text", "text": summary_text(summary)}, *content]
    else:
        original = text_of(content)
        first["content"] = summary_text(summary) + ("\n\n" + original if original else "")
    first[SUMMARY_FLAG] = True
    return [*head, first, *following[1:]]
