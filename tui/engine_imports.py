"""The engine's session package, imported once and by one thread at a time.

The workstation starts several threads at once: the agent's build, the catalogs, the pane readers,
and the history reader on the event loop. `engine.sessions` imports its submodules from its
package `__init__`, and they import the package back; two threads importing them first at the same
moment can meet in that cycle, and Python breaks the deadlock by handing one of them a partially
initialised module ("cannot import name 'RECAP_INSTRUCTIONS' from partially initialized module
'engine.sessions.session_search'": the agent could not be built, the budget pane could not read).
Every background entry point calls `load_engine()` before it touches the engine.
"""

from __future__ import annotations

import threading

_LOCK = threading.Lock()
_loaded = False


def load_engine() -> None:
    """Import `engine.sessions` whole, once; other callers wait until it is done (then return at once)."""
    global _loaded
    if _loaded:
        return
    with _LOCK:
        if not _loaded:
            import engine.sessions  # noqa: F401  (the package imports every submodule of the cycle)

            _loaded = True
