"""Secrets removed from what the summariser reads: a summary must never carry a key forward."""

from __future__ import annotations

import re

REDACTED = "[REDACTED]"

# Values that are secrets whatever surrounds them (provider keys, tokens, private keys).
_TOKEN_PATTERNS = [
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|\Z)",
    r"\bsk-(?:ant-|proj-|or-v1-)?[A-Za-z0-9_\-]{16,}",
    r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b",
    r"\bgh[pousr]_[A-Za-z0-9]{30,}\b",
    r"\bgithub_pat_[A-Za-z0-9_]{30,}\b",
    r"\bglpat-[A-Za-z0-9_\-]{20,}\b",
    r"\bxox[abposr]-[A-Za-z0-9\-]{10,}\b",
    r"\bAIza[0-9A-Za-z_\-]{35}\b",
    r"\bhf_[A-Za-z0-9]{30,}\b",
    r"\b(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]{16,}\b",
    r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}",
]
_TOKENS = re.compile("|".join(f"(?:{p})" for p in _TOKEN_PATTERNS))
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


# Substrings (lower case) without which a pattern cannot match: most text skips most patterns.
_TOKEN_HINTS = (
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
_ASSIGNED_HINTS = ("key", "secret", "token", "passw", "credential", "authorization")


def redact(text: str) -> str:
    """The text with secrets replaced by [REDACTED] and media markers by `[media attachment]`."""
    if not text:
        return text
    lower = text.lower()
    if any(hint in lower for hint in _TOKEN_HINTS):
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
