"""Secrets out of everything the model reads and everything we keep or print.

A `Redactor` replaces two kinds of secret with `[REDACTED]`: values shaped like a provider's key
(`sk-…`, `sk-or-…`, `sk-ant-…`, `ghp_…`, `AKIA…`, `xox…-…`, `Bearer …` and a few more), and the
literal values of the keys this home is configured with (every real value in `.env`, the secret-named
variables of the environment, the variable `model.api_key_env` names, `model.api_key`), whatever
their shape or name. `tool_text` also removes values written under secret names in files
(`PASSWORD=…`, `"token": "…"`, `user:pass@`; see `engine.threats.redact_forms`): tool results pass through it
before the model sees them. `find` says which secret a text holds without showing it, for refusals.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from engine.threats.redact_forms import REDACTED, is_placeholder, is_secret_name, redact_forms

if TYPE_CHECKING:
    from engine.config import Config

MIN_LITERAL = 8  # shorter configured values ("1", "true", a port) are not treated as secrets
CUT_MARK = "…"  # what the tools write where they cut a long line or output
MIN_PIECE = 6  # the shortest part of a key beside a cut that is hidden

# Values that are secrets whatever surrounds them.
KEY_SHAPES = (
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|\Z)",
    r"\bsk-(?:ant-(?:api\d\d-)?|proj-|or-v1-|or-)?[A-Za-z0-9_\-]{16,}",
    r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b",
    r"\bgh[pousr]_[A-Za-z0-9]{30,}\b",
    r"\bgithub_pat_[A-Za-z0-9_]{30,}\b",
    r"\bglpat-[A-Za-z0-9_\-]{20,}\b",
    r"\bxox[abposr]-[A-Za-z0-9\-]{10,}\b",
    r"\bAIza[0-9A-Za-z_\-]{35}\b",
    r"\bhf_[A-Za-z0-9]{30,}\b",
    r"\b(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]{16,}\b",
    r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}",
)
# Substrings (lower case) without which no shape can match: most text skips the regex entirely.
SHAPE_HINTS = (
    "-----begin",
    "sk-",
    "akia",
    "asia",
    "gh",
    "glpat-",
    "xox",
    "aiza",
    "hf_",
    "_live_",
    "_test_",
    "eyj",
)
# What each shape is, in the words of a refusal ("… contains a GitHub token").
SHAPE_NAMES = (
    "a private key",
    "an API key (sk-…)",
    "an AWS access key",
    "a GitHub token",
    "a GitHub token",
    "a GitLab token",
    "a Slack token",
    "a Google API key",
    "a Hugging Face token",
    "a Stripe key",
    "a JSON web token",
)
_SHAPES = re.compile("|".join(f"(?:{shape})" for shape in KEY_SHAPES))
_EACH_SHAPE = tuple(re.compile(shape) for shape in KEY_SHAPES)
_BEARER = re.compile(r"(?i)\b(bearer)(\s+)[A-Za-z0-9._~+/=\-]{12,}")
# Names of environment variables whose values are secrets.
SECRET_NAME = re.compile(r"(?i)(?:API_?KEY|_KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIALS?|CREDS)$")
_NOT_SECRETS = frozenset({"no-key", "none", "null", "changeme", "placeholder"})


def redact_shapes(text: str) -> str:
    """`text` with every key-shaped value and Bearer token replaced by [REDACTED]."""
    if not text:
        return text
    lower = text.lower()
    if any(hint in lower for hint in SHAPE_HINTS):
        text = _SHAPES.sub(REDACTED, text)
    if "bearer" in lower:
        text = _BEARER.sub(lambda m: f"{m.group(1)}{m.group(2)}{REDACTED}", text)
    return text


class Redactor:
    """Replaces key shapes and the given literal secret values with [REDACTED].

    `sources` says where each literal comes from (`OPENROUTER_API_KEY from .env`), for `find`.
    """

    def __init__(self, literals: Iterable[str] = (), sources: Mapping[str, str] | None = None) -> None:
        found = {value.strip() for value in literals if value and value.strip()}
        usable = {v for v in found if len(v) >= MIN_LITERAL and v.lower() not in _NOT_SECRETS}
        self.literals = tuple(sorted(usable, key=len, reverse=True))  # longest first: no half-replaced key
        given = sources or {}
        self.sources = {v: given.get(v, "") for v in self.literals}

    def __call__(self, text: str) -> str:
        if not text:
            return text
        for literal in self.literals:
            if literal in text:
                text = text.replace(literal, REDACTED)
        return redact_shapes(text)

    def text(self, value: str | None) -> str | None:
        return None if value is None else self(value)

    def tool_text(self, text: str) -> str:
        """What the model may read of a tool's output or a file: also values under secret names, and
        the part of a key left beside a cut (`…`) that a tool made before this redactor saw it."""
        if not text:
            return text
        for literal in self.literals:
            if literal in text:
                text = text.replace(literal, REDACTED)
        if CUT_MARK in text and self.literals:
            text = self._cut_pieces(text)
        return redact_shapes(redact_forms(text))

    def _cut_pieces(self, text: str) -> str:
        """A key's start just before a `…` or its end just after one (a long line or output cut there)."""
        pieces = re.split(f"({CUT_MARK})", text)
        for index in range(1, len(pieces), 2):
            before, after = pieces[index - 1], pieces[index + 1]
            for literal in self.literals:
                tail = before.rstrip("\n ")
                for size in range(len(literal) - 1, MIN_PIECE - 1, -1):
                    if tail.endswith(literal[:size]):
                        before = tail[:-size] + REDACTED + before[len(tail) :]
                        break
                head = after.lstrip("\n ")
                for size in range(len(literal) - 1, MIN_PIECE - 1, -1):
                    if head.startswith(literal[-size:]):
                        after = after[: len(after) - len(head)] + REDACTED + head[size:]
                        break
            pieces[index - 1], pieces[index + 1] = before, after
        return "".join(pieces)

    def tool_value(self, value: Any) -> Any:
        """`tool_text` applied to every string inside a JSON-like value."""
        if isinstance(value, str):
            return self.tool_text(value)
        if isinstance(value, (list, tuple)):
            return [self.tool_value(v) for v in value]
        if isinstance(value, dict):
            return {k: self.tool_value(v) for k, v in value.items()}
        return value

    def find(self, text: str) -> str | None:
        """Which secret `text` holds, in words that never show it ("the value of X from .env"); else None."""
        if not text:
            return None
        for literal in self.literals:
            if literal in text:
                source = self.sources.get(literal)
                return f"the value of {source}" if source else "the value of a configured key"
        for name, shape in zip(SHAPE_NAMES, _EACH_SHAPE, strict=True):
            if any(not is_placeholder(m.group(0)) for m in shape.finditer(text)):
                return f"what looks like {name}"
        for match in _BEARER.finditer(text):
            if not is_placeholder(match.group(0).split()[-1]):
                return "what looks like a Bearer token"
        return None

    def value(self, value: Any) -> Any:
        """Every string inside a JSON-like value (dicts, lists) redacted; other values as they are."""
        if isinstance(value, str):
            return self(value)
        if isinstance(value, list):
            return [self.value(v) for v in value]
        if isinstance(value, tuple):
            return tuple(self.value(v) for v in value)
        if isinstance(value, dict):
            return {k: self.value(v) for k, v in value.items()}
        return value

    @classmethod
    def from_environ(cls, environ: Mapping[str, str] | None = None) -> Redactor:
        """Shapes plus the secret-named variables of the process environment."""
        return cls(secret_values(os.environ if environ is None else environ))

    @classmethod
    def from_config(
        cls, config: Config, env: Mapping[str, str] | None = None, more: Iterable[tuple[str, str]] = ()
    ) -> Redactor:
        """Shapes plus every key this home is configured with (see `configured_secrets`).

        `env` is the home's `.env` as it stands now, when it may have changed since `config` was read;
        `more` are further (value, source) pairs (the tokens of `auth.json`).
        """
        found = configured_secrets(config)
        if env is not None:
            found = env_file_secrets(env) + found
        found += list(more)
        sources: dict[str, str] = {}
        for value, source in found:
            sources.setdefault(value.strip(), source)
        return cls(sources, sources)


