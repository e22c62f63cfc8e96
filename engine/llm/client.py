"""The provider client: streamed chat completions over any OpenAI-compatible endpoint, with retries.

`openai` is imported only when the first call is made: importing it costs about 0.6 s, and
`hws` commands that never talk to a model must not pay for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from engine.config import Config
from engine.llm.caching import apply_cache_markers
from engine.llm.chunks import (
    AssistantMessage,
    Chunk,
    FallbackChunk,
    FinishChunk,
    MessageAssembler,
    RetryChunk,
)
from engine.llm.context import (
    ContextInfo,
    ContextLengthCache,
    context_from_models,
    parse_context_limit,
    step_down,
)
from engine.llm.errors import (
    ContextLengthError,
    Failure,
    LLMError,
    StreamDropped,
    StreamStalled,
    classify,
    final_message,
)
from engine.llm.fallback import FALLBACK_KINDS, describe, fallback_settings, provider_label
from engine.llm.settings import ModelSettings, auxiliary_settings, model_settings
from engine.llm.sse import SSEReader
from engine.storage.atomic import WriteError

if TYPE_CHECKING:
    from openai import AsyncOpenAI

RetryCallback = Callable[[RetryChunk], None]
MODELS_TIMEOUT = 30.0  # seconds for a /models listing; it is small and optional
APP_HEADERS = {"HTTP-Referer": "https://github.com/hermes-workstation", "X-Title": "Hermes Workstation"}

log = logging.getLogger(__name__)


class LLMClient:
    """One endpoint and model; `stream()` makes a call, `complete()` waits for the whole reply."""

    # The windows endpoints' /models reported in this process, by (base_url, model): the next client on
    # the same endpoint (a new session's) can say its window before it asks.
    _reported_windows: ClassVar[dict[tuple[str, str], int]] = {}

    def __init__(
        self,
        settings: ModelSettings,
        *,
        home_root: Path | None = None,
        context_cache: ContextLengthCache | None = None,
        fallbacks: tuple[ModelSettings, ...] = (),
    ) -> None:
        self.settings = settings
        self.context_cache = context_cache or ContextLengthCache(home_root)
        self.fallbacks = list(fallbacks)  # not yet tried, in order; a switch takes the first
        self.given_up: list[str] = []  # "model at url (reason)" of each provider left, oldest first
        self._openai: AsyncOpenAI | None = None
        self._models: list[dict[str, Any]] | None = None
        self._endpoint_windows: dict[str, int | None] = {}

    @classmethod
    def from_config(cls, config: Config, home_root: Path | None, *, auxiliary: bool = False) -> LLMClient:
        """The main client (with `fallback_providers`), or with `auxiliary=True` the one for summaries
        and background review."""
        main = model_settings(config)
        if not auxiliary:
            return cls(main, home_root=home_root, fallbacks=fallback_settings(config, main))
        aux = auxiliary_settings(config)
        # An auxiliary model on the main endpoint goes down with it: it has the same fallbacks.
        fallbacks = fallback_settings(config, aux) if aux.base_url == main.base_url else ()
        return cls(aux, home_root=home_root, fallbacks=fallbacks)

    @property
    def provider(self) -> str:
        """The name (or host) of the provider answering now."""
        return provider_label(self.settings)

    async def switch_to_fallback(self, reason: str, failed: ModelSettings) -> ModelSettings | None:
        """Leave `failed` (the current provider) for the next fallback, for good; None when none is left.

        The connection to the old endpoint is closed and what it reported (its models, its
        windows) is forgotten; later calls of this client, and so of the session, go to the new one.
        When another call of this client has switched already, this one goes on where that one went.
        """
        if self.settings is not failed:
            return self.settings
        if not self.fallbacks:
            return None
        self.given_up.append(f"{describe(self.settings)} ({reason})")
        await self.aclose()
        self.settings = self.fallbacks.pop(0)
        self._models = None
        self._endpoint_windows = {}
        return self.settings

    def openai_client(self) -> AsyncOpenAI:
        """The underlying `AsyncOpenAI`, created (and `openai` imported) on first use."""
        if self._openai is None:
            import httpx2
            import openai

            s = self.settings
            timeout = httpx2.Timeout(
                s.request_timeout, connect=s.connect_timeout, read=s.stale_timeout + 1, pool=s.connect_timeout
            )
            headers = APP_HEADERS if s.host == "openrouter.ai" else None
            self._openai = openai.AsyncOpenAI(
                api_key=s.api_key,
                base_url=s.base_url,
                timeout=timeout,
                max_retries=0,  # retries are ours: they are reported, and they cover dropped streams
                default_headers=headers,
            )
        return self._openai

    async def aclose(self) -> None:
        if self._openai is not None:
            await self._openai.close()
            self._openai = None

    async def __aenter__(self) -> LLMClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    # --- calls ----------------------------------------------------------------------------

    def stream(
        self,
        messages: list[dict[str, Any]],
        *,
        tools: list[dict[str, Any]] | None = None,
        tool_choice: str | dict[str, Any] | None = None,
        model: str | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
        extra_body: dict[str, Any] | None = None,
        on_retry: RetryCallback | None = None,
    ) -> StreamCall:
        """Start a streamed call; iterate the result for chunks, read `.message` for the reply so far."""
        options: dict[str, Any] = {"tools": tools, "tool_choice": tool_choice, "temperature": temperature}
        options.update(max_tokens=max_tokens, extra_body=extra_body)
        return StreamCall(self, messages, model, options, on_retry)

    async def complete(self, messages: list[dict[str, Any]], **kwargs: Any) -> AssistantMessage:
        """The whole reply of one call (streamed underneath, so retries and stall checks apply)."""
        async with self.stream(messages, **kwargs) as call:
            return await call.collect()

    def request_body(
        self, messages: list[dict[str, Any]], model: str, options: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """The keyword arguments of the chat-completions call, cache markers applied where they count."""
        s = self.settings.with_model(model)
        options = options or {}
        markers = s.cache_markers
        if markers:
            messages = apply_cache_markers(messages, ttl=s.cache_ttl, native_anthropic=markers == "native")
        body: dict[str, Any] = {
            "model": model,
            "messages": messages,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if options.get("tools"):
            body["tools"] = options["tools"]
            if options.get("tool_choice") is not None:
                body["tool_choice"] = options["tool_choice"]
        if options.get("temperature") is not None:
            body["temperature"] = options["temperature"]
        max_tokens = options.get("max_tokens") or s.max_tokens
        if max_tokens:
            body["max_tokens"] = max_tokens
        if s.reasoning_effort:
            body["reasoning_effort"] = s.reasoning_effort
        if options.get("extra_body"):
            body["extra_body"] = options["extra_body"]
        return body

    async def open_stream(self, body: dict[str, Any]) -> Any:
        """POST the body as it is and return the unread `httpx2.Response` of the event stream.

        The `openai` client still does the transport, the key, the timeouts and the mapping of
        HTTP errors to its exceptions; only its per-chunk models are skipped (see `sse.py`).
        """
        import httpx2
        from openai._constants import RAW_RESPONSE_HEADER

        body = dict(body)
        extra = body.pop("extra_body", None) or {}
        body.update(extra)
        return await self.openai_client().post(
            "/chat/completions",
            body=body,
            cast_to=httpx2.Response,
            options={"headers": {RAW_RESPONSE_HEADER: "stream", "Accept": "text/event-stream"}},
        )

    # --- the endpoint's facts -------------------------------------------------------------

    async def list_models(self) -> list[dict[str, Any]]:
        """The endpoint's `/models` entries as plain mappings (extra fields such as context_length kept)."""
        if self._models is None:
            client = self.openai_client().with_options(
                timeout=min(MODELS_TIMEOUT, self.settings.request_timeout)
            )
            try:
                page = await client.models.list()
            except Exception as exc:
                failure = classify(exc, self.settings.stale_timeout)
                message = final_message(failure, self.settings.base_url, "/models", 1, 0)
                raise LLMError(message, kind=failure.kind, status=failure.status) from exc
            self._models = [entry.model_dump() for entry in page.data]
        return self._models

    async def resolve_model(self) -> str:
        """The configured model, else the first one the endpoint lists (local servers often have one)."""
        if self.settings.model:
            return self.settings.model
        models = await self.list_models()
        if not models:
            raise LLMError(
                f"No model is configured and {self.settings.base_url} lists none; set `model.default`.",
                kind="not_found",
            )
        self.settings = self.settings.with_model(str(models[0]["id"]))
        return self.settings.model

    async def context_length(self, model: str | None = None) -> ContextInfo:
        """The model's window: config, else what context errors taught, else /models, else the default.

        A learned window smaller than the configured one wins: the endpoint refused a prompt
        the configured size said would fit.
        """
        s = self.settings
        model = model or await self.resolve_model()
        settled = self._settled_window(model)
        if settled is not None:
            return settled
        if model not in self._endpoint_windows:
            try:
                self._endpoint_windows[model] = context_from_models(await self.list_models(), model)
            except LLMError:
                self._endpoint_windows[model] = None
        window = self._endpoint_windows[model]
        if window is not None:
            self._reported_windows[(s.base_url, model)] = window
            return ContextInfo(window, "endpoint")
        return ContextInfo(s.fallback_context_length, "default")

    def known_context_length(self) -> ContextInfo | None:
        """The window `context_length()` gives, when it is known without a request; else None."""
        model = self.settings.model
        if not model:
            return None
        settled = self._settled_window(model)
        if settled is not None:
            return settled
        window = self._endpoint_windows.get(model) or self._reported_windows.get(
            (self.settings.base_url, model)
        )
        return ContextInfo(window, "endpoint") if window else None

    def _settled_window(self, model: str) -> ContextInfo | None:
        """The configured window, or one a context error taught (the smaller wins); None: neither."""
        s = self.settings
        learned = self.context_cache.get(model, s.base_url)
        if s.context_length > 0:
            if learned is not None and learned < s.context_length:
                return ContextInfo(learned, "learned")
            return ContextInfo(s.context_length, "config")
        if learned is not None:
            return ContextInfo(learned, "learned")
        return None

    async def learn_context_limit(self, model: str, error_text: str) -> tuple[int, int, bool]:
        """After a context error: the window now assumed, the one before, and whether the error named it."""
        previous = (await self.context_length(model)).tokens
        limit = step_down(previous, error_text)
        parsed = parse_context_limit(error_text) is not None
        with contextlib.suppress(WriteError):  # the cache is a convenience; memory still has it
            self.context_cache.remember(model, self.settings.base_url, limit)
        return limit, previous, parsed


