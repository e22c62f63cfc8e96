"""Keeping Python's full garbage collections off the frames a person watches.

A full (oldest-generation) collection walks every tracked object: with Textual, the engine and a
transcript loaded that is a few hundred thousand, and one such pass held the UI loop 100–250 ms
in the middle of a streamed reply. Two things keep it short and out of the way:

- start-up runs with collections off (`hold_for_start`: importing builds some hundred thousand
  objects, and the passes over them cost a tenth of the first frame) and `settle()`, after the
  first frame, moves what it built (modules, classes, themes, the agent) into the permanent
  generation, which collections never walk again, and turns them back on;
- `TurnCollections` holds full collections off while a turn streams (the young generations still
  run, so short-lived cycles are freed as they go) and lets one run when the turn is over.
"""

from __future__ import annotations

import gc

# While a turn runs, a full collection waits for this many young (generation-1) collections
# instead of Python's 10: a streamed reply makes a few hundred of them.
DEFERRED_FULL_COLLECTION = 1_000_000


def hold_for_start() -> None:
    """No collection until `settle()`: start-up makes objects that live as long as the process."""
    gc.disable()


def settle() -> None:
    """Freeze what exists now (start-up's modules and objects) and collect again from here on."""
    gc.freeze()
    gc.enable()


class TurnCollections:
    """Full collections wait while a turn streams; the turn's end lets Python run them again."""

    def __init__(self) -> None:
        self._saved: tuple[int, int, int] | None = None

    def hold(self) -> None:
        if self._saved is None:
            self._saved = gc.get_threshold()
            young, middle, _full = self._saved
            gc.set_threshold(young, middle, DEFERRED_FULL_COLLECTION)

    def release(self) -> None:
        if self._saved is not None:
            gc.set_threshold(*self._saved)
            self._saved = None
