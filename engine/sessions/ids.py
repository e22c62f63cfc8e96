"""Session ids and titles in Hermes Agent's formats."""

from __future__ import annotations

import re
import secrets
from datetime import datetime

from engine.sessions.errors import StoreError
from engine.sessions.records import scrub

MAX_TITLE_CHARS = 100
SESSION_ID_RE = re.compile(r"^\d{8}_\d{6}_[0-9a-f]{6}$")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
# Zero-width, line/paragraph separators, bidi embeddings/overrides/isolates, BOM, object replacement.
_INVISIBLE = re.compile(r"[\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ufff9-\ufffc]")
_CONTINUATION = re.compile(r"^(.*?) #(\d+)$")


def new_session_id(at: datetime | None = None) -> str:
    """`YYYYMMDD_HHMMSS_<6 hex>` in local time, as Hermes names sessions."""
    moment = at or datetime.now()
    return f"{moment:%Y%m%d_%H%M%S}_{secrets.token_hex(3)}"


def sanitize_title(title: str | None, *, truncate: bool = False) -> str | None:
    """A title with control, zero-width and bidi characters removed and whitespace collapsed.

    Empty results become None. Past 100 characters it is cut when `truncate`, else refused, so a
    title the user typed is never silently shortened.
    """
    if not title:
        return None
    cleaned = _INVISIBLE.sub("", _CONTROL.sub("", scrub(title) or ""))
    cleaned = " ".join(cleaned.split())
    if not cleaned:
        return None
    if len(cleaned) > MAX_TITLE_CHARS:
        if not truncate:
            raise StoreError(
                f"A session title has at most {MAX_TITLE_CHARS} characters; this one has {len(cleaned)}."
            )
        cleaned = cleaned[: MAX_TITLE_CHARS - 1].rstrip() + "…"
    return cleaned


def continuation_base(title: str) -> str:
    """`"Plan #3"` -> `"Plan"`: the title a compression chain shares."""
    match = _CONTINUATION.match(title)
    return match.group(1) if match else title


def continuation_title(base: str, taken: set[str]) -> str:
    """The first free `"base #N"` (N from 2) for the next session of a chain."""
    number = 2
    while True:
        suffix = f" #{number}"
        candidate = base[: MAX_TITLE_CHARS - len(suffix)] + suffix
        if candidate not in taken:
            return candidate
        number += 1
