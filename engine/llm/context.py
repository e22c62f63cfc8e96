"""How big a model's context window is: config, what context errors taught us, the endpoint, a default.

What errors teach is remembered per `model@base_url` in `$HERMES_HOME/context_length_cache.yaml`,
the file and format Hermes Agent keeps (`context_lengths: {model@url: tokens}`), so both agree.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from engine.storage.atomic import atomic_write_text, file_lock

CACHE_FILE = "context_length_cache.yaml"
MAX_CACHE_BYTES = 1_000_000
STEP_DOWN_TIERS = (256_000, 128_000, 64_000, 32_000, 16_000, 8_000)
SMALLEST_CONTEXT = STEP_DOWN_TIERS[-1]
STEP_DOWN_MARGIN = 0.9  # 131,072 refused steps to 64K, not to 128K: a 2% cut would only fail again

# Fields servers use for the window in /models entries: OpenRouter, vLLM, LM Studio, llama.cpp, others.
MODEL_FIELDS = (
    "context_length",
    "context_window",
    "max_context_length",
    "max_model_len",
    "n_ctx",
    "max_tokens",
)
NESTED_FIELDS = (("top_provider", "context_length"), ("meta", "n_ctx_train"), ("meta", "n_ctx"))

_CONTEXT_ERROR = re.compile(
    r"context[ _-]?length|context[ _-]?window|maximum context|context size|prompt is too long|"
    r"too many tokens|reduce the length|exceeds? the (?:available )?context|input is too long|"
    r"token limit|n_ctx",
    re.IGNORECASE,
)
_LIMIT_PATTERNS = (
    re.compile(r"maximum context length is\s+([\d,]+)", re.I),
    re.compile(
        r"context (?:length|window|size)(?: of| is|:)?\s*(?:only\s+)?\(?([\d,]+)\s*(?:tokens)?\)?", re.I
    ),
    re.compile(r"available context size \(([\d,]+) tokens\)", re.I),
    re.compile(r"([\d,]+)\s*tokens?\s*>\s*([\d,]+)\s*maximum", re.I),
    re.compile(r"n_ctx(?:_slot)?\s*[=:]\s*([\d,]+)", re.I),
    re.compile(r"(?:limit|maximum) (?:of|is)\s+([\d,]+)\s+tokens", re.I),
)


def is_context_error(text: str) -> bool:
    """True when an error message says the prompt did not fit the model's window."""
    return bool(_CONTEXT_ERROR.search(text or ""))


def parse_context_limit(text: str) -> int | None:
    """The window size an error message names, if it names one (e.g. "maximum context length is 32768")."""
    for pattern in _LIMIT_PATTERNS:
        found = pattern.search(text or "")
        if found:
            number = found.group(found.lastindex or 1)
            value = int(number.replace(",", ""))
            if value >= 256:  # smaller numbers are token counts of something else
                return value
    return None


def step_down(current: int, error_text: str = "") -> int:
    """The window to assume after a context error: the limit the error names, else the next tier down.

    Tiers are 256K, 128K, 64K, 32K, 16K and 8K; the next one is the first clearly (10 %) below.
    """
    parsed = parse_context_limit(error_text)
    if parsed is not None:
        return min(parsed, current)  # a named limit is the truth; no need to guess lower
    below = current * STEP_DOWN_MARGIN
    for tier in STEP_DOWN_TIERS:
        if tier < below:
            return tier
    return SMALLEST_CONTEXT


def context_from_models(entries: Iterable[Any], model: str) -> int | None:
    """The window the endpoint's /models listing gives for `model`, if it gives one."""
    for entry in entries:
        data = entry if isinstance(entry, dict) else getattr(entry, "model_dump", lambda: {})()
        if not isinstance(data, dict) or data.get("id") != model:
            continue
        for name in MODEL_FIELDS:
            value = data.get(name)
            if isinstance(value, int) and not isinstance(value, bool) and value > 0:
                return value
        for outer, inner in NESTED_FIELDS:
            nested = data.get(outer)
            if isinstance(nested, dict) and isinstance(nested.get(inner), int) and nested[inner] > 0:
                return int(nested[inner])
    return None


@dataclass(frozen=True)
class ContextInfo:
    tokens: int
    source: str  # config | learned | endpoint | default


def cache_key(model: str, base_url: str) -> str:
    return f"{model}@{base_url}"


class ContextLengthCache:
    """The windows learned from context errors, per `model@base_url`, kept in the home."""

    def __init__(self, home_root: Path | None) -> None:
        self.path = home_root / CACHE_FILE if home_root is not None else None
        self._memory: dict[str, int] = {}

    def get(self, model: str, base_url: str) -> int | None:
        key = cache_key(model, base_url)
        if key in self._memory:
            return self._memory[key]
        value = self._read().get(key)
        if value is not None:
            self._memory[key] = value
        return value

    def remember(self, model: str, base_url: str, tokens: int) -> None:
        """Store a learned window; other entries (Hermes' included) are kept as they were."""
        key = cache_key(model, base_url)
        self._memory[key] = tokens
        if self.path is None:
            return
        with file_lock(self.path):
            entries = self._read()
            if not entries and self._unreadable():
                # Never silently drop a file we could not parse: keep it beside the new one.
                os.replace(self.path, self.path.with_name(self.path.name + ".bad"))
            entries[key] = tokens
            text = yaml.safe_dump({"context_lengths": entries}, sort_keys=True, allow_unicode=True)
            atomic_write_text(self.path, text)

    def _unreadable(self) -> bool:
        assert self.path is not None
        try:
            text = self.path.read_text(encoding="utf-8")
            data = yaml.safe_load(text)
        except FileNotFoundError:
            return False
        except (OSError, UnicodeDecodeError, yaml.YAMLError):
            return True
        return data is not None and not (
            isinstance(data, dict) and isinstance(data.get("context_lengths") or {}, dict)
        )

    def _read(self) -> dict[str, int]:
        if self.path is None:
            return {}
        try:
            if self.path.stat().st_size > MAX_CACHE_BYTES:
                return {}
            data = yaml.safe_load(self.path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, yaml.YAMLError):
            return {}  # a cache: unreadable means unknown, and the next write replaces it
        entries = data.get("context_lengths") if isinstance(data, dict) else None
        if not isinstance(entries, dict):
            return {}
        return {
            str(k): int(v)
            for k, v in entries.items()
            if isinstance(v, int) and not isinstance(v, bool) and v > 0
        }
