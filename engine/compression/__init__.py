"""Three-phase context compression: flush memories, summarise the middle, split the session.

The agent talks to `Compressor` only (see `compressor.py` for the calling pattern); the other
modules are the steps, each usable and testable alone.
"""
