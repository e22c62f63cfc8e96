"""What a streamed model call yields: small typed chunks, and the message they assemble into."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class TextChunk:
    text: str


@dataclass(frozen=True, slots=True)
class ReasoningChunk:
    text: str


@dataclass(frozen=True, slots=True)
class ToolCallChunk:
    """A fragment of tool call `index`; `id` and `name` are set once known (the whole name so far)."""

    index: int
    id: str
    name: str
    arguments_delta: str


@dataclass(frozen=True, slots=True)
class TokenUsage:
    """Token counts the provider reported for one call (cached = read from its prompt cache)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


@dataclass(frozen=True, slots=True)
class UsageChunk:
    usage: TokenUsage


@dataclass(frozen=True, slots=True)
class RetryChunk:
    """The call failed and will be tried again: everything streamed so far is void.

    `attempt` is the retry about to run (1 = first retry) of `max_retries`.
    """

    attempt: int
    max_retries: int
    delay: float
    reason: str
    status: int | None = None

    @property
    def text(self) -> str:
        """A status line, e.g. `retrying (2/3) in 4.0 s after HTTP 500`."""
        return f"retrying ({self.attempt}/{self.max_retries}) in {self.delay:.1f} s after {self.reason}"


@dataclass(frozen=True, slots=True)
class FallbackChunk:
    """The provider failed for good and the call starts over on the next fallback provider.

    Everything streamed so far is void, as after a `RetryChunk`; `text` names the switch.
    """

    text: str
    failed: str  # `model at base_url` of the provider given up on
    now: str  # `model at base_url` of the one the call goes on with
    provider: str  # the new provider's name (or host), for the budget pane
    reason: str = ""  # what failed, e.g. `HTTP 503`


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One assembled tool call; `arguments` is the raw JSON text exactly as the model wrote it."""

    id: str
    name: str
    arguments: str

    def parsed_arguments(self) -> dict[str, Any]:
        """The arguments as a mapping; raises ValueError with a sentence the model can act on."""
        text = self.arguments.strip() or "{}"
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(
                f"The arguments of {self.name} are not valid JSON ({exc.msg} at character {exc.pos}); "
                "send them again as one JSON object."
            ) from None
        if not isinstance(value, dict):
            raise ValueError(
                f"The arguments of {self.name} must be a JSON object, not {type(value).__name__}."
            )
        return value

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments},
        }


@dataclass(frozen=True, slots=True)
class AssistantMessage:
    """The model's reply, assembled from the stream (or as far as it got, when interrupted)."""

    content: str = ""
    reasoning: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    finish_reason: str | None = None
    usage: TokenUsage | None = None
    model: str = ""

    @property
    def complete(self) -> bool:
        return self.finish_reason is not None

    def as_dict(self) -> dict[str, Any]:
        """The message to send back to the API in the next call's history."""
        message: dict[str, Any] = {"role": "assistant", "content": self.content}
        if self.tool_calls:
            message["tool_calls"] = [call.as_dict() for call in self.tool_calls]
            if not self.content:
                message["content"] = None
        return message


@dataclass(frozen=True, slots=True)
class FinishChunk:
    """The last chunk of a successful call, with the assembled message."""

    message: AssistantMessage


Chunk = TextChunk | ReasoningChunk | ToolCallChunk | UsageChunk | RetryChunk | FallbackChunk | FinishChunk


@dataclass
class _Slot:
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)


