"""`hws setup --add-fallback`: one more entry in `fallback_providers`, the providers a session goes on
with when its own fails, checked with the same tiny request as the main model.

The entry is Hermes' shape (provider, model, base_url, api_key_env). A key typed in goes to the
home's `.env` under the variable the entry names; config.yaml never holds it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.cli.model_setup import (
    KEY_FROM_DOTENV,
    KEY_FROM_ENV,
    EndpointCheck,
    ModelChoice,
    SetupError,
    check_settings,
)
from engine.config import Config, ConfigError, load_config
from engine.config_edit import CONFIG_HEADER, ConfigEditError, append_list_item, set_env_value

if TYPE_CHECKING:
    from engine.home import Home
    from engine.llm.settings import ModelSettings


def fallback_entry(choice: ModelChoice) -> dict[str, Any]:
    """The `fallback_providers` entry for a choice (its key named by its variable, never written)."""
    entry: dict[str, Any] = {
        "provider": choice.provider,
        "model": choice.model.strip(),
        "base_url": choice.resolved_base_url(),
    }
    if choice.key_source in (KEY_FROM_ENV, KEY_FROM_DOTENV):
        entry["api_key_env"] = choice.key_env.strip()
    return entry


def add_fallback(home: Home, choice: ModelChoice) -> tuple[str, int]:
    """Append the choice to `fallback_providers` (its key to .env); how the file was written, and the
    entry's number. The config must still load afterwards."""
    choice.validate()
    entry = fallback_entry(choice)
    try:
        config = load_config(home.root)
    except ConfigError as exc:
        raise SetupError(f"config.yaml does not load, so nothing was added: {exc}") from exc
    entries = [e for e in config.get("fallback_providers") or [] if isinstance(e, dict)]
    same = (entry["base_url"], entry["model"])
    if any((str(e.get("base_url") or "").rstrip("/"), e.get("model")) == same for e in entries):
        raise SetupError(f"{entry['model']} at {entry['base_url']} is a fallback provider already.")
    if (str(config.model.base_url or "").rstrip("/"), config.model_name) == same:
        raise SetupError(f"{entry['model']} at {entry['base_url']} is the main model; choose another one.")
    try:
        if choice.key_source == KEY_FROM_DOTENV:
            set_env_value(home.env_file, choice.key_env.strip(), choice.key_value.strip())
        how = append_list_item(home.config_file, "fallback_providers", entry, header=CONFIG_HEADER)
    except ConfigEditError as exc:
        raise SetupError(str(exc)) from exc
    try:
        load_config(home.root)
    except ConfigError as exc:
        raise SetupError(f"The fallback was written but the config does not load: {exc}") from exc
    return how, len(entries) + 1


def fallback_settings_of(config: Config, choice: ModelChoice) -> ModelSettings:
    """The settings a session would use for this fallback entry (as `fallback_providers` builds them)."""
    from engine.llm.fallback import fallback_settings
    from engine.llm.settings import ModelSettings, SettingsError, model_settings

    url, model = choice.resolved_base_url(), choice.model.strip()
    try:
        main = model_settings(config)
    except SettingsError:  # no main model yet: the fallback still has its own address and key
        main = ModelSettings(base_url=url)
    for settings in fallback_settings(config, main):
        if (settings.base_url, settings.model) == (url, model):
            return settings
    raise SetupError(f"{model} at {url} is not among fallback_providers after writing it.")


def check_fallback(config: Config, choice: ModelChoice) -> EndpointCheck:
    """One tiny request to the fallback just added, as `hws setup` checks the main model."""
    return check_settings(config, fallback_settings_of(config, choice))