def secret_values(variables: Mapping[str, str]) -> list[str]:
    """The values of the variables whose names say they hold a secret (`*_API_KEY`, `*_TOKEN`, …)."""
    return [value for name, value in variables.items() if value and SECRET_NAME.search(name)]


def configured_secrets(config: Config) -> list[tuple[str, str]]:
    """(value, where it comes from) of every key of a home: `.env`, the environment, the settings.

    Every real value in `.env` counts whatever its variable's name (see `env_file_secrets`); in the
    process environment, the secret-named variables and those the settings name (`model.api_key_env`).
    """
    found = env_file_secrets(config.env)
    found += _setting_secrets(config.raw)
    for name, section in config.sections.items():
        found += _setting_secrets(dict(section), name)
    for name in key_variable_names(config):
        if config.env.get(name):
            found.append((config.env[name], f"{name} from .env"))
        if os.environ.get(name):
            found.append((os.environ[name], f"{name} from the environment"))
    found += [(value, f"{name} from the environment") for name, value in _secret_environ()]
    return found


def _secret_environ() -> list[tuple[str, str]]:
    return [(name, value) for name, value in os.environ.items() if value and SECRET_NAME.search(name)]


def key_variable_names(config: Config) -> list[str]:
    """The variables the settings name as holding a key (`model.api_key_env`, `auxiliary.api_key_env`)."""
    names = [str(value) for key, value in _settings_items(config.raw) if key.endswith("key_env") and value]
    for section in config.sections.values():
        names += [str(value) for key, value in dict(section).items() if key.endswith("key_env") and value]
    return [name.strip() for name in dict.fromkeys(names) if isinstance(name, str) and name.strip()]


