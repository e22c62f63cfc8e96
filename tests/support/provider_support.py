"""Shared set-up for the external memory tests: a home whose config points at a local Honcho."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from engine.config import Config, load_config
from engine.events import Event
from engine.home import Home
from engine.providers.host import ProviderHost

FAST = {"timeout": 0.5, "max_retries": 0}


def write_config(home_root: Path, url: str, honcho: dict[str, Any] | None = None, **sections: Any) -> None:
    """A config.yaml choosing Honcho at `url`, with quick timeouts unless the test says otherwise."""
    data: dict[str, Any] = {
        "memory": {"provider": "honcho"},
        "honcho": {"base_url": url, **FAST, **(honcho or {})},
        "external_memory": {"first_turn_wait": 5.0},
    }
    for name, values in sections.items():
        data.setdefault(name, {}).update(values)
    home_root.mkdir(parents=True, exist_ok=True)
    (home_root / "config.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")


def open_home(home_root: Path) -> tuple[Home, Config]:
    home = Home.resolve(home_root).ensure()
    return home, load_config(home.root)


def make_host(home_root: Path, url: str, events: list[Event] | None = None, **kwargs: Any) -> ProviderHost:
    write_config(home_root, url, **kwargs)
    home, config = open_home(home_root)
    host = ProviderHost.from_config(home, config, emit=events.append if events is not None else None)
    assert host is not None
    return host
