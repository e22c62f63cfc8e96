"""Which external memory providers exist, and the one `memory.provider` makes active.

Providers are named here and imported only when chosen, so a workstation without Honcho never
pays for importing its SDK. At most one provider is active: `memory.provider` holds one name.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

from engine.providers.base import MemoryProvider, ProviderConfigError

if TYPE_CHECKING:
    from engine.config import Config
    from engine.home import Home


@dataclass(frozen=True)
class ProviderSpec:
    """A provider's name, where its class lives, and one line saying what it is."""

    name: str
    target: str  # "module:factory"; the factory takes (home, config)
    summary: str


PROVIDERS: dict[str, ProviderSpec] = {
    "honcho": ProviderSpec(
        "honcho",
        "engine.providers.honcho:HonchoProvider.from_config",
        "Honcho (plastic-labs): a user peer and an AI peer, both observed, with a dialectic API.",
    ),
    "holographic": ProviderSpec(
        "holographic",
        "engine.providers.facts.provider:FactsProvider.from_config",
        "A local fact store (memory_store.db, as Hermes' holographic plugin keeps it): no server.",
    ),
}
ALIASES = {"facts": "holographic"}  # other names `memory.provider` accepts for a provider


def provider_names() -> list[str]:
    return sorted(PROVIDERS)


def fact_store_active(config: Config) -> bool:
    """`memory.provider` names the local fact store (a provider setting that cannot work offers nothing)."""
    try:
        return active_provider_name(config) == "holographic"
    except ProviderConfigError:
        return False


def active_provider_name(config: Config) -> str:
    """The provider `memory.provider` names, normalised; "" when none is active."""
    raw = config.memory.provider
    if isinstance(raw, list):
        raise ProviderConfigError(
            "`memory.provider` lists several providers; only one external provider can be active, "
            f"so name one of: {', '.join(provider_names())}."
        )
    name = str(raw or "").strip().lower()
    if name in ("", "none", "off", "builtin", "built-in"):
        return ""
    name = ALIASES.get(name, name)
    if "," in name or " " in name:
        raise ProviderConfigError(
            f"`memory.provider` is {raw!r}; only one external provider can be active, "
            f"so name one of: {', '.join(provider_names())}."
        )
    if name not in PROVIDERS:
        raise ProviderConfigError(
            f"`memory.provider` names {raw!r}, which is not a known provider; "
            f"use one of: {', '.join(provider_names())}, or leave it empty."
        )
    return name


def create_provider(name: str, home: Home, config: Config) -> MemoryProvider:
    """Build the named provider from the settings; raises `ProviderConfigError` with a sentence."""
    spec = PROVIDERS.get(ALIASES.get(name, name))
    if spec is None:
        raise ProviderConfigError(
            f"{name!r} is not a known memory provider; use one of: {', '.join(provider_names())}."
        )
    module_name, _, attr_path = spec.target.partition(":")
    try:
        factory: object = importlib.import_module(module_name)
    except ImportError as exc:
        raise ProviderConfigError(
            f"The {name} provider cannot be loaded ({exc}); reinstall the workstation's dependencies."
        ) from exc
    for part in attr_path.split("."):
        factory = getattr(factory, part)
    provider = factory(home, config)  # type: ignore[operator]
    return provider  # type: ignore[no-any-return]


def create_active_provider(home: Home, config: Config) -> MemoryProvider | None:
    """The provider `memory.provider` makes active, or None when the built-in files work alone."""
    name = active_provider_name(config)
    return create_provider(name, home, config) if name else None
