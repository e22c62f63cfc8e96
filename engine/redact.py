"""Secrets out of everything we keep: the session database, exports and log files.

A `Redactor` replaces two kinds of secret with `[REDACTED]`: values shaped like a provider's key
(`sk-…`, `sk-or-…`, `sk-ant-…`, `ghp_…`, `AKIA…`, `xox…-…`, `Bearer …` and a few more), and the
literal values of the keys this home is configured with (`.env`, the environment, `model.api_key`),
whatever their shape. A model or a tool that echoes a key therefore never writes it to disk.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engine.config import Config

REDACTED = "[REDACTED]"
MIN_LITERAL = 8  # shorter configured values ("1", "true", a port) are not treated as secrets

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
_SHAPES = re.compile("|".join(f"(?:{shape})" for shape in KEY_SHAPES))
_BEARER = re.compile(r"(?i)\b(bearer)(\s+)[A-Za-z0-9._~+/=\-]{12,}")
# Names of settings and variables whose values are secrets.
SECRET_NAME = re.compile(r"(?i)(?:API_?KEY|_KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)$")
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
    """Replaces key shapes and the given literal secret values with [REDACTED]."""

    def __init__(self, literals: Iterable[str] = ()) -> None:
        found = {value.strip() for value in literals if value and value.strip()}
        usable = {v for v in found if len(v) >= MIN_LITERAL and v.lower() not in _NOT_SECRETS}
        self.literals = tuple(sorted(usable, key=len, reverse=True))  # longest first: no half-replaced key

    def __call__(self, text: str) -> str:
        if not text:
            return text
        for literal in self.literals:
            if literal in text:
                text = text.replace(literal, REDACTED)
        return redact_shapes(text)

    def text(self, value: str | None) -> str | None:
        return None if value is None else self(value)

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
    def from_config(cls, config: Config) -> Redactor:
        """Shapes plus every key this home is configured with: `.env`, the environment, `*.api_key`."""
        literals = secret_values(os.environ) + secret_values(config.env)
        literals += _secret_settings(config.raw)
        for section in config.sections.values():
            literals += _secret_settings(dict(section))
        return cls(literals)


def secret_values(variables: Mapping[str, str]) -> list[str]:
    """The values of the variables whose names say they hold a secret (`*_API_KEY`, `*_TOKEN`, …)."""
    return [value for name, value in variables.items() if value and SECRET_NAME.search(name)]


def _secret_settings(tree: Any, seen: set[int] | None = None) -> list[str]:
    """String values under secret-named keys anywhere in a config mapping (`model.api_key`, …).

    Each container is visited once: YAML aliases share objects, and an alias bomb must not explode here.
    """
    seen = set() if seen is None else seen
    if id(tree) in seen:
        return []
    seen.add(id(tree))
    found: list[str] = []
    if isinstance(tree, dict):
        for name, value in tree.items():
            if isinstance(value, str) and SECRET_NAME.search(str(name).upper()):
                found.append(value)
            elif isinstance(value, (dict, list)):
                found += _secret_settings(value, seen)
    elif isinstance(tree, list):
        for item in tree:
            if isinstance(item, (dict, list)):
                found += _secret_settings(item, seen)
    return found


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
