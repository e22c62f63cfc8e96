"""Model-call failures: which are worth retrying, how long to wait, and the sentence the user reads."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from engine.llm.context import is_context_error
from engine.llm.sse import StreamErrorEvent

RETRYABLE_STATUS = {408, 409, 425, 429}


class LLMError(Exception):
    """A model call that failed for good; `str()` is a sentence saying what happened and what to do."""

    def __init__(self, message: str, *, kind: str, status: int | None = None, attempts: int = 1) -> None:
        super().__init__(message)
        self.message = message
        self.kind = kind
        self.status = status
        self.attempts = attempts

    @property
    def retryable(self) -> bool:
        """Whether the failure was of a kind that passes (the retries ran out), not a refusal."""
        return self.kind in ("rate_limit", "server", "timeout", "stalled", "dropped", "connection")


class ContextLengthError(LLMError):
    """The prompt did not fit; `limit` is the window now assumed (learned and remembered)."""

    def __init__(self, message: str, *, limit: int, previous: int, parsed: bool, status: int | None) -> None:
        super().__init__(message, kind="context_length", status=status)
        self.limit = limit
        self.previous = previous
        self.parsed = parsed


class StreamStalled(Exception):
    """No data arrived for `model.stale_timeout` seconds."""


class StreamDropped(Exception):
    """The stream ended before the reply was complete (no finish reason)."""


@dataclass(frozen=True)
class Failure:
    """One failed attempt, classified."""

    kind: str  # rate_limit | server | timeout | stalled | dropped | connection | context_length | auth | ...
    reason: str  # short, for the retry line: "HTTP 500", "stalled for 300 s"
    detail: str  # the provider's own words, if any
    retryable: bool
    status: int | None = None
    retry_after: float | None = None


def provider_message(body: Any, fallback: str) -> str:
    """The human part of an error body (`{"error": {"message": ...}}` and its variants)."""
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict):
            message = error.get("message") or error.get("detail")
            if isinstance(message, str) and message:
                return message
            metadata = error.get("metadata")
            if isinstance(metadata, dict) and isinstance(metadata.get("raw"), str):
                return metadata["raw"]
        elif isinstance(error, str) and error:
            return error
    if isinstance(body, str) and body:
        return body[:500]
    return fallback


def retry_after_seconds(headers: Any) -> float | None:
    """Seconds the server asked us to wait (`retry-after-ms`, `retry-after` as seconds or a date)."""
    if headers is None:
        return None
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    import email.utils  # only for the rare HTTP-date form; it costs ~10 ms to import

    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def classify(exc: BaseException, stale_timeout: float) -> Failure:
    """Sort an exception from a model call into a `Failure` (imports openai: only call after a call)."""
    import httpx2
    import openai

    if isinstance(exc, StreamStalled):
        return Failure("stalled", f"no data for {stale_timeout:g} s", str(exc), True)
    if isinstance(exc, StreamDropped):
        return Failure("dropped", "a stream that ended early", str(exc), True)
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        detail = provider_message(exc.body, exc.message)
        after = retry_after_seconds(exc.response.headers)
        if status in (400, 413, 422) and is_context_error(detail):
            return Failure("context_length", f"HTTP {status}", detail, False, status)
        if status == 429:
            return Failure("rate_limit", "HTTP 429 (rate limited)", detail, True, status, after)
        if status >= 500 or status in RETRYABLE_STATUS:
            return Failure("server", f"HTTP {status}", detail, True, status, after)
        if status in (401, 403):
            return Failure("auth", f"HTTP {status}", detail, False, status)
        if status == 404:
            return Failure("not_found", "HTTP 404", detail, False, status)
        if status == 402:
            return Failure("payment", "HTTP 402", detail, False, status)
        return Failure("bad_request", f"HTTP {status}", detail, False, status)
    if isinstance(exc, StreamErrorEvent):
        detail = provider_message(exc.body, str(exc))
        if is_context_error(detail):
            return Failure("context_length", "an error in the stream", detail, False)
        return Failure("server", "an error in the stream", detail, True)
    if isinstance(exc, httpx2.TimeoutException):
        return Failure("timeout", "a timeout", f"{type(exc).__name__}: {exc}", True)
    if isinstance(exc, httpx2.TransportError):  # raised while reading the body: the stream broke
        return Failure("dropped", "a stream that broke off", f"{type(exc).__name__}: {exc}", True)
    if isinstance(exc, openai.APITimeoutError | TimeoutError):
        return Failure("timeout", "a timeout", str(exc) or "the request timed out", True)
    if isinstance(exc, openai.APIConnectionError):
        cause = exc.__cause__ or exc.__context__
        detail = f"{exc.message} ({cause})" if cause else exc.message
        return Failure("connection", "a connection error", detail, True)
    if isinstance(exc, openai.APIError):  # an error event inside the stream
        detail = provider_message(exc.body, exc.message)
        if is_context_error(detail):
            return Failure("context_length", "an error in the stream", detail, False)
        return Failure("server", "an error in the stream", detail, True)
    if isinstance(exc, json.JSONDecodeError | ValueError):
        return Failure("dropped", "a garbled stream", str(exc), True)
    return Failure("unexpected", type(exc).__name__, str(exc), False)


def final_message(failure: Failure, base_url: str, model: str, attempts: int, max_retries: int) -> str:
    """The sentence shown when a call fails for good."""
    where = f"{model or 'the model'} at {base_url}"
    detail = f" ({failure.detail})" if failure.detail else ""
    tries = f" on all {attempts} tries" if attempts > 1 else ""
    advice = {
        "rate_limit": "wait a minute, or raise agent.api_max_retries.",
        "server": "the provider may be down; try again later.",
        "timeout": "check the endpoint, or raise model.request_timeout.",
        "stalled": "the endpoint stopped sending; try again, or raise model.stale_timeout.",
        "dropped": "the connection dropped mid-reply; try again.",
        "connection": "check that the endpoint is running and model.base_url is right.",
        "auth": "check model.api_key (or the *_API_KEY variable in .env).",
        "not_found": "check model.base_url and the model name (model.default).",
        "payment": "the provider wants payment or credits on the account.",
        "bad_request": "the endpoint refused the request as sent.",
    }.get(failure.kind, "see the detail above.")
    if failure.retryable and max_retries == 0:
        advice = "retries are off (agent.api_max_retries: 0); " + advice
    return f"The call to {where} failed{tries} with {failure.reason}{detail}; {advice}"
