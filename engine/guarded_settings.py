"""The settings that guard the person, in one place: the agent never changes them.

A file tool's write of `config.yaml` or `.env` is refused when its result would change one of them;
the agent notes them when a session starts and says so when they change on disk during it; `hws
doctor` and the README's security section list them from here
(`python -m engine.guarded_settings --write README.md` renders that section's table).
"""

from __future__ import annotations

import fnmatch
import hashlib
import os
import re
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from engine.config import MAX_CONFIG_BYTES, parse_env_text
from engine.config_schema import ROOT, SCHEMA


@dataclass(frozen=True)
class GuardedSetting:
    """Settings matched by `patterns` (dotted; `*` within a name, `**` any number of names)."""

    patterns: tuple[str, ...]
    reason: str

    @property
    def name(self) -> str:
        """How the README names the settings: `agent.yolo`, `serve.*`, `base_url` (anywhere)."""
        shown = []
        for pattern in self.patterns:
            if pattern.startswith("**."):
                shown.append(f"`{pattern[3:]}` (anywhere)")
            else:
                shown.append(f"`{pattern}.*`" if "." not in pattern else f"`{pattern}`")
        return ", ".join(shown)


GUARDED_SETTINGS: tuple[GuardedSetting, ...] = (
    GuardedSetting(("agent.yolo",), "lets commands run without asking the person"),
    GuardedSetting(("approvals",), "decides which actions ask the person first"),
    GuardedSetting(("terminal.sandbox*",), "confines what the terminal's commands can touch and reach"),
    GuardedSetting(("**.base_url",), "is the address an API key is sent to"),
    GuardedSetting(
        ("model.provider", "fallback_providers.*.provider"),
        "picks the endpoint, and the key sent to it, when no base_url is set",
    ),
    GuardedSetting(
        ("**.api_key*", "**.*password*", "**.*secret*", "**.token", "**.*_token"),
        "is a key or a secret, or names the variable one is read from",
    ),
    GuardedSetting(("serve",), "decides who can reach the workstation through `hws serve`"),
    GuardedSetting(
        ("skills.inline_shell",), "makes Hermes Agent run the commands written inside skills (hws never does)"
    ),
    GuardedSetting(("**.write_approval",), "makes the agent ask before it writes memory or skills"),
    GuardedSetting(("security",), "holds the security checks themselves"),
    GuardedSetting(("mcp_servers", "hooks"), "names commands that hws and Hermes Agent start from this home"),
)

KEY_VARIABLE_SUFFIX = "_API_KEY"  # a `.env` variable with this ending is a provider key (OPENROUTER_API_KEY…)
MAX_VALUES = 20_000  # a config with more values than this (an alias bomb, mostly) is not read for settings
UNREADABLE = "config.yaml"  # the snapshot's only entry when config.yaml cannot be read or parsed
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_PATTERNS = tuple((tuple(p.split(".")), setting) for setting in GUARDED_SETTINGS for p in setting.patterns)


class UnreadableConfig(Exception):
    """The text is not a config this check can read; the message is a sentence naming why."""


# ── which settings ───────────────────────────────────────────────────────────────────────────────


def _match(pattern: Sequence[str], path: Sequence[str]) -> bool:
    if not pattern:
        return not path
    head, rest = pattern[0], pattern[1:]
    if head == "**":
        return any(_match(rest, path[i:]) for i in range(len(path) + 1))
    return bool(path) and fnmatch.fnmatchcase(path[0].lower(), head) and _match(rest, path[1:])


def guard_of(path: Sequence[str]) -> GuardedSetting | None:
    """The guarded setting that covers `path` (or a section above it), or None."""
    for end in range(1, len(path) + 1):
        for pattern, setting in _PATTERNS:
            if _match(pattern, path[:end]):
                return setting
    return None


def reason_for(name: str) -> str:
    """Why a changed setting (a dotted name, or `.env NAME`) is guarded, in a few words."""
    if name.startswith(".env "):
        return "a key variable in .env"
    if name == UNREADABLE:
        return "it no longer parses, so the next session cannot start as this one did"
    setting = guard_of(name.split("."))
    return setting.reason if setting else "a guarded setting"