class MessageAssembler:
    """Accumulates stream chunks into an `AssistantMessage`, tool calls by their `index`.

    Servers differ: some send `id` and `name` only on a call's first delta, some (llama.cpp)
    repeat them on every delta, some omit `index`. Names are never concatenated with themselves.
    """

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.text: list[str] = []
        self.reasoning: list[str] = []
        self.slots: dict[int, _Slot] = {}
        self.finish_reason: str | None = None
        self.usage: TokenUsage | None = None
        self.model = ""

    def feed(self, chunk: dict[str, Any]) -> list[Chunk]:
        """Read one decoded `chat.completion.chunk` mapping and return what it adds."""
        out: list[Chunk] = []
        if not self.model and chunk.get("model"):
            self.model = str(chunk["model"])
        for choice in chunk.get("choices") or ():
            if not isinstance(choice, dict) or choice.get("index", 0) not in (0, None):
                continue  # only the first choice is ours (n=1)
            delta = choice.get("delta") or choice.get("message")  # some servers send `message`
            if isinstance(delta, dict):
                reasoning = delta.get("reasoning_content") or delta.get("reasoning")
                if isinstance(reasoning, str) and reasoning:
                    self.reasoning.append(reasoning)
                    out.append(ReasoningChunk(reasoning))
                content = delta.get("content")
                if isinstance(content, str) and content:
                    self.text.append(content)
                    out.append(TextChunk(content))
                for call in delta.get("tool_calls") or ():
                    if isinstance(call, dict):
                        out.append(self._feed_call(call))
            if choice.get("finish_reason"):
                self.finish_reason = str(choice["finish_reason"])
        usage = chunk.get("usage")
        if isinstance(usage, dict):
            self.usage = usage_from(usage)
            out.append(UsageChunk(self.usage))
        return out

    def _feed_call(self, call: dict[str, Any]) -> ToolCallChunk:
        index = call.get("index")
        call_id = str(call.get("id") or "")
        if not isinstance(index, int):  # some servers omit it: a new id starts a new call
            last = max(self.slots, default=-1)
            fresh = last < 0 or (call_id and self.slots[last].id not in ("", call_id))
            index = last + 1 if fresh else last
        slot = self.slots.setdefault(index, _Slot())
        if call_id and not slot.id:
            slot.id = call_id
        function = call.get("function") if isinstance(call.get("function"), dict) else {}
        name = function.get("name") or ""
        if isinstance(name, str) and name and name != slot.name:
            # A repeated name is ignored; a growing one replaces; a genuine fragment is appended.
            slot.name = name if name.startswith(slot.name) else slot.name + name
        fragment = function.get("arguments") or ""
        if not isinstance(fragment, str):  # a few servers send the arguments as an object
            fragment = json.dumps(fragment, ensure_ascii=False)
        if fragment:
            slot.arguments.append(fragment)
        return ToolCallChunk(index=index, id=slot.id, name=slot.name, arguments_delta=fragment)

    def infer_finish(self) -> None:
        """Give the finish reason a server left out: `tool_calls` if it called tools, else `stop`."""
        if self.finish_reason is None:
            self.finish_reason = "tool_calls" if self.slots else "stop"

    @property
    def finished(self) -> bool:
        return self.finish_reason is not None

    def message(self) -> AssistantMessage:
        calls = tuple(
            ToolCall(id=slot.id or f"call_{index}", name=slot.name, arguments="".join(slot.arguments))
            for index, slot in sorted(self.slots.items())
        )
        return AssistantMessage(
            content="".join(self.text),
            reasoning="".join(self.reasoning),
            tool_calls=calls,
            finish_reason=self.finish_reason,
            usage=self.usage,
            model=self.model,
        )


def _field(obj: Any, name: str) -> Any:
    if obj is None:
        return None
    if isinstance(obj, dict):
        return obj.get(name)
    value = getattr(obj, name, None)
    if value is None and getattr(obj, "model_extra", None):
        value = obj.model_extra.get(name)
    return value


def usage_from(usage: Any) -> TokenUsage:
    """Token counts from any provider's usage object (OpenAI, OpenRouter, Anthropic, DeepSeek names)."""
    prompt_details = _field(usage, "prompt_tokens_details")
    completion_details = _field(usage, "completion_tokens_details")
    cached = _field(prompt_details, "cached_tokens") or _field(usage, "cache_read_input_tokens")
    cached = cached or _field(usage, "prompt_cache_hit_tokens") or 0
    written = (
        _field(prompt_details, "cache_write_tokens") or _field(usage, "cache_creation_input_tokens") or 0
    )
    return TokenUsage(
        prompt_tokens=int(_field(usage, "prompt_tokens") or 0),
        completion_tokens=int(_field(usage, "completion_tokens") or 0),
        cached_tokens=int(cached),
        cache_write_tokens=int(written),
        reasoning_tokens=int(_field(completion_details, "reasoning_tokens") or 0),
    )
