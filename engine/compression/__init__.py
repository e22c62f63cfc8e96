"""Three-phase context compression: flush memories, summarise the middle, split the session.

The agent talks to `Compressor` only (see `compressor.py` for the calling pattern); the other
modules are the steps, each usable and testable alone.

The names below load their submodule on first use (engine/lazy_names.py says why).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.lazy_names import lazy_names

__getattr__, __dir__ = lazy_names(
    __name__,
    {
        "compressor": "REASONS CompressionOutcome Compressor summary_of",
        "messages": "is_summary",
    },
)

if TYPE_CHECKING:
    from engine.compression.compressor import REASONS as REASONS
    from engine.compression.compressor import CompressionOutcome as CompressionOutcome
    from engine.compression.compressor import Compressor as Compressor
    from engine.compression.compressor import summary_of as summary_of
    from engine.compression.messages import is_summary as is_summary
