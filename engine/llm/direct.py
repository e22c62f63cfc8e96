"""A client that posts through `httpx2` directly, so a one-shot process never imports `openai`.

`import openai` costs 0.6 s on an idle machine and over 1 s on a busy one (its `types` package
builds some 650 pydantic models), which alone breaks `hws run`'s one-second budget. The SDK's
transport is `httpx2` underneath; this client uses it the same way (base URL, bearer key, the
same timeouts, OpenRouter's app headers) and keeps everything else of `LLMClient`: the SSE
reader, the retries, the stall checks, the context-length handling. On a failure it imports
`openai` after all and raises the SDK's own exception types, so `classify` (and therefore every
retry decision and error sentence) is exactly the SDK path's.
"""

from __future__ import annotations

import json
from typing import Any

from engine.llm.client import APP_HEADERS, MODELS_TIMEOUT, LLMClient
from engine.llm.errors import LLMError, classify, final_message

USER_AGENT = "hermes-workstation/0.1"


class DirectLLMClient(LLMClient):
    """`LLMClient` with its two HTTP calls (`/chat/completions`, `/models`) made by `httpx2` alone."""

    _http: Any = None

    def http_client(self) -> Any:
        if self._http is None:
            import httpx2

            s = self.settings
            timeout = httpx2.Timeout(
                s.request_timeout, connect=s.connect_timeout, read=s.stale_timeout + 1, pool=s.connect_timeout
            )
            headers = {"Authorization": f"Bearer {s.api_key}", "User-Agent": USER_AGENT}
            if s.host == "openrouter.ai":
                headers.update(APP_HEADERS)
            # Plain http needs no certificates: loading the CA bundle costs ~50 ms a process.
            verify = not s.base_url.startswith("http://")
            self._http = httpx2.AsyncClient(
                base_url=s.base_url.rstrip("/") + "/", timeout=timeout, headers=headers, verify=verify
            )
        return self._http

    async def aclose(self) -> None:
        if self._http is not None:
            await self._http.aclose()
            self._http = None
        await super().aclose()

    async def open_stream(self, body: dict[str, Any]) -> Any:
        """POST the body and return the unread event-stream response; HTTP errors raise as the SDK's."""
        body = dict(body)
        extra = body.pop("extra_body", None) or {}
        body.update(extra)
        client = self.http_client()
        request = client.build_request(
            "POST",
            "chat/completions",
            content=json.dumps(body, ensure_ascii=False).encode("utf-8"),
            headers={"Content-Type": "application/json", "Accept": "text/event-stream"},
        )
        response = await self._send(client, request)
        if response.status_code >= 400:
            await _raise_status_error(response)
        return response

    async def list_models(self) -> list[dict[str, Any]]:
        if self._models is None:
            client = self.http_client()
            request = client.build_request(
                "GET", "models", timeout=min(MODELS_TIMEOUT, self.settings.request_timeout)
            )
            try:
                response = await self._send(client, request, stream=False)
                if response.status_code >= 400:
                    await _raise_status_error(response)
                data = response.json().get("data")
            except Exception as exc:
                failure = classify(exc, self.settings.stale_timeout)
                message = final_message(failure, self.settings.base_url, "/models", 1, 0)
                raise LLMError(message, kind=failure.kind, status=failure.status) from exc
            self._models = [dict(entry) for entry in data or () if isinstance(entry, dict)]
        return self._models

    @staticmethod
    async def _send(client: Any, request: Any, stream: bool = True) -> Any:
        import httpx2

        try:
            return await client.send(request, stream=stream)
        except httpx2.TimeoutException:
            raise  # `classify` reads these directly
        except httpx2.TransportError as exc:  # no connection at all, as the SDK reports it
            import openai

            raise openai.APIConnectionError(request=request) from exc


async def _raise_status_error(response: Any) -> None:
    """Read an error response and raise the SDK's `APIStatusError` for it."""
    import openai

    raw = await response.aread()
    await response.aclose()
    text = raw.decode("utf-8", errors="replace")
    try:
        body: Any = json.loads(text) if text else None
    except ValueError:
        body = text
    error = body.get("error", body) if isinstance(body, dict) else body
    raise openai.APIStatusError(
        f"Error code: {response.status_code} - {error}", response=response, body=error
    )
