"""What a skill needs before it works: environment variables (secrets) and config settings.

The frontmatter fields are Hermes Agent's: `required_environment_variables` (names, or mappings with
`name`, `prompt`, `help`, `required_for`, `optional`), `setup.collect_secrets` (`env_var`, `prompt`,
`provider_url`), the older `prerequisites.env_vars`, and `metadata.hermes.config` (entries with `key`,
`description`, `default`, `prompt`, whose values live in config.yaml under `skills.config.<key>`).
The agentskills `compatibility` text is kept as written.

A secret is only ever named: what reaches the model is "GITHUB_TOKEN is set", never its value. A
config value is given as written in config.yaml (never `${VAR}`-expanded, so it cannot carry a secret
from `.env` into the prompt), with `~` expanded as Hermes does.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
CONFIG_PREFIX = "skills.config"


@dataclass(frozen=True)
class EnvNeed:
    """An environment variable (usually a secret) the skill needs; `optional` ones never block."""

    name: str
    prompt: str = ""
    help: str = ""
    required_for: str = ""
    optional: bool = False


@dataclass(frozen=True)
class ConfigNeed:
    """A config setting the skill reads, stored under `skills.config.<key>` in config.yaml."""

    key: str
    description: str
    prompt: str = ""
    default: Any = None


@dataclass(frozen=True)
class SkillNeeds:
    """Everything a skill's frontmatter says it needs; empty for most skills."""

    env: tuple[EnvNeed, ...] = ()
    config: tuple[ConfigNeed, ...] = ()
    compatibility: str = ""

    def __bool__(self) -> bool:
        return bool(self.env or self.config or self.compatibility)

    def as_record(self) -> dict[str, Any]:
        """A JSON-able form for the discovery cache."""
        return {
            "env": [vars(need) for need in self.env],
            "config": [vars(need) for need in self.config],
            "compatibility": self.compatibility,
        }

    @classmethod
    def from_record(cls, record: Mapping[str, Any] | None) -> SkillNeeds:
        if not record:
            return cls()
        return cls(
            tuple(EnvNeed(**item) for item in record.get("env", ())),
            tuple(ConfigNeed(**item) for item in record.get("config", ())),
            str(record.get("compatibility", "")),
        )


@dataclass(frozen=True)
class Readiness:
    """Where a skill's needs stand in this home: which variables are set, each config value."""

    set_env: tuple[str, ...] = ()
    missing_env: tuple[str, ...] = ()
    config_values: dict[str, Any] = field(default_factory=dict)
    missing_config: tuple[str, ...] = ()

    @property
    def ready(self) -> bool:
        return not (self.missing_env or self.missing_config)

    def missing_words(self) -> str:
        """`GITHUB_TOKEN, skills.config.wiki.path`: what is missing, in one line ('' when nothing)."""
        return ", ".join([*self.missing_env, *(f"{CONFIG_PREFIX}.{key}" for key in self.missing_config)])


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _env_needs(meta: Mapping[str, Any]) -> tuple[EnvNeed, ...]:
    """Hermes' order: `required_environment_variables`, then `setup.collect_secrets`, then prerequisites."""
    setup = meta.get("setup") if isinstance(meta.get("setup"), dict) else {}
    setup_help = _text(setup.get("help"))
    items: list[Any] = []
    for raw in (meta.get("required_environment_variables"), setup.get("collect_secrets")):
        items += [raw] if isinstance(raw, dict) else raw if isinstance(raw, list) else []
    prereq = meta.get("prerequisites")
    legacy = prereq.get("env_vars") if isinstance(prereq, dict) else None
    items += [legacy] if isinstance(legacy, str) else legacy if isinstance(legacy, list) else []
    found: dict[str, EnvNeed] = {}
    for item in items:
        entry = {"name": item} if isinstance(item, str) else item if isinstance(item, dict) else {}
        name = _text(entry.get("name") or entry.get("env_var"))
        if not ENV_NAME.match(name) or name in found:
            continue
        helps = (entry.get("help"), entry.get("provider_url"), entry.get("url"))
        found[name] = EnvNeed(
            name,
            _text(entry.get("prompt")) or f"Enter value for {name}",
            next((_text(h) for h in helps if _text(h)), setup_help),
            _text(entry.get("required_for")),
            bool(entry.get("optional")),
        )
    return tuple(found.values())