# ── reading a config text ────────────────────────────────────────────────────────────────────────


def parse_config(text: str) -> Any:
    """The YAML tree of a config text as the engine reads it (PyYAML's safe loader); a sentence if not."""
    if len(text.encode("utf-8")) > MAX_CONFIG_BYTES:
        raise UnreadableConfig(f"it would be larger than {MAX_CONFIG_BYTES:,} bytes")
    if "\x00" in text:
        raise UnreadableConfig("it would contain NUL bytes")
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        if node is not None and _alias_count(node) > 200:
            raise UnreadableConfig("it would use more than 200 YAML aliases")
        tree = yaml.safe_load(text)
    except yaml.MarkedYAMLError as exc:
        line = exc.problem_mark.line + 1 if exc.problem_mark else 0
        raise UnreadableConfig(f"it would not parse as YAML (line {line}: {exc.problem})") from None
    except (yaml.YAMLError, RecursionError) as exc:
        raise UnreadableConfig(f"it would not parse as YAML ({type(exc).__name__})") from None
    if tree is None:
        return {}
    if not isinstance(tree, dict):
        raise UnreadableConfig("its top level would not be a mapping of sections")
    if _too_many_values(tree):
        raise UnreadableConfig(f"it would hold more than {MAX_VALUES:,} values once its aliases are expanded")
    return tree


def _too_many_values(tree: Any) -> bool:
    """True when walking the tree (aliases expanded, as each setting is read) passes MAX_VALUES."""
    count, stack = 0, [tree]
    while stack:
        node = stack.pop()
        count += 1
        if count > MAX_VALUES:
            return True
        if isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return False


