"""An auxiliary tool loop: call a model with a registry's tools until it answers without calling any.

Used where nobody watches the tokens arrive: the background review (memory and skill tools only)
and the compressor's memory flush. Nothing here streams to a UI; the tools' own events (memory
written, skill changed) still go wherever `ctx.emit` sends them.

    result = await run_tool_loop(aux_client, messages, registry.subset(toolsets=["memory"]), ctx,
                                 max_iterations=8)
    result.messages   # the assistant and tool messages it added, in API form
    result.runs       # each tool call with its ToolOutcome, in call order
    result.text       # the final answer ("" when it stopped on the iteration cap or an error)

A failed model call does not raise: it ends the loop with `stopped == "error"` and the error in
`result.error`, so the caller keeps what was done before it. Cancellation propagates.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from engine.tools.context import ToolContext
from engine.tools.registry import ToolOutcome, ToolRegistry

if TYPE_CHECKING:
    from engine.llm.chunks import AssistantMessage, RetryChunk, TokenUsage, ToolCall
    from engine.llm.client import LLMClient
    from engine.llm.errors import LLMError

STOP_ANSWERED = "answered"  # the model replied without tool calls
STOP_MAX_ITERATIONS = "max_iterations"  # it still called tools when the cap was reached
STOP_ERROR = "error"  # a model call failed for good (see `error`)


@dataclass(frozen=True)
class ToolRun:
    """One executed tool call: the id and raw arguments the model sent, and what came of it."""

    call_id: str
    name: str
    raw_arguments: str
    outcome: ToolOutcome

    @property
    def arguments(self) -> dict[str, Any]:
        return self.outcome.arguments

    @property
    def ok(self) -> bool:
        return self.outcome.ok


@dataclass
class ToolLoopResult:
    """What one auxiliary loop did: the messages it added, each tool run, the final text and usage."""

    messages: list[dict[str, Any]] = field(default_factory=list)
    runs: list[ToolRun] = field(default_factory=list)
    text: str = ""
    iterations: int = 0
    stopped: str = STOP_ANSWERED
    error: LLMError | None = None
    usages: list[TokenUsage] = field(default_factory=list)

    @property
    def outcomes(self) -> list[tuple[str, dict[str, Any], ToolOutcome]]:
        """(name, arguments, outcome) of each tool call, in call order."""
        return [(run.name, run.arguments, run.outcome) for run in self.runs]

    @property
    def prompt_tokens(self) -> int:
        return sum(u.prompt_tokens for u in self.usages)

    @property
    def completion_tokens(self) -> int:
        return sum(u.completion_tokens for u in self.usages)


def api_tool_call(call: ToolCall) -> dict[str, Any]:
    """A tool call as it goes back to the API: arguments that are not a JSON object are sent as `{}`.

    Some providers (Anthropic behind OpenRouter) refuse a history whose tool arguments do not
    parse; the model learns what was wrong from the call's error result instead.
    """
    arguments = call.arguments
    try:
        valid = isinstance(json.loads(arguments or "{}"), dict)
    except ValueError:
        valid = False
    return {
        "id": call.id,
        "type": "function",
        "function": {"name": call.name, "arguments": arguments if valid and arguments else "{}"},
    }


def assistant_entry(message: AssistantMessage) -> dict[str, Any]:
    """The assistant message for the next call's history."""
    entry: dict[str, Any] = {"role": "assistant", "content": message.content}
    if message.tool_calls:
        entry["tool_calls"] = [api_tool_call(call) for call in message.tool_calls]
        if not message.content:
            entry["content"] = None
    return entry


def tool_entry(call_id: str, content: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": content}


async def run_tool_calls(
    calls: tuple[ToolCall, ...] | list[ToolCall], registry: ToolRegistry, ctx: ToolContext
) -> list[ToolRun]:
    """Run the calls of one reply concurrently; the runs come back in call order."""
    outcomes = await asyncio.gather(*(registry.dispatch(c.name, c.arguments, ctx, c.id) for c in calls))
    return [ToolRun(c.id, c.name, c.arguments, o) for c, o in zip(calls, outcomes, strict=True)]


async def run_tool_loop(
    client: LLMClient,
    messages: list[dict[str, Any]],
    registry: ToolRegistry,
    ctx: ToolContext,
    *,
    max_iterations: int,
    temperature: float | None = None,
    on_retry: Callable[[RetryChunk], None] | None = None,
) -> ToolLoopResult:
    """Call the model with only `registry`'s tools, run what it calls, feed the results back, repeat.

    `messages` is not modified. It stops when the model answers without tool calls, after
    `max_iterations` model calls, or when a call fails for good (`LLMError`, kept in the result).
    """
    from engine.llm.errors import LLMError

    result = ToolLoopResult()
    schemas = registry.schemas() or None
    while result.iterations < max_iterations:
        result.iterations += 1
        try:
            reply = await client.complete(
                [*messages, *result.messages], tools=schemas, temperature=temperature, on_retry=on_retry
            )
        except LLMError as exc:
            result.error = exc
            result.stopped = STOP_ERROR
            return result
        if reply.usage is not None:
            result.usages.append(reply.usage)
        result.messages.append(assistant_entry(reply))
        if not reply.tool_calls:
            result.text = reply.content
            result.stopped = STOP_ANSWERED
            return result
        runs = await run_tool_calls(reply.tool_calls, registry, ctx)
        result.runs.extend(runs)
        result.messages.extend(tool_entry(run.call_id, run.outcome.content) for run in runs)
    result.stopped = STOP_MAX_ITERATIONS
    return result
