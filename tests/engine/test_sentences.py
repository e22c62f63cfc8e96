"""A message built from parts ends with one full stop, however its last part ends."""

from __future__ import annotations

import pytest

from engine.text.sentences import sentence


@pytest.mark.parametrize(
    ("built", "said"),
    [
        ("holds USER.md: dark colour schemes.", "holds USER.md: dark colour schemes."),
        ("holds USER.md: dark colour schemes", "holds USER.md: dark colour schemes."),
        ("the endpoint said 'Try again later.'", "the endpoint said 'Try again later.'"),
        ("the endpoint said 'busy'", "the endpoint said 'busy'."),
        ("retrying (1/3) after HTTP 500", "retrying (1/3) after HTTP 500."),
        ("is it running?", "is it running?"),
        ("and so on…", "and so on…"),
        ("trailing space.  ", "trailing space."),
        ("", ""),
    ],
)
def test_a_sentence_ends_once(built: str, said: str) -> None:
    assert sentence(built) == said
