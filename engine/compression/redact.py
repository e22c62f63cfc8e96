"""Secrets removed from what the summariser reads: a summary must never carry a key forward."""

from __future__ import annotations

import re

from engine.threats.redact import REDACTED, redact_shapes
from engine.threats.redact_forms import redact_forms

__all__ = ["REDACTED", "redact"]

_MEDIA = re.compile(r"MEDIA:\S+")


def redact(text: str) -> str:
    """The text with secrets replaced by [REDACTED] and media markers by `[media attachment]`.

    The same shapes and forms as `engine.threats.redact` (`sk-…`, `PASSWORD=…`, `user:pass@`, `Bearer …`).
    """
    if not text:
        return text
    text = redact_shapes(redact_forms(text))
    if "MEDIA:" in text:
        text = _MEDIA.sub("[media attachment]", text)
    return text
