"""`/model NAME --provider P`: the `model.*` settings that put a session on provider P.

P is looked up, in order, among the endpoints config.yaml already names (the main model's provider,
then each `fallback_providers` entry, by its `provider` name or the host of its URL), then among the
providers whose address hws knows, and last as a base URL itself (`http://…/v1`). Keys are found
as the configured endpoint finds them: by the variable an entry names, else the usual one for the
host; a key is never copied from one provider to another.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.config import Config
from engine.llm.fallback import provider_label
from engine.llm.settings import PROVIDER_URLS, SettingsError, model_settings, provider_name


class ProviderNotFound(Exception):
    """No configured, known or literal endpoint answers to the name; the message lists the choices."""


@dataclass(frozen=True)
class ProviderChoice:
    """Where P points, and the `model` section settings that go there (this run only)."""

    label: str  # the provider's name, or the endpoint's host
    base_url: str
    settings: dict[str, Any]  # model.{provider, base_url, api_key, api_key_env}
    configured: str  # "main", "fallback N", "known" or "url": where the name was found
    model: str = ""  # the model config.yaml names for this endpoint ("" for a known provider or a URL)


Configured = tuple[str, str, dict[str, Any], str]


def configured_providers(config: Config) -> list[Configured]:
    """(label, where, model settings, model) of each endpoint config.yaml names: the main one, then the
    fallbacks."""
    found: list[Configured] = []
    model = config.model
    try:
        main = model_settings(config)
    except SettingsError:
        main = None
    if main is not None:
        own = {key: model.get(key) for key in ("provider", "base_url", "api_key", "api_key_env")}
        found.append((provider_label(main), "main", own, config.model_name))
    for index, entry in enumerate(config.get("fallback_providers") or [], 1):
        if not isinstance(entry, dict):
            continue
        name = str(entry.get("provider") or "").strip()
        base_url = str(entry.get("base_url") or "").strip().rstrip("/") or PROVIDER_URLS.get(name, "")
        if not base_url:
            continue
        settings = {
            "provider": name or "custom",
            "base_url": base_url,
            "api_key": "",  # fallback entries never hold a key
            "api_key_env": str(entry.get("api_key_env") or "").strip(),
        }
        label = provider_name(name) or _host(base_url)
        found.append((label, f"fallback {index}", settings, str(entry.get("model") or "").strip()))
    return found


def choose_provider(config: Config, name: str) -> ProviderChoice:
    """The endpoint `name` stands for; ProviderNotFound (a sentence with the choices) when none does."""
    wanted = name.strip()
    configured = configured_providers(config)
    for label, where, settings, model in configured:
        base_url = str(settings.get("base_url") or "").rstrip("/")
        if wanted in (label, settings.get("provider"), base_url) and wanted not in ("auto", "custom"):
            url = base_url or (model_settings(config).base_url if where == "main" else "")
            return ProviderChoice(label, url, settings, where, model)
    if wanted in PROVIDER_URLS:
        url = PROVIDER_URLS[wanted]
        settings = {"provider": wanted, "base_url": url, "api_key": "", "api_key_env": ""}
        return ProviderChoice(wanted, url, settings, "known")
    if wanted.startswith(("http://", "https://")):
        url = wanted.rstrip("/")
        settings = {"provider": "custom", "base_url": url, "api_key": "", "api_key_env": ""}
        return ProviderChoice(_host(url), url, settings, "url")
    names = list(dict.fromkeys(label for label, *_ in configured))
    raise ProviderNotFound(
        f"`{wanted}` is not a provider hws knows: name one from config.yaml "
        f"({', '.join(names) or 'none yet'}), a known one ({', '.join(PROVIDER_URLS)}) or a base URL."
    )


def _host(url: str) -> str:
    from urllib.parse import urlparse

    return (urlparse(url).hostname or url).lower()
