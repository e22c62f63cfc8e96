"""Dates named in a question ("in May 2023", "during March 2024"), as a range of timestamps."""

from __future__ import annotations

import re
from datetime import datetime

MONTHS = (
    "january", "february", "march", "april", "may", "june",
    "july", "august", "september", "october", "november", "december",
)  # fmt: skip
_MONTH_YEAR = re.compile(r"\b(" + "|".join(MONTHS) + r")\s*,?\s+((?:19|20)\d\d)\b", re.IGNORECASE)


def month_named(text: str) -> tuple[float, float] | None:
    """The local-time span of the first month written with its year in `text`, or None."""
    match = _MONTH_YEAR.search(text)
    if match is None:
        return None
    month, year = MONTHS.index(match.group(1).lower()) + 1, int(match.group(2))
    start = datetime(year, month, 1)
    end = datetime(year + (month == 12), month % 12 + 1, 1)
    return start.timestamp(), end.timestamp() - 1e-6
