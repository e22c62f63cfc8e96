"""Which endpoint, model and key a client uses, read from config (`model.*`, `auxiliary.*`, `agent.*`)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from urllib.parse import urlparse

from engine.config import Config

PLACEHOLDER_KEY = "no-key"  # the openai client insists on some key; local servers ignore it

# Well-known endpoints by provider name, and the key variable each one reads.
PROVIDER_URLS = {
    "openrouter": "https://openrouter.ai/api/v1",
    "openai": "https://api.openai.com/v1",
    "anthropic": "https://api.anthropic.com/v1",
    "ollama": "http://localhost:11434/v1",
    "lmstudio": "http://localhost:1234/v1",
}
HOST_KEYS = {
    "openrouter.ai": "OPENROUTER_API_KEY",
    "api.openai.com": "OPENAI_API_KEY",
    "api.anthropic.com": "ANTHROPIC_API_KEY",
    "generativelanguage.googleapis.com": "GEMINI_API_KEY",
    "api.deepseek.com": "DEEPSEEK_API_KEY",
    "api.mistral.ai": "MISTRAL_API_KEY",
    "api.groq.com": "GROQ_API_KEY",
    "api.together.xyz": "TOGETHER_API_KEY",
    "ollama.com": "OLLAMA_API_KEY",
}
# Tried in order when the endpoint is not one we know (Hermes reads the same names).
GENERIC_KEYS = ("OPENROUTER_API_KEY", "OPENAI_API_KEY", "LLM_API_KEY", "LM_API_KEY")
LOCAL_HOSTS = {"localhost", "127.0.0.1", "::1", "0.0.0.0"}


class SettingsError(Exception):
    """The model endpoint cannot be determined; the message says which setting to add."""


@dataclass(frozen=True)
class ModelSettings:
    """Everything a client needs for one endpoint and model; built from config or by hand in tests."""

    base_url: str
    model: str = ""
    api_key: str = PLACEHOLDER_KEY
    context_length: int = 0  # 0: ask the endpoint, then `fallback_context_length`
    fallback_context_length: int = 128_000
    max_tokens: int = 0
    request_timeout: float = 600.0
    stale_timeout: float = 300.0
    connect_timeout: float = 15.0
    max_retries: int = 3
    retry_base_delay: float = 1.0
    retry_max_delay: float = 60.0
    prompt_caching: bool = True
    cache_ttl: str = "5m"
    reasoning_effort: str = ""
    provider: str = ""  # the provider's name when config gives one (not auto/custom): shown with usage

    @property
    def host(self) -> str:
        return (urlparse(self.base_url).hostname or "").lower()

    @property
    def is_local(self) -> bool:
        return self.host in LOCAL_HOSTS

    @property
    def cache_markers(self) -> str | None:
        """`native` (Anthropic's API), `openrouter` (Claude through OpenRouter), or None: send nothing."""
        if not self.prompt_caching:
            return None
        if self.host == "api.anthropic.com" or self.host.endswith(".anthropic.com"):
            return "native"
        model = self.model.lower()
        if self.host == "openrouter.ai" and (model.startswith("anthropic/") or "claude" in model):
            return "openrouter"
        return None

    def with_model(self, model: str) -> ModelSettings:
        return replace(self, model=model)


def _base_url(config: Config, given: str, provider: str) -> str:
    if given:
        return given.rstrip("/")
    if provider in PROVIDER_URLS:
        return PROVIDER_URLS[provider]
    if config.secret("OPENROUTER_API_KEY"):
        return PROVIDER_URLS["openrouter"]
    if config.secret("OPENAI_API_KEY"):
        return PROVIDER_URLS["openai"]
    raise SettingsError(
        "No model endpoint is configured: set `model.base_url` in config.yaml (any OpenAI-compatible "
        "URL, e.g. http://localhost:11434/v1), put OPENROUTER_API_KEY in .env, or run "
        "`hws model-server` and use the URL it prints."
    )


def resolve_api_key(config: Config, base_url: str, given: str = "", env_name: str = "") -> str:
    """The key: `api_key`, else the variable named by `api_key_env`, else the usual `*_API_KEY`."""
    if given:
        return given
    if env_name:
        found = config.secret(env_name)
        if found:
            return found
    host = (urlparse(base_url).hostname or "").lower()
    if host in LOCAL_HOSTS:
        return PLACEHOLDER_KEY
    names = [HOST_KEYS[host]] if host in HOST_KEYS else list(GENERIC_KEYS)
    for name in names:
        found = config.secret(name)
        if found:
            return found
    return PLACEHOLDER_KEY


def model_settings(config: Config) -> ModelSettings:
    """The main model's settings."""
    model = config.model
    base_url = _base_url(config, str(model.base_url), str(model.provider))
    return ModelSettings(
        base_url=base_url,
        model=config.model_name,
        api_key=resolve_api_key(config, base_url, str(model.api_key), str(model.api_key_env)),
        context_length=int(model.context_length),
        fallback_context_length=int(model.fallback_context_length),
        max_tokens=int(model.max_tokens),
        request_timeout=float(model.request_timeout),
        stale_timeout=float(model.stale_timeout),
        connect_timeout=float(model.connect_timeout),
        max_retries=int(config.agent.api_max_retries),
        retry_base_delay=float(config.agent.retry_base_delay),
        retry_max_delay=float(config.agent.retry_max_delay),
        prompt_caching=bool(config.prompt_caching.enabled),
        cache_ttl=str(config.prompt_caching.cache_ttl),
        reasoning_effort=str(config.agent.reasoning_effort),
        provider=provider_name(str(model.provider)),
    )


def provider_name(provider: str) -> str:
    """The configured provider name worth showing; `auto` and `custom` say nothing."""
    return "" if provider in ("", "auto", "custom") else provider


def auxiliary_settings(config: Config) -> ModelSettings:
    """The auxiliary model (summaries, background review, titles); each empty `auxiliary.*` uses the
    main one's, and `auxiliary.provider` may name another provider than the main model's."""
    main = model_settings(config)
    aux = config.auxiliary
    provider = str(aux.provider or "").strip()
    own_provider = provider not in ("", "auto", "main", "custom")
    base_url = str(aux.base_url).rstrip("/") or PROVIDER_URLS.get(provider, "")
    if own_provider and not base_url:
        raise SettingsError(
            f"auxiliary.provider `{provider}` is not a provider whose address hws knows "
            f"({', '.join(PROVIDER_URLS)}); set auxiliary.base_url."
        )
    base_url = base_url or main.base_url
    key = _section_key(config, main, base_url, str(aux.api_key or ""), str(aux.api_key_env or ""))
    timeout = float(aux.timeout)
    return replace(
        main,
        base_url=base_url,
        model=str(aux.model) or main.model,
        api_key=key,
        context_length=main.context_length if base_url == main.base_url and not aux.model else 0,
        request_timeout=timeout,
        stale_timeout=min(main.stale_timeout, timeout),
        provider=provider if own_provider else main.provider if base_url == main.base_url else "",
    )


def delegation_settings(config: Config, main: ModelSettings) -> ModelSettings | None:
    """The subagents' model when `delegation.*` names another one than `main` (the agent's), else None."""
    section = config.delegation
    if not (str(section.base_url) or str(section.model)):
        return None
    base_url = str(section.base_url).rstrip("/") or main.base_url
    key = _section_key(config, main, base_url, str(section.api_key or ""), str(section.api_key_env or ""))
    same_endpoint = base_url == main.base_url
    return replace(
        main,
        base_url=base_url,
        model=str(section.model) or main.model,
        api_key=key,
        context_length=main.context_length if same_endpoint and not section.model else 0,
        provider=main.provider if same_endpoint else "",
    )


def _section_key(config: Config, main: ModelSettings, base_url: str, given: str, env_name: str) -> str:
    """The key of a section that may name its own endpoint: its own key or variable, else the main
    model's key on the main endpoint, else the usual one for the host."""
    if given or env_name:
        return resolve_api_key(config, base_url, given, env_name)
    if base_url == main.base_url:
        return main.api_key
    return resolve_api_key(config, base_url)
