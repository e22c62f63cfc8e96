"""`config.yaml` plus `.env`: defaults, `${VAR}` substitution, and validation with file:line errors."""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from engine.config_schema import (
    FOREIGN_SECTIONS,
    OPEN_SECTIONS,
    OWN_SECTIONS,
    ROOT,
    SCHEMA,
    SHARED_SECTIONS,
    Setting,
)
from engine.hermes_settings import is_hermes_setting

MAX_CONFIG_BYTES = 1_000_000
MAX_ALIASES = 200
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


class ConfigError(Exception):
    """A config problem a user must fix; the message names the file, the line and the remedy."""


@dataclass(frozen=True)
class Section(Mapping[str, Any]):
    """The settings of one config section, readable as attributes or as a mapping."""

    name: str
    values: dict[str, Any]

    def __getattr__(self, key: str) -> Any:
        try:
            return self.values[key]
        except KeyError:
            raise AttributeError(f"config section {self.name!r} has no setting {key!r}") from None

    def __getitem__(self, key: str) -> Any:
        return self.values[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.values)

    def __len__(self) -> int:
        return len(self.values)


@dataclass
class Config:
    """Validated settings with defaults filled in, the raw YAML kept for keys we do not know."""

    sections: dict[str, Section]
    raw: dict[str, Any] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    path: Path | None = None
    hermes_only: list[str] = field(default_factory=list)  # Hermes' settings found, which hws does not use

    def __getattr__(self, name: str) -> Section:
        sections = self.__dict__.get("sections", {})
        if name in sections:
            return sections[name]
        raise AttributeError(name)

    def get(self, dotted: str) -> Any:
        """A setting by its dotted name, e.g. `memory.memory_char_limit`."""
        section, _, key = dotted.rpartition(".")
        return self.sections[section][key]

    def secret(self, name: str) -> str:
        """An environment value: the process environment first, then `.env`."""
        return os.environ.get(name) or self.env.get(name, "")

    @property
    def model_name(self) -> str:
        return str(self.model.default or self.model.model)


def defaults() -> Config:
    """A config holding only the documented defaults (no file, no environment)."""
    return Config(sections=_build_sections({}, {}, None, []))