def env_file_secrets(env: Mapping[str, str]) -> list[tuple[str, str]]:
    """(value, source) of each `.env` entry that holds a secret: every value that is not plainly a setting.

    `.env` is where a home keeps its keys, under any name (`MYCORP_LLM_CREDS`); what is left out is a
    number, a boolean, a placeholder, a path, a sentence, or a URL without credentials or query.
    """
    return [(value, f"{name} from .env") for name, value in env.items() if _env_secret(name, value)]


def _env_secret(name: str, value: str) -> bool:
    text = (value or "").strip()
    if len(text) < MIN_LITERAL or text.lower() in _NOT_SECRETS or is_placeholder(text):
        return False
    if is_secret_name(name) or SECRET_NAME.search(name):
        return True
    if text.lstrip("+-").replace(".", "", 1).isdigit() and len(text) <= 12:
        return False
    if text.startswith(("/", "~/", "./", "../")) or any(ch.isspace() for ch in text):
        return False
    if "://" in text:
        try:
            parts = urlsplit(text)
        except ValueError:
            return True
        return bool(parts.password or parts.query)
    return True


def _settings_items(tree: Any, seen: set[int] | None = None, prefix: str = "") -> list[tuple[str, Any]]:
    """(dotted name, value) of every scalar in a config mapping.

    Each container is visited once: YAML aliases share objects, and an alias bomb must not explode here.
    """
    seen = set() if seen is None else seen
    if id(tree) in seen:
        return []
    seen.add(id(tree))
    found: list[tuple[str, Any]] = []
    if isinstance(tree, dict):
        for name, value in tree.items():
            dotted = f"{prefix}.{name}" if prefix else str(name)
            if isinstance(value, (dict, list)):
                found += _settings_items(value, seen, dotted)
            else:
                found.append((dotted, value))
    elif isinstance(tree, list):
        for index, item in enumerate(tree):
            if isinstance(item, (dict, list)):
                found += _settings_items(item, seen, f"{prefix}[{index}]")
    return found


def _setting_secrets(tree: Any, prefix: str = "", where: str = "config.yaml") -> list[tuple[str, str]]:
    """String values under secret-named keys anywhere in a config mapping (`model.api_key`, …)."""
    found = []
    for dotted, value in _settings_items(tree, None, prefix):
        name = dotted.rsplit(".", 1)[-1]
        if isinstance(value, str) and (SECRET_NAME.search(name.upper()) or is_secret_name(name)):
            found.append((value, f"{dotted} in {where}"))
    return found


def auth_file_secrets(path: Path) -> list[tuple[str, str]]:
    """(value, source) of the tokens in a home's `auth.json` (values under secret names)."""
    import json

    try:
        tree = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return _setting_secrets(tree, where="auth.json")


_HOME_CACHE: dict[tuple[Any, ...], tuple[Any, Redactor, tuple[Any, ...]]] = {}
_HOME_LOCK = threading.Lock()
HOME_CACHE_SIZE = 8  # homes (or in-memory configs) whose redactor is kept ready


def _stamp(path: Path) -> tuple[int, int, int] | None:
    try:
        info = path.stat()
    except OSError:
        return None
    return (info.st_ino, info.st_size, info.st_mtime_ns)


def _environ_mark(config: Config) -> tuple[Any, ...]:
    """What a redactor took from the process environment: the count of variables and the values of
    those it read (cheaper to compare than the whole environment at every tool call)."""
    names = [name for name, _ in _secret_environ()] + key_variable_names(config)
    return (len(os.environ), *((name, os.environ.get(name)) for name in sorted(set(names))))


def _environ_unchanged(mark: tuple[Any, ...]) -> bool:
    return mark[0] == len(os.environ) and all(os.environ.get(name) == value for name, value in mark[1:])


