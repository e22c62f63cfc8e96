"""Secrets removed from what the summariser reads: a summary must never carry a key forward."""

from __future__ import annotations

import re

from engine.redact import KEY_SHAPES, REDACTED, SHAPE_HINTS

__all__ = ["REDACTED", "redact"]

_TOKENS = re.compile("|".join(f"(?:{p})" for p in KEY_SHAPES))  # the same shapes as engine.redact
# `password = hunter2`, `"api_key": "..."`, `Authorization: Bearer ...`: the name stays, the value goes.
_ASSIGNED = re.compile(
    r"""(?ix)
    (?P<name>\b[\w.\-]*(?:api[_\-]?key|secret|token(?!s)|passw(?:or)?d|passwd|credential|authorization)
        [\w.\-]*["']?
        \s*[:=]\s*(?:bearer\s+|basic\s+)?["']?)
    (?P<value>[^\s"',;]{6,})
    """
)
_BEARER = re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=\-]{12,}")
_URL_CREDENTIALS = re.compile(r"(?i)\b([a-z][a-z0-9+.\-]*://)([^\s:/@]+):([^\s@/]+)@")
_MEDIA = re.compile(r"MEDIA:\S+")


_ASSIGNED_HINTS = ("key", "secret", "token", "passw", "credential", "authorization")


def redact(text: str) -> str:
    """The text with secrets replaced by [REDACTED] and media markers by `[media attachment]`."""
    if not text:
        return text
    lower = text.lower()
    if any(hint in lower for hint in SHAPE_HINTS):
        text = _TOKENS.sub(REDACTED, text)
    if "://" in text and "@" in text:
        text = _URL_CREDENTIALS.sub(lambda m: f"{m.group(1)}{m.group(2)}:{REDACTED}@", text)
    if "bearer" in lower or "basic" in lower:
        text = _BEARER.sub(lambda m: f"{m.group(1)} {REDACTED}", text)
    if any(hint in lower for hint in _ASSIGNED_HINTS):
        text = _ASSIGNED.sub(_keep_name, text)
    if "MEDIA:" in text:
        text = _MEDIA.sub("[media attachment]", text)
    return text


def _keep_name(match: re.Match[str]) -> str:
    value = match.group("value")
    if value.startswith("[REDACTED") or value.replace(".", "").isdigit():
        return match.group(0)
    return match.group("name") + REDACTED
