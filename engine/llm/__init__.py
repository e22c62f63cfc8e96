"""The provider client: any OpenAI-compatible endpoint, streamed, retried, with usage and cache facts.

    client = LLMClient.from_config(config, home.root)
    async with client.stream(messages, tools=schemas, on_retry=show) as call:
        async for chunk in call:          # TextChunk, ReasoningChunk, ToolCallChunk, UsageChunk,
            ...                           # RetryChunk (start over), FinishChunk (the message)
    call.message                          # the reply, partial if the task was cancelled

Importing this package does not import `openai` (0.6 s); the first call does.
"""

from engine.llm.caching import apply_cache_markers, cache_marker
from engine.llm.chunks import (
    AssistantMessage,
    Chunk,
    FinishChunk,
    MessageAssembler,
    ReasoningChunk,
    RetryChunk,
    TextChunk,
    TokenUsage,
    ToolCall,
    ToolCallChunk,
    UsageChunk,
)
from engine.llm.client import LLMClient, StreamCall
from engine.llm.context import (
    STEP_DOWN_TIERS,
    ContextInfo,
    ContextLengthCache,
    is_context_error,
    parse_context_limit,
    step_down,
)
from engine.llm.errors import ContextLengthError, LLMError
from engine.llm.settings import ModelSettings, SettingsError, auxiliary_settings, model_settings

__all__ = [
    "STEP_DOWN_TIERS",
    "AssistantMessage",
    "Chunk",
    "ContextInfo",
    "ContextLengthCache",
    "ContextLengthError",
    "FinishChunk",
    "LLMClient",
    "LLMError",
    "MessageAssembler",
    "ModelSettings",
    "ReasoningChunk",
    "RetryChunk",
    "SettingsError",
    "StreamCall",
    "TextChunk",
    "TokenUsage",
    "ToolCall",
    "ToolCallChunk",
    "UsageChunk",
    "apply_cache_markers",
    "auxiliary_settings",
    "cache_marker",
    "is_context_error",
    "model_settings",
    "parse_context_limit",
    "step_down",
]