def home_redactor(root: Path, config: Config | None = None) -> Redactor:
    """The redactor of a home as its files stand now: rebuilt only when `.env`, `config.yaml`,
    `auth.json` or the environment's keys changed, so a key added to `.env` mid-session is hidden
    from the next tool result on.

    With `config` (settings already loaded, maybe changed in memory) its keys count as well.
    """
    from engine.config import ConfigError, load_config, parse_env_file

    env_path, config_path, auth_path = root / ".env", root / "config.yaml", root / "auth.json"
    key = (str(root), id(config), _stamp(env_path), _stamp(config_path), _stamp(auth_path))
    with _HOME_LOCK:
        cached = _HOME_CACHE.get(key)
    if cached is not None and _environ_unchanged(cached[2]):
        return cached[1]
    try:
        env = parse_env_file(env_path)
    except (ConfigError, OSError):
        env = {}
    if config is None:
        try:
            config = load_config(root)
        except (ConfigError, OSError):
            from engine.config import defaults

            config = defaults()
    redactor = Redactor.from_config(config, env, auth_file_secrets(auth_path))
    mark = _environ_mark(config)
    with _HOME_LOCK:
        stale = [k for k in _HOME_CACHE if k[:2] == key[:2]]
        for old in stale:
            del _HOME_CACHE[old]
        while len(_HOME_CACHE) >= HOME_CACHE_SIZE:
            del _HOME_CACHE[next(iter(_HOME_CACHE))]
        _HOME_CACHE[key] = (config, redactor, mark)  # the config is held so that its id is not reused
    return redactor


class RedactingStream:
    """A text stream that redacts secrets from each piece written through it (stdout, stderr)."""

    def __init__(self, stream: Any, redact: Any) -> None:
        self.stream = stream
        self.redact = redact

    def write(self, text: str) -> int:
        self.stream.write(self.redact(text))
        return len(text)

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


# Characters a key (or a Bearer token) is made of: a run of them at the end of a stream may still grow.
_TOKEN_CHAR = re.compile(r"[A-Za-z0-9._~+/=\-]")
_BEARER_TAIL = re.compile(r"(?i)\bbearer\s*$")
_KEY_END = re.compile(r"-----END [A-Z ]*PRIVATE KEY-----")
MAX_HOLD = 4096  # a tail longer than this is released (redacted as it stands): a display must not stall


class StreamRedactor:
    """Redacts text that arrives in pieces (a streamed reply), holding back a tail that may become a key.

    A key split across two deltas would pass a per-piece redaction; so the tail that could still grow
    into a key (a run of key characters, a `Bearer ` waiting for its token, an open private key block,
    the start of a configured key) is kept until the next piece or `flush()` decides it.
    """

    def __init__(self, redactor: Redactor) -> None:
        self.redactor = redactor
        self._pending = ""

    def feed(self, text: str) -> str:
        """The part of everything fed so far that is safe to show now, redacted."""
        self._pending += text
        cut = self._hold_from(self._pending)
        if len(self._pending) - cut > MAX_HOLD:
            cut = len(self._pending)
        ready, self._pending = self._pending[:cut], self._pending[cut:]
        return self.redactor(ready)

    def flush(self) -> str:
        """Whatever is still held, redacted: the stream has ended."""
        ready, self._pending = self._pending, ""
        return self.redactor(ready)

    def reset(self) -> None:
        """Forget the held tail (the attempt it belonged to was void)."""
        self._pending = ""

    def _hold_from(self, text: str) -> int:
        cut = len(text)
        while cut > 0 and _TOKEN_CHAR.match(text[cut - 1]):
            cut -= 1
        bearer = _BEARER_TAIL.search(text, 0, cut)
        if bearer:
            cut = bearer.start()
        begin = text.rfind("-----BEGIN")
        if begin >= 0 and not _KEY_END.search(text, begin):  # a private key block still open
            cut = min(cut, begin)
        for literal in self.redactor.literals:
            for size in range(min(len(literal) - 1, len(text)), 0, -1):
                if text.endswith(literal[:size]):
                    cut = min(cut, len(text) - size)
                    break
        return cut


_STREAMED = ("TextDelta", "ReasoningDelta")  # redacted by a StreamRedactor before they become events


def redact_event(event: Any, redactor: Redactor) -> Any:
    """`event` (a frozen dataclass) with every text in it redacted; the same object when nothing changes."""
    import dataclasses

    if type(event).__name__ in _STREAMED or not dataclasses.is_dataclass(event):
        return event
    changes: dict[str, Any] = {}
    for spec in dataclasses.fields(event):
        value = getattr(event, spec.name)
        if isinstance(value, (str, dict, list, tuple)) and value:
            clean = redactor.value(value)
            if clean != value:
                changes[spec.name] = clean
    return dataclasses.replace(event, **changes) if changes else event