def _alias_count(root: yaml.Node) -> int:
    seen: set[int] = set()
    count, stack = 0, [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            count += 1
            continue
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            stack.extend(part for pair in node.value for part in pair)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
    return count


def yaml_indirections(text: str) -> Counter[str]:
    """How often a text uses the YAML features that make what it says differ from how it reads:
    anchors, aliases, merge keys, tags, directives and keys repeated in one mapping."""
    counts: Counter[str] = Counter()
    try:
        for token in yaml.scan(text, Loader=yaml.SafeLoader):
            if isinstance(token, yaml.AnchorToken):
                counts["anchors"] += 1
            elif isinstance(token, yaml.AliasToken):
                counts["aliases"] += 1
            elif isinstance(token, yaml.TagToken):
                counts["tags"] += 1
            elif isinstance(token, yaml.DirectiveToken):
                counts["directives"] += 1
            elif isinstance(token, yaml.ScalarToken) and token.plain and token.value == "<<":
                counts["merge keys"] += 1
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except (yaml.YAMLError, RecursionError):
        return counts
    stack = [node] if node is not None else []
    seen: set[int] = set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            keys = [k.value for k, _ in node.value if isinstance(k, yaml.ScalarNode)]
            counts["repeated keys"] += len(keys) - len(set(keys))
            stack.extend(part for pair in node.value for part in pair)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
    return +counts


# ── snapshots ────────────────────────────────────────────────────────────────────────────────────


def _leaves(tree: Any, prefix: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    if isinstance(tree, dict):
        for key, value in tree.items():
            yield from _leaves(value, (*prefix, str(key)))
    elif isinstance(tree, list):
        for index, value in enumerate(tree):
            yield from _leaves(value, (*prefix, str(index)))
    else:
        yield prefix, tree


def _schema_default(path: tuple[str, ...]) -> tuple[bool, Any]:
    section, key = (ROOT, path[0]) if len(path) == 1 else (path[0], path[1]) if len(path) == 2 else ("", "")
    if len(path) > 2 or section not in SCHEMA or key not in SCHEMA[section]:
        return False, None
    return True, SCHEMA[section][key].default


def _substituted(value: Any, env: Mapping[str, str]) -> Any:
    if not isinstance(value, str):
        return value
    return _VAR.sub(lambda m: os.environ.get(m.group(1), env.get(m.group(1), "")), value)


def _digest(value: Any) -> str:
    return hashlib.sha256(repr(value).encode("utf-8", "backslashreplace")).hexdigest()[:24]


def config_values(tree: Any, env: Mapping[str, str]) -> dict[str, str]:
    """Every guarded setting of a config tree, by dotted name, as a digest of its written value and of
    the value after `${VAR}` substitution; a schema setting left out counts as its default."""
    if isinstance(tree, dict) and isinstance(tree.get("model"), str):  # Hermes allows `model: name`
        tree = {**tree, "model": {"default": tree["model"]}}
    found: dict[str, Any] = {}
    for path, value in _leaves(tree):
        if guard_of(path) is not None:
            known, default = _schema_default(path)
            if value is None and known:
                value = default
            found[".".join(path)] = (type(value).__name__, value, _substituted(value, env))
    for section, settings in SCHEMA.items():
        for key, setting in settings.items():
            path = (key,) if section == ROOT else (section, key)
            dotted = ".".join(path)
            if dotted not in found and guard_of(path) is not None:
                value = setting.default
                found[dotted] = (type(value).__name__, value, _substituted(value, env))
    return {name: _digest(value) for name, value in found.items()}


def key_variables(tree: Any, env: Mapping[str, str]) -> set[str]:
    """The `.env` variables that guard the person: provider keys (`*_API_KEY`), the variables named by
    any `api_key_env`, and those a guarded setting reads through `${VAR}`."""
    names = {name for name in env if name.upper().endswith(KEY_VARIABLE_SUFFIX)}
    for path, value in _leaves(tree if isinstance(tree, dict) else {}):
        if not isinstance(value, str) or guard_of(path) is None:
            continue
        if path[-1].lower().endswith("api_key_env") and value.strip():
            names.add(value.strip())
        names.update(_VAR.findall(value))
    return names


def snapshot(config_text: str | None, env_text: str | None) -> dict[str, str]:
    """The guarded settings of a home's `config.yaml` and `.env` texts, by name, as digests."""
    env = parse_env_text(env_text or "")
    try:
        tree = parse_config(config_text or "")
    except UnreadableConfig:
        return {UNREADABLE: _digest(config_text)}
    values = config_values(tree, env)
    for name in key_variables(tree, env):
        values[f".env {name}"] = _digest(env.get(name))
    return values


def changed(before: Mapping[str, str], after: Mapping[str, str]) -> tuple[str, ...]:
    """The names whose values differ between two snapshots, sorted."""
    if (UNREADABLE in before) != (UNREADABLE in after):
        return (UNREADABLE,)
    names = set(before) | set(after)
    return tuple(sorted(n for n in names if before.get(n) != after.get(n)))


def read_home(home_root: Path) -> tuple[bytes, bytes]:
    """The bytes of a home's `config.yaml` and `.env` (empty when missing or unreadable)."""
    found = []
    for name in ("config.yaml", ".env"):
        try:
            found.append((home_root / name).read_bytes()[: MAX_CONFIG_BYTES + 1])
        except OSError:
            found.append(b"")
    return found[0], found[1]


def _text(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


class GuardedWatch:
    """The guarded settings as a session began, and which of them differ on disk now."""

    def __init__(self, home_root: Path) -> None:
        self.home_root = home_root
        self._files = read_home(home_root)
        self.baseline = snapshot(_text(self._files[0]), _text(self._files[1]))
        self._reported: tuple[str, ...] = ()

    def check(self) -> tuple[str, ...] | None:
        """The settings that now differ from the start, when that differs from the last answer; else None."""
        files = read_home(self.home_root)
        if files == self._files:
            return None
        self._files = files
        now = changed(self.baseline, snapshot(_text(files[0]), _text(files[1])))
        if now == self._reported:
            return None
        self._reported = now
        return now


def change_sentence(changes: Sequence[str]) -> str:
    """What the person reads when guarded settings changed on disk during a session."""
    if not changes:
        return "The guarded settings on disk are back to the values this session began with."
    named = ", ".join(changes[:6]) + (f" and {len(changes) - 6} more" if len(changes) > 6 else "")
    verb = "was" if len(changes) == 1 else "were"
    return (
        f"Guarded settings changed on disk since this session began: {named} {verb} changed "
        "(by you, or by something outside the agent's tools). This session keeps the values it began "
        "with; a new session will use the new ones."
    )


# ── the checks of a write ────────────────────────────────────────────────────────────────────────


def _names(changes: Sequence[str]) -> str:
    shown = [f"{name} ({reason_for(name)})" for name in changes[:4]]
    more = f" and {len(changes) - 4} more" if len(changes) > 4 else ""
    return "; ".join(shown) + more


def config_write_refusal(old_text: str | None, new_text: str, env_text: str | None = None) -> str | None:
    """Why a write of config.yaml must not happen (a sentence), or None when it may be asked about."""
    try:
        new_tree = parse_config(new_text)
    except UnreadableConfig as exc:
        return (
            f"Refused: after this change config.yaml would not be a config the workstation can read: {exc}. "
            "Nothing was written; keep config.yaml valid YAML."
        )
    old_counts = yaml_indirections(old_text or "")
    added = [kind for kind, count in yaml_indirections(new_text).items() if count > old_counts[kind]]
    if added:
        return (
            f"Refused: the new config.yaml would use YAML {', '.join(added)} (not used in it before), which "
            "can make a setting differ from how the text reads. Nothing was written; write each value "
            "out plainly, once."
        )
    try:
        old_tree = parse_config(old_text or "")
    except UnreadableConfig:
        old_tree = {}  # compared with the defaults: the agent cannot use a broken file to set a guard
    env = parse_env_text(env_text or "")
    differ = changed(config_values(old_tree, env), config_values(new_tree, env))
    if differ:
        return (
            f"Refused: this change to config.yaml would change {_names(differ)}. Only the person may "
            "change these settings, by editing config.yaml themselves; nothing was written."
        )
    return None


def env_write_refusal(old_text: str | None, new_text: str, config_text: str | None) -> str | None:
    """Why a write of `.env` must not happen (a sentence), or None when it may be asked about."""
    old_env, new_env = parse_env_text(old_text or ""), parse_env_text(new_text)
    try:
        tree = parse_config(config_text or "")
    except UnreadableConfig:
        tree = {}
    names = key_variables(tree, old_env) | key_variables(tree, new_env)
    differ = sorted(name for name in names if old_env.get(name) != new_env.get(name))
    if differ:
        listed = ", ".join(differ[:4]) + (f" and {len(differ) - 4} more" if len(differ) > 4 else "")
        return (
            f"Refused: this change to .env would change {listed}, which holds an API key or feeds a guarded "
            "setting. Only the person may change it, by editing .env themselves; nothing was written."
        )
    return None


# ── the README's table ───────────────────────────────────────────────────────────────────────────

START = "<!-- guarded-settings:start (generated by `python -m engine.guarded_settings --write README.md`) -->"
END = "<!-- guarded-settings:end -->"


def guarded_markdown() -> str:
    """The README's table of guarded settings, between its markers."""
    rows = [f"| {setting.name} | {setting.reason} |" for setting in GUARDED_SETTINGS]
    rows.append(
        f"| `.env` variables ending in `{KEY_VARIABLE_SUFFIX}`, or named by an `api_key_env` | "
        "hold or choose an API key |"
    )
    return "\n".join([START, "| setting | why the agent may never change it |", "|---|---|", *rows, END])


def main(argv: Sequence[str] | None = None) -> int:
    from engine.text.generated_blocks import block_command

    stale = "the guarded-settings table is stale: run python -m engine.guarded_settings --write README.md"
    return block_command(argv, "engine.guarded_settings", guarded_markdown, START, END, stale)


if __name__ == "__main__":
    raise SystemExit(main())
