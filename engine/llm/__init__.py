"""The provider client: any OpenAI-compatible endpoint, streamed, retried, with usage and cache facts.

    client = LLMClient.from_config(config, home.root)
    async with client.stream(messages, tools=schemas, on_retry=show) as call:
        async for chunk in call:          # TextChunk, ReasoningChunk, ToolCallChunk, UsageChunk,
            ...                           # RetryChunk (start over), FinishChunk (the message)
    call.message                          # the reply, partial if the task was cancelled

Importing this package does not import `openai` (0.6 s); the first call does.

The names below load their submodule on first use (engine/lazy_names.py says why).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.lazy_names import lazy_names

__getattr__, __dir__ = lazy_names(
    __name__,
    {
        "caching": "apply_cache_markers cache_marker",
        "chunks": "AssistantMessage Chunk FinishChunk MessageAssembler ReasoningChunk RetryChunk TextChunk"
        " TokenUsage ToolCall ToolCallChunk UsageChunk",
        "client": "LLMClient StreamCall",
        "context": "STEP_DOWN_TIERS ContextInfo ContextLengthCache is_context_error parse_context_limit"
        " step_down",
        "errors": "ContextLengthError LLMError",
        "settings": "ModelSettings SettingsError auxiliary_settings model_settings",
    },
)

if TYPE_CHECKING:
    from engine.llm.caching import apply_cache_markers as apply_cache_markers
    from engine.llm.caching import cache_marker as cache_marker
    from engine.llm.chunks import AssistantMessage as AssistantMessage
    from engine.llm.chunks import Chunk as Chunk
    from engine.llm.chunks import FinishChunk as FinishChunk
    from engine.llm.chunks import MessageAssembler as MessageAssembler
    from engine.llm.chunks import ReasoningChunk as ReasoningChunk
    from engine.llm.chunks import RetryChunk as RetryChunk
    from engine.llm.chunks import TextChunk as TextChunk
    from engine.llm.chunks import TokenUsage as TokenUsage
    from engine.llm.chunks import ToolCall as ToolCall
    from engine.llm.chunks import ToolCallChunk as ToolCallChunk
    from engine.llm.chunks import UsageChunk as UsageChunk
    from engine.llm.client import LLMClient as LLMClient
    from engine.llm.client import StreamCall as StreamCall
    from engine.llm.context import STEP_DOWN_TIERS as STEP_DOWN_TIERS
    from engine.llm.context import ContextInfo as ContextInfo
    from engine.llm.context import ContextLengthCache as ContextLengthCache
    from engine.llm.context import is_context_error as is_context_error
    from engine.llm.context import parse_context_limit as parse_context_limit
    from engine.llm.context import step_down as step_down
    from engine.llm.errors import ContextLengthError as ContextLengthError
    from engine.llm.errors import LLMError as LLMError
    from engine.llm.settings import ModelSettings as ModelSettings
    from engine.llm.settings import SettingsError as SettingsError
    from engine.llm.settings import auxiliary_settings as auxiliary_settings
    from engine.llm.settings import model_settings as model_settings
