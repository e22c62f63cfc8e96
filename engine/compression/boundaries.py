"""Where the protected head ends and the protected tail begins, never between a call and its result."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.compression.messages import is_summary, tool_calls


@dataclass(frozen=True)
class Plan:
    """The split of a history: `[0, head_end)` kept, `[head_end, tail_start)` summarised, the rest kept.

    `kept_user` is the index of the latest user message when it falls in the middle: it is kept word
    for word after the summary instead of being summarised.
    """

    head_end: int
    tail_start: int
    kept_user: int | None = None

    def middle(self, messages: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        span = enumerate(messages[self.head_end : self.tail_start], self.head_end)
        return [m for i, m in span if i != self.kept_user]

    @property
    def empty(self) -> bool:
        return self.tail_start - self.head_end - (1 if self.kept_user is not None else 0) <= 0


def latest_user_index(messages: Sequence[dict[str, Any]]) -> int | None:
    """The last real user message (a summary sent as a user message does not count)."""
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if message.get("role") == "user" and not is_summary(message):
            return index
    return None


def align_head(messages: Sequence[dict[str, Any]], head_end: int) -> int:
    """Move the end of the head past the results of a call it holds."""
    while head_end < len(messages) and messages[head_end].get("role") == "tool":
        head_end += 1
    return head_end


def align_tail(messages: Sequence[dict[str, Any]], tail_start: int, floor: int) -> int:
    """Move the start of the tail back to the call whose results it would otherwise begin with."""
    while floor < tail_start < len(messages) and messages[tail_start].get("role") == "tool":
        tail_start -= 1
    return tail_start


def plan_boundaries(
    messages: Sequence[dict[str, Any]],
    token_counts: Sequence[int],
    *,
    protect_first_n: int,
    protect_last_n: int,
    tail_budget: int,
) -> Plan:
    """Head: the first `protect_first_n` messages. Tail: the last `protect_last_n`, then more while they
    fit `tail_budget` tokens. Both are widened to keep tool pairs whole."""
    n = len(messages)
    head_end = align_head(messages, min(protect_first_n, n))
    tail_start = n
    used = 0
    while tail_start > head_end:
        cost = token_counts[tail_start - 1]
        if n - tail_start >= protect_last_n and used + cost > tail_budget:
            break
        used += cost
        tail_start -= 1
    tail_start = align_tail(messages, tail_start, head_end)
    # An assistant message whose calls are answered inside the tail goes with them (align_tail did it);
    # one left at the end of the middle with no results at all is fine: the sanitiser stubs them.
    latest = latest_user_index(messages)
    kept_user = latest if latest is not None and head_end <= latest < tail_start else None
    return Plan(head_end, max(tail_start, head_end), kept_user)


def calls_in_longest_task(messages: Sequence[dict[str, Any]]) -> int:
    """The most tool calls made between two user messages: a sign of a procedure worth a skill."""
    best = current = 0
    for message in messages:
        if message.get("role") == "user":
            current = 0
            continue
        current += len(tool_calls(message))
        best = max(best, current)
    return best
