"""Choosing a model: the provider choices, writing them to config.yaml (and the key to .env), and a
tiny request that proves the endpoint answers.

Shared by `hws setup` (terminal prompts or flags) and the workstation's first-run setup screen, so
both write the same settings and explain a failing endpoint with the same sentence.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from engine.config import Config, ConfigError, load_config
from engine.config_edit import CONFIG_HEADER, ConfigEditError, set_env_value, update_config

if TYPE_CHECKING:
    from engine.home import Home
    from engine.llm.settings import ModelSettings

KEY_FROM_ENV, KEY_FROM_DOTENV, KEY_NONE = "env", "dotenv", "none"
KEY_KEEP = "keep"  # the key already written as model.api_key: saving leaves it as it is
PROBE_MESSAGE = "Reply with the single word OK."
RETRIES_OFF = "retries are off (agent.api_max_retries: 0); "


@dataclass(frozen=True)
class Provider:
    """One way to reach a model: where it answers, the key variable it reads, and an example model."""

    id: str
    label: str
    base_url: str  # empty: the user gives one
    key_env: str  # empty: no key needed (a local server)
    example_model: str
    note: str = ""

    @property
    def needs_key(self) -> bool:
        return bool(self.key_env)


PROVIDERS: tuple[Provider, ...] = (
    Provider("openai", "OpenAI", "https://api.openai.com/v1", "OPENAI_API_KEY", "gpt-4.1-mini"),
    Provider(
        "openrouter",
        "OpenRouter",
        "https://openrouter.ai/api/v1",
        "OPENROUTER_API_KEY",
        "anthropic/claude-sonnet-4",
        "hundreds of models behind one key",
    ),
    Provider(
        "anthropic",
        "Anthropic-compatible endpoint",
        "https://api.anthropic.com/v1",
        "ANTHROPIC_API_KEY",
        "claude-sonnet-4-5",
        "Anthropic's OpenAI-compatible API, or another URL that speaks it",
    ),
    Provider(
        "ollama", "Ollama", "http://localhost:11434/v1", "", "qwen3:8b", "`ollama serve` on this machine"
    ),
    Provider(
        "llamacpp",
        "llama.cpp server",
        "http://localhost:8080/v1",
        "",
        "local",
        "`llama-server -m MODEL.gguf`",
    ),
    Provider("vllm", "vLLM", "http://localhost:8000/v1", "", "Qwen/Qwen3-8B", "`vllm serve MODEL`"),
    Provider("custom", "Custom base URL", "", "", "", "any OpenAI-compatible /v1 endpoint"),
)
PROVIDER_IDS = tuple(p.id for p in PROVIDERS)


def provider(provider_id: str) -> Provider:
    for choice in PROVIDERS:
        if choice.id == provider_id:
            return choice
    raise SetupError(f"Unknown provider {provider_id!r}; choose one of {', '.join(PROVIDER_IDS)}.")


class SetupError(Exception):
    """The choice cannot be written; one sentence saying why and what to do."""


@dataclass(frozen=True)
class ModelChoice:
    """What the user chose. `key_source`: env (a variable already set), dotenv (write it to .env), none."""

    provider: str
    model: str
    base_url: str = ""
    key_source: str = KEY_NONE
    key_env: str = ""
    key_value: str = ""  # only with dotenv; never written to config.yaml

    def resolved_base_url(self) -> str:
        return (self.base_url or provider(self.provider).base_url).rstrip("/")

    def validate(self) -> None:
        if not self.model.strip():
            raise SetupError("Give the model name (for example " + _example(self.provider) + ").")
        url = self.resolved_base_url()
        if not url.startswith(("http://", "https://")):
            raise SetupError(f"The base URL must start with http:// or https://, not {url or 'nothing'!r}.")
        if self.key_source not in (KEY_FROM_ENV, KEY_FROM_DOTENV, KEY_NONE, KEY_KEEP):
            raise SetupError(f"The key comes from env, dotenv or none, not {self.key_source!r}.")
        if self.key_source in (KEY_FROM_ENV, KEY_FROM_DOTENV) and not self.key_env.strip():
            raise SetupError("Name the variable that holds the key (for example OPENROUTER_API_KEY).")
        if self.key_source == KEY_FROM_DOTENV and not self.key_value.strip():
            raise SetupError("Paste the key to keep in .env (or choose the environment instead).")


def _example(provider_id: str) -> str:
    try:
        return provider(provider_id).example_model or "the name your server lists"
    except SetupError:
        return "the name your server lists"


def current_choice(config: Config) -> ModelChoice | None:
    """The model settings `config` holds now, as the setup form shows them (None: no model yet).

    Saving this choice unchanged writes the same settings: a key written into config.yaml is kept,
    a key found through a variable is named by that variable.
    """
    from urllib.parse import urlparse

    from engine.llm.settings import GENERIC_KEYS, HOST_KEYS, LOCAL_HOSTS, SettingsError, model_settings

    model = config.model
    if not config.model_name:
        return None
    try:
        base_url = model_settings(config).base_url
    except SettingsError:
        base_url = str(model.base_url or "")
    base_url = base_url.rstrip("/")
    chosen = _provider_of(str(model.provider or ""), base_url)
    host = (urlparse(base_url).hostname or "").lower()
    if model.api_key:
        key_source, key_env = KEY_KEEP, str(model.api_key_env or "")
    elif model.api_key_env:
        key_source, key_env = KEY_FROM_ENV, str(model.api_key_env)
    elif host in LOCAL_HOSTS:
        key_source, key_env = KEY_NONE, ""
    else:
        names = [HOST_KEYS[host]] if host in HOST_KEYS else list(GENERIC_KEYS)
        found = next((name for name in names if config.secret(name)), "")
        key_source, key_env = (KEY_FROM_ENV, found) if found else (KEY_FROM_ENV, chosen.key_env or names[0])
    return ModelChoice(
        provider=chosen.id,
        model=config.model_name,
        base_url=base_url,
        key_source=key_source,
        key_env=key_env,
    )


def _provider_of(provider_id: str, base_url: str) -> Provider:
    """The provider a config names, else the one whose endpoint it uses, else a custom URL."""
    for choice in PROVIDERS:
        if choice.id == provider_id:
            return choice
    for choice in PROVIDERS:
        if choice.base_url and choice.base_url.rstrip("/") == base_url:
            return choice
    return provider("custom")


@dataclass(frozen=True)
class WriteResult:
    config_path: str
    how: str  # created | edited | rewritten
    env_written: bool
    previous_text: str  # the config before, to put back if the user changes their mind


def write_choice(home: Home, choice: ModelChoice) -> WriteResult:
    """Write the choice to config.yaml (and the key to .env); the config must still load afterwards."""
    choice.validate()
    try:
        previous = home.config_file.read_text(encoding="utf-8") if home.config_file.exists() else ""
    except (OSError, UnicodeDecodeError):
        previous = ""
    values = {
        "provider": choice.provider,
        "default": choice.model.strip(),
        "base_url": choice.resolved_base_url(),
    }
    remove: tuple[str, ...] = ("model",)  # Hermes' alias of `default`
    if choice.key_source != KEY_KEEP:
        remove += ("api_key",)  # a literal key would win over the variable chosen now
        if choice.key_source == KEY_NONE:
            remove += ("api_key_env",)
        else:
            values["api_key_env"] = choice.key_env.strip()
    env_written = False
    try:
        if choice.key_source == KEY_FROM_DOTENV:
            set_env_value(home.env_file, choice.key_env.strip(), choice.key_value.strip())
            env_written = True
        how = update_config(home.config_file, "model", values, remove=remove, header=CONFIG_HEADER)
    except ConfigEditError as exc:
        raise SetupError(str(exc)) from exc
    try:
        load_config(home.root)
    except ConfigError as exc:
        raise SetupError(f"The settings were written but the config does not load: {exc}") from exc
    return WriteResult(str(home.config_file), how, env_written, previous)


def restore_config(home: Home, previous_text: str) -> None:
    """Put config.yaml back as it was before `write_choice` (an empty text removes the file)."""
    from engine.storage.atomic import atomic_write_text, file_lock

    with file_lock(home.config_file):
        if previous_text:
            atomic_write_text(home.config_file, previous_text)
        else:
            home.config_file.unlink(missing_ok=True)


@dataclass(frozen=True)
class EndpointCheck:
    ok: bool
    message: str
    seconds: float = 0.0
    reply: str = ""


def check_endpoint(config: Config, timeout: float | None = None) -> EndpointCheck:
    """One tiny chat request to the configured model, without retries; its outcome as a sentence."""
    return asyncio.run(check_endpoint_async(config, timeout))


async def check_endpoint_async(config: Config, timeout: float | None = None) -> EndpointCheck:
    from engine.llm.settings import SettingsError, model_settings

    try:
        settings = model_settings(config)
    except SettingsError as exc:
        return EndpointCheck(False, str(exc))
    if not settings.model:
        return EndpointCheck(False, "No model name is set (model.default); `hws setup` sets one.")
    return await check_settings_async(config, settings, timeout)


def check_settings(config: Config, settings: ModelSettings, timeout: float | None = None) -> EndpointCheck:
    """`check_endpoint` for an endpoint given by its settings (a fallback provider)."""
    return asyncio.run(check_settings_async(config, settings, timeout))


async def check_settings_async(
    config: Config, settings: ModelSettings, timeout: float | None = None
) -> EndpointCheck:
    from dataclasses import replace

    from engine.llm.direct import DirectLLMClient
    from engine.llm.errors import LLMError

    limit = float(timeout if timeout is not None else config.setup.check_timeout)
    settings = replace(
        settings,
        max_retries=0,
        request_timeout=limit,
        stale_timeout=limit,
        connect_timeout=min(limit, float(settings.connect_timeout)),
    )
    client = DirectLLMClient(settings)
    started = time.monotonic()
    try:
        reply = await client.complete(
            [{"role": "user", "content": PROBE_MESSAGE}], max_tokens=int(config.setup.check_max_tokens)
        )
    except LLMError as exc:
        message = exc.message.replace(RETRIES_OFF, "")  # the check never retries; that is not the problem
        return EndpointCheck(False, message, time.monotonic() - started)
    except Exception as exc:  # anything else is still a sentence, never a traceback
        return EndpointCheck(
            False, f"The check failed: {type(exc).__name__}: {exc}", time.monotonic() - started
        )
    finally:
        await client.aclose()
    seconds = time.monotonic() - started
    text = (reply.content or reply.reasoning or "").strip()
    where = f"{settings.model} at {settings.base_url}"
    return EndpointCheck(True, f"{where} answered in {seconds:.1f} s.", seconds, text[:80])