def parse_env_file(path: Path) -> dict[str, str]:
    """Read a `.env` file: KEY=VALUE lines, optional `export`, quotes, `#` comments."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path} is not UTF-8 text ({exc.reason}); save it as UTF-8.") from exc
    return parse_env_text(text)


def parse_env_text(text: str) -> dict[str, str]:
    """The variables of a `.env` text, read as `parse_env_file` reads the file."""
    values: dict[str, str] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, _, value = line.removeprefix("export ").partition("=")
        key, value = key.strip(), value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        elif " #" in value:
            value = value.split(" #", 1)[0].rstrip()
        if key:
            values[key] = value
    return values


def load_config(home_root: Path) -> Config:
    """Load `config.yaml` and `.env` from a home; a missing file means all defaults."""
    path = home_root / "config.yaml"
    env = parse_env_file(home_root / ".env")
    warnings: list[str] = []
    hermes_only: list[str] = []
    raw: dict[str, Any] = {}
    lines: dict[tuple[str, ...], int] = {}
    if path.exists():
        raw, lines = _read_yaml(path)
    sections = _build_sections(raw, lines, path, warnings, env, hermes_only)
    return Config(sections=sections, raw=raw, env=env, warnings=warnings, path=path, hermes_only=hermes_only)


def _read_yaml(path: Path) -> tuple[dict[str, Any], dict[tuple[str, ...], int]]:
    try:
        size = path.stat().st_size
        if size > MAX_CONFIG_BYTES:
            raise ConfigError(
                f"{path} is {size:,} bytes, more than a config file should be "
                f"({MAX_CONFIG_BYTES:,}); check that it is the right file."
            )
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"{path} is not UTF-8 text (byte {exc.start}: {exc.reason}); save it as UTF-8."
        ) from exc
    except OSError as exc:
        raise ConfigError(f"Cannot read {path}: {exc.strerror}.") from exc
    if "\x00" in text:
        raise ConfigError(f"{path} contains NUL bytes; it is not a YAML text file.")
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as exc:
        line = exc.problem_mark.line + 1 if exc.problem_mark else 0
        raise ConfigError(
            f"{path} line {line}: {exc.problem or 'invalid YAML'}. "
            "Fix the YAML there (indentation, quotes, colons) or move the file aside."
        ) from exc
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: invalid YAML ({exc}). Fix it or move the file aside.") from exc
    except RecursionError as exc:
        raise ConfigError(f"{path} is nested too deeply to be a config file.") from exc
    if node is None:
        return {}, {}
    _check_aliases(node, path)
    if not isinstance(node, yaml.MappingNode):
        raise ConfigError(
            f"{path} line {node.start_mark.line + 1}: the top level must be a mapping of "
            "`section: settings`, not a list or a single value."
        )
    lines: dict[tuple[str, ...], int] = {}
    _collect_lines(node, (), lines)
    try:
        data = yaml.safe_load(text)
    except (yaml.YAMLError, RecursionError) as exc:
        raise ConfigError(f"{path}: invalid YAML ({exc}).") from exc
    return data, lines


def _check_aliases(root: yaml.Node, path: Path) -> None:
    """Refuse alias-heavy YAML: a few lines of anchors can expand into gigabytes."""
    seen: set[int] = set()
    aliases = 0
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            aliases += 1
            if aliases > MAX_ALIASES:
                raise ConfigError(
                    f"{path} line {node.start_mark.line + 1}: too many YAML aliases "
                    f"(more than {MAX_ALIASES}); write the values out instead."
                )
            continue
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                stack.extend((key, value))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)


def _collect_lines(node: yaml.Node, prefix: tuple[str, ...], out: dict[tuple[str, ...], int]) -> None:
    if not isinstance(node, yaml.MappingNode) or len(prefix) > 2:
        return
    for key, value in node.value:
        if isinstance(key, yaml.ScalarNode):
            path = (*prefix, str(key.value))
            out[path] = key.start_mark.line + 1
            _collect_lines(value, path, out)


def _substitute(value: Any, env: Mapping[str, str], missing: set[str]) -> Any:
    if isinstance(value, str):

        def repl(match: re.Match[str]) -> str:
            name = match.group(1)
            found = os.environ.get(name, env.get(name))
            if found is None:
                missing.add(name)
                return ""
            return found

        return _VAR.sub(repl, value)
    if isinstance(value, list):
        return [_substitute(item, env, missing) for item in value]
    if isinstance(value, dict):
        return {k: _substitute(v, env, missing) for k, v in value.items()}
    return value


def _build_sections(
    raw: dict[str, Any],
    lines: dict[tuple[str, ...], int],
    path: Path | None,
    warnings: list[str],
    env: Mapping[str, str] | None = None,
    hermes_only: list[str] | None = None,
) -> dict[str, Section]:
    """The sections with defaults filled in; unknown names warn, unless they are Hermes Agent's own
    settings, which are read past in silence and named in `hermes_only` (for `hws doctor`)."""
    env = env or {}
    hermes_only = hermes_only if hermes_only is not None else []
    where = str(path) if path else "config.yaml"
    raw = dict(raw)
    if isinstance(raw.get("model"), str):  # Hermes allows `model: name`
        raw["model"] = {"default": raw["model"]}
    values: dict[str, dict[str, Any]] = {
        name: {key: _copy_default(s) for key, s in settings.items()} for name, settings in SCHEMA.items()
    }
    missing_vars: set[str] = set()
    for key, value in raw.items():
        key = str(key)
        line = lines.get((key,), 0)
        if key in SCHEMA[ROOT]:
            values[ROOT][key] = _validated(ROOT, key, value, SCHEMA[ROOT][key], where, line)
        elif key in SCHEMA and key != ROOT:
            if value is None:
                continue
            if not isinstance(value, dict):
                raise ConfigError(
                    f"{where} line {line}: `{key}` must be a mapping of settings "
                    f"(e.g. `{key}:` followed by indented `name: value` lines)."
                )
            value = _substitute(value, env, missing_vars)
            _fill_section(key, value, values[key], lines, where, warnings, hermes_only)
        elif key in OWN_SECTIONS:
            continue  # read by its own reader (the MCP servers: engine/mcp/servers.py)
        elif key in FOREIGN_SECTIONS or is_hermes_setting(key):
            hermes_only.append(key)
        else:
            known = [*SCHEMA[ROOT], *(name for name in SCHEMA if name != ROOT)]
            hint = _did_you_mean(key, known)
            warnings.append(f"{where} line {line}: unknown setting `{key}` is ignored{hint}")
    for name in sorted(missing_vars):
        warnings.append(f"{where}: ${{{name}}} is not set in the environment or in .env.")
    return {name: Section(name or "root", vals) for name, vals in values.items()}


def _fill_section(
    section: str,
    given: dict[str, Any],
    target: dict[str, Any],
    lines: dict[tuple[str, ...], int],
    where: str,
    warnings: list[str],
    hermes_only: list[str],
) -> None:
    schema = SCHEMA[section]
    for key, value in given.items():
        key = str(key)
        line = lines.get((section, key), 0)
        if section in OPEN_SECTIONS:
            target[key] = value
        elif key in schema:
            target[key] = _validated(section, key, value, schema[key], where, line)
        elif is_hermes_setting(section, key):
            hermes_only.append(f"{section}.{key}")
        elif section not in SHARED_SECTIONS:
            hint = _did_you_mean(key, schema, f"{section}.")
            warnings.append(f"{where} line {line}: unknown setting `{section}.{key}` is ignored{hint}")


def _did_you_mean(key: str, known: Iterable[str], prefix: str = "") -> str:
    """The end of an unknown-setting sentence: `; did you mean `model.request_timeout`?` or `.`."""
    close = difflib.get_close_matches(key, list(known), n=1, cutoff=0.75)
    return f"; did you mean `{prefix}{close[0]}`?" if close else "."


_KIND_WORDS = {
    bool: "true or false",
    int: "a whole number",
    float: "a number",
    str: "text",
    list: "a list",
    dict: "a mapping",
}


def _validated(section: str, key: str, value: Any, setting: Setting, where: str, line: int) -> Any:
    dotted = f"{section}.{key}" if section else key
    kind = setting.kind
    if value is None:
        return _copy_default(setting)
    ok = isinstance(value, kind) and not (kind is not bool and isinstance(value, bool))
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value, ok = float(value), True
    if not ok:
        raise ConfigError(
            f"{where} line {line}: `{dotted}` must be {_KIND_WORDS.get(kind, kind.__name__)}, "
            f"not {value!r}. Fix the value or delete the line to use the default "
            f"({setting.default!r})."
        )
    if setting.choices and value not in setting.choices:
        raise ConfigError(
            f"{where} line {line}: `{dotted}` must be one of {', '.join(setting.choices)}, not {value!r}."
        )
    low, high = setting.minimum, setting.maximum
    if isinstance(value, (int, float)) and (
        (low is not None and value < low) or (high is not None and value > high)
    ):
        bounds = f"at least {low}" if high is None else f"between {low} and {high}"
        raise ConfigError(f"{where} line {line}: `{dotted}` must be {bounds}, not {value!r}.")
    return value


def _copy_default(setting: Setting) -> Any:
    default = setting.default
    if isinstance(default, dict):
        return dict(default)
    return list(default) if isinstance(default, list) else default
