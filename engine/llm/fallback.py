"""`fallback_providers` (Hermes' shape): the endpoints a session goes on with when its provider fails.

    fallback_providers:
      - provider: openrouter            # a known name gives the base URL and the usual key variable
        model: anthropic/claude-sonnet-4
      - provider: custom
        model: qwen3
        base_url: http://localhost:11434/v1
        api_key_env: LOCAL_LLM_KEY      # the name of the variable (environment or .env), never the key

Each entry inherits the main model's timeouts and retry budget. The key is looked up by its
variable name only; a literal key in config.yaml is refused, so none is ever written, logged or shown.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any

from engine.config import Config
from engine.llm.settings import (
    PLACEHOLDER_KEY,
    PROVIDER_URLS,
    ModelSettings,
    SettingsError,
    provider_name,
    resolve_api_key,
)

log = logging.getLogger(__name__)

ENTRY_KEYS = ("provider", "model", "base_url", "api_key_env")
# Failures that move a call to the next provider: a refused or broken connection at once, a
# rate limit or a server error once the retry budget is spent. Refusals (400, 401, 404) do not:
# another provider would not make a wrong request right.
FALLBACK_KINDS = frozenset({"connection", "rate_limit", "server"})


def provider_label(settings: ModelSettings) -> str:
    """The provider's name as a person knows it: the configured name, else the endpoint's host."""
    return settings.provider or settings.host or settings.base_url


def describe(settings: ModelSettings) -> str:
    """`model at base_url`, as the notices and errors name an endpoint."""
    return f"{settings.model or 'the model'} at {settings.base_url}"


def fallback_settings(config: Config, main: ModelSettings) -> tuple[ModelSettings, ...]:
    """The configured fallbacks, in order, each as a complete `ModelSettings` built on the main one's."""
    entries = config.get("fallback_providers") or []
    built = (_entry_settings(config, main, entry, index) for index, entry in enumerate(entries, 1))
    # After `/model --provider` chose one of them, that one is the main model: it is no fallback of itself.
    return tuple(s for s in built if (s.base_url, s.model) != (main.base_url, main.model))


def _entry_settings(config: Config, main: ModelSettings, entry: Any, index: int) -> ModelSettings:
    where = f"fallback_providers entry {index}"
    if not isinstance(entry, dict):
        raise SettingsError(
            f"{where} must be a mapping with `provider`, `model` and `base_url` or a known provider."
        )
    unknown = sorted(str(key) for key in entry if key not in ENTRY_KEYS)
    if "api_key" in unknown:
        raise SettingsError(
            f"{where} holds a literal `api_key`; put the key in .env and name its variable in `api_key_env`."
        )
    if unknown:  # maybe Hermes' own (it may grow its entries); read past, as other Hermes settings are
        log.warning("%s: %s not read by hws (it reads %s)", where, ", ".join(unknown), ", ".join(ENTRY_KEYS))
    provider = str(entry.get("provider") or "").strip()
    model = str(entry.get("model") or "").strip()
    base_url = str(entry.get("base_url") or "").strip().rstrip("/") or PROVIDER_URLS.get(provider, "")
    if not model:
        raise SettingsError(f"{where} names no `model`.")
    if not base_url:
        raise SettingsError(
            f"{where} needs a `base_url`: `{provider or 'custom'}` is not a provider whose address hws knows "
            f"({', '.join(PROVIDER_URLS)})."
        )
    key_name = str(entry.get("api_key_env") or "").strip()
    # A named variable that is not set gives no key rather than another provider's.
    api_key = (config.secret(key_name) or PLACEHOLDER_KEY) if key_name else resolve_api_key(config, base_url)
    return replace(
        main,
        base_url=base_url,
        model=model,
        api_key=api_key,
        provider=provider_name(provider),
        context_length=0,  # the main model's window says nothing about this one's
    )