def _config_needs(meta: Mapping[str, Any]) -> tuple[ConfigNeed, ...]:
    metadata = meta.get("metadata")
    hermes = metadata.get("hermes") if isinstance(metadata, dict) else None
    raw = hermes.get("config") if isinstance(hermes, dict) else None
    items = [raw] if isinstance(raw, dict) else raw if isinstance(raw, list) else []
    found: dict[str, ConfigNeed] = {}
    for item in items:
        if not isinstance(item, dict):
            continue
        key, description = _text(str(item.get("key", ""))), _text(str(item.get("description", "")))
        if not key or not description or key in found:
            continue  # Hermes skips entries without a key and a description
        default = item.get("default")
        if not isinstance(default, (str, int, float, bool, type(None))):
            default = str(default)
        found[key] = ConfigNeed(key, description, _text(item.get("prompt")) or description, default)
    return tuple(found.values())


def needs_from(meta: Mapping[str, Any]) -> SkillNeeds:
    """The needs a parsed frontmatter declares."""
    compatibility = meta.get("compatibility")
    return SkillNeeds(
        _env_needs(meta),
        _config_needs(meta),
        " ".join(str(compatibility).split()) if compatibility else "",
    )


def _dotted(tree: Any, dotted: str) -> Any:
    for part in dotted.split("."):
        if not isinstance(tree, dict) or part not in tree:
            return None
        tree = tree[part]
    return tree


def readiness(needs: SkillNeeds, secret: Callable[[str], str], raw_config: Mapping[str, Any]) -> Readiness:
    """Check each need against the environment (`secret` looks a name up) and config.yaml's raw tree."""
    required = [need.name for need in needs.env if not need.optional]
    set_env = tuple(need.name for need in needs.env if secret(need.name))
    missing_env = tuple(name for name in required if name not in set_env)
    values: dict[str, Any] = {}
    for need in needs.config:
        value = _dotted(raw_config, f"{CONFIG_PREFIX}.{need.key}")
        if value is None or (isinstance(value, str) and not value.strip()):
            value = need.default
        if isinstance(value, str) and value.startswith("~"):
            value = os.path.expanduser(value)
        values[need.key] = value
    missing_config = tuple(key for key, value in values.items() if value is None or value == "")
    return Readiness(set_env, missing_env, values, missing_config)


def settings_note(needs: SkillNeeds, ready: Readiness, config_file: Path) -> str:
    """What the model is told when the skill loads: variables by name, config values by value."""
    if not (needs.env or needs.config):
        return ""
    lines = ["[Skill settings:"]
    for need in needs.env:
        if need.name in ready.set_env:
            lines.append(
                f"  {need.name} is set (an environment variable: use it by name; its value is not shown)"
            )
        else:
            lines.append(f"  {need.name} is not set" + (" (optional)" if need.optional else ""))
    if needs.config:
        lines.append(f"  config (from {config_file}, under {CONFIG_PREFIX}):")
    for need in needs.config:
        value = ready.config_values.get(need.key)
        shown = "(not set)" if need.key in ready.missing_config else str(value)
        lines.append(f"  {need.key} = {shown}")
    if not ready.ready:
        lines.append(f"  Setup needed: {ready.missing_words()} missing; ask the user to set it.")
    lines.append("]")
    return "\n".join(lines)


def how_to_set(needs: SkillNeeds, ready: Readiness, home_root: Path) -> list[str]:
    """One sentence per missing need, saying where to set it."""
    lines: list[str] = []
    for need in needs.env:
        if need.name in ready.missing_env:
            where = f" ({need.help})" if need.help else ""
            lines.append(
                f"{need.name} is not set: add the line {need.name}=... to {home_root / '.env'} "
                f"or export it before starting hws{where}."
            )
    for need in needs.config:
        if need.key in ready.missing_config:
            *parents, last = f"{CONFIG_PREFIX}.{need.key}".split(".")
            nested = "".join(f"{'  ' * depth}{part}:\n" for depth, part in enumerate(parents))
            nested += f"{'  ' * len(parents)}{last}: VALUE"
            lines.append(
                f"{CONFIG_PREFIX}.{need.key} is not set ({need.description}): add it to "
                f"{home_root / 'config.yaml'} as\n{nested}"
            )
    return lines


def missing_settings(needs: SkillNeeds, config: Any) -> str:
    """What a skill needs and the home's config (`secret`, `raw`) lacks, in one line; '' for none."""
    if not (needs.env or needs.config):
        return ""
    return readiness(needs, config.secret, config.raw).missing_words()
