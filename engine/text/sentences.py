"""Sentences built from parts: a message that ends with a part ends with one full stop, never two.

A part (a memory entry, an error's message, a provider's reason) may already end as a sentence does;
`sentence()` closes the whole only where the part left it open.
"""

from __future__ import annotations

ENDINGS = (".", "!", "?", "…")
CLOSERS = "\"')]»”’`"  # a quotation or a bracket after the mark still ends the sentence


def ends_a_sentence(text: str) -> bool:
    """True when `text` already ends with a full stop, a question or exclamation mark or an ellipsis."""
    return text.rstrip().rstrip(CLOSERS).endswith(ENDINGS)


def sentence(text: str) -> str:
    """`text` with one closing full stop: added when missing, never doubled."""
    text = text.rstrip()
    return text if not text or ends_a_sentence(text) else text + "."