class StreamCall:
    """One streamed call: an async iterator of chunks, with the reply so far in `.message`.

    After a `RetryChunk` the reply starts over (what was streamed before it is void). When the
    consuming task is cancelled, the HTTP stream is closed and `.message` keeps the partial reply.
    """

    def __init__(
        self,
        client: LLMClient,
        messages: list[dict[str, Any]],
        model: str | None,
        options: dict[str, Any],
        on_retry: RetryCallback | None,
    ) -> None:
        self.client = client
        self.messages = messages
        self.model = model or client.settings.model
        self.options = options
        self.on_retry = on_retry
        self.attempts = 0
        self.retries: list[RetryChunk] = []
        self.switches: list[FallbackChunk] = []  # the providers this call left, as their notices
        self.request: dict[str, Any] = {}
        self._assembler = MessageAssembler()
        self._iterator: AsyncIterator[Chunk] | None = None

    @property
    def message(self) -> AssistantMessage:
        """The reply assembled so far: complete after a `FinishChunk`, partial if interrupted."""
        return self._assembler.message()

    def __aiter__(self) -> AsyncIterator[Chunk]:
        if self._iterator is None:
            self._iterator = self._run()
        return self._iterator

    async def collect(self) -> AssistantMessage:
        """Drain the stream and return the finished message."""
        async for _chunk in self:
            pass
        return self.message

    async def aclose(self) -> None:
        """Stop early (e.g. the user interrupted): the connection is closed, `.message` is kept."""
        if self._iterator is not None:
            await self._iterator.aclose()  # type: ignore[attr-defined]

    async def __aenter__(self) -> StreamCall:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def _run(self) -> AsyncIterator[Chunk]:
        client = self.client
        if not self.model:
            self.model = await client.resolve_model()
        self.request = client.request_body(self.messages, self.model, self.options)
        built_for = client.settings
        loop = asyncio.get_running_loop()
        while True:
            s = client.settings
            if s is not built_for:  # the client went on with a fallback provider (this call or another)
                self.model = s.model
                self.request = client.request_body(self.messages, self.model, self.options)
                built_for = s
            self.attempts += 1
            self._assembler.reset()
            reader: SSEReader | None = None
            notice: RetryChunk | FallbackChunk
            try:
                deadline = loop.time() + s.request_timeout
                stall_at = loop.time() + s.stale_timeout
                async with asyncio.timeout_at(min(deadline, stall_at)):
                    reader = SSEReader(await client.open_stream(self.request))
                while True:
                    chunk = reader.pop()
                    if chunk is None:
                        if reader.ended:
                            break
                        # No yield inside the timeout: it must never fire while the consumer runs.
                        async with asyncio.timeout_at(min(deadline, loop.time() + s.stale_timeout)):
                            await reader.fill()
                        continue
                    for out in self._assembler.feed(chunk):
                        yield out
                if reader.done:
                    await reader.drain()
                    self._assembler.infer_finish()  # [DONE] is an explicit end, even without a reason
                if not self._assembler.finished:
                    raise StreamDropped("the stream ended before the model finished its reply")
            except TimeoutError as exc:
                if self._assembler.finished:
                    break  # only the usage chunk was missing
                stalled = loop.time() < deadline - 0.001
                failure = (
                    classify(StreamStalled(f"no data for {s.stale_timeout:g} s"), s.stale_timeout)
                    if stalled
                    else Failure("timeout", f"the {s.request_timeout:g} s time limit", "", True)
                )
                notice = await self._failed(failure, exc)
            except (asyncio.CancelledError, GeneratorExit):
                raise
            except Exception as exc:
                if self._assembler.finished:
                    break  # the reply was whole; the connection died on the way out
                notice = await self._failed(classify(exc, s.stale_timeout), exc)
            else:
                break
            finally:
                if reader is not None:
                    await reader.close()
            if isinstance(notice, FallbackChunk):
                await client.switch_to_fallback(notice.reason, s)
                self.attempts = 0
                self.switches.append(notice)
                yield notice
                continue
            yield notice
            await asyncio.sleep(notice.delay)
        yield FinishChunk(self.message)

    async def _failed(self, failure: Failure, exc: BaseException) -> RetryChunk | FallbackChunk:
        """The retry to make, the fallback provider to go on with, or raise the error that ends the call."""
        s = self.client.settings
        if failure.kind == "context_length":
            limit, previous, parsed = await self.client.learn_context_limit(self.model, failure.detail)
            was = f" (was {previous:,})" if previous != limit else ""  # the same limit, met again
            message = (
                f"The conversation no longer fits the context window of {self.model} "
                f"(the endpoint said: {failure.detail}); assuming {limit:,} tokens from now on{was}. "
                "Compress the conversation and try again."
            )
            raise ContextLengthError(
                message, limit=limit, previous=previous, parsed=parsed, status=failure.status
            ) from exc
        said = f": {failure.detail}" if failure.detail and failure.detail != failure.reason else ""
        where = f"{self.model} at {s.base_url}, attempt {self.attempts} of {s.max_retries + 1}"
        spent = not failure.retryable or self.attempts > s.max_retries
        # A connection that is refused goes to the next provider at once; the others after the retries.
        if (
            failure.kind in FALLBACK_KINDS
            and (spent or failure.kind == "connection")
            and self.client.fallbacks
        ):
            nxt = self.client.fallbacks[0]
            tries = f" after {self.attempts} tries" if self.attempts > 1 else ""
            text = (
                f"The call to {describe(s)} failed ({failure.reason}{tries}); going on with {describe(nxt)} "
                "for the rest of this session"
            )
            log.warning(
                "model call failed (%s): %s%s; switching to %s", where, failure.reason, said, describe(nxt)
            )
            return FallbackChunk(
                text=text,
                failed=describe(s),
                now=describe(nxt),
                provider=provider_label(nxt),
                reason=failure.reason,
            )
        if spent:
            message = final_message(failure, s.base_url, self.model, self.attempts, s.max_retries)
            if self.client.given_up:
                message += (
                    f" Before it, {' and '.join(self.client.given_up)} failed; no fallback provider is left."
                )
            log.warning("model call failed for good (%s): %s%s", where, failure.reason, said)
            raise LLMError(message, kind=failure.kind, status=failure.status, attempts=self.attempts) from exc
        backoff = s.retry_base_delay * 2 ** (self.attempts - 1)
        delay = failure.retry_after if failure.retry_after is not None else backoff
        wait = min(delay, s.retry_max_delay)
        log.warning("model call failed (%s): %s%s; retrying in %.1f s", where, failure.reason, said, wait)
        notice = RetryChunk(
            attempt=self.attempts,
            max_retries=s.max_retries,
            delay=min(delay, s.retry_max_delay),
            reason=failure.reason,
            status=failure.status,
        )
        self.retries.append(notice)
        if self.on_retry is not None:
            self.on_retry(notice)
        return notice
