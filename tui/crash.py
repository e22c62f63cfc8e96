"""When the workstation stops on an unexpected error: the error in the home's logs, a sentence, an exit.

Textual prints the traceback and returns from `run()`, but the session's database connection was
never closed, and its thread (not a daemon) kept the process waiting at exit for good under the
traceback: the person had to kill it. What was committed is on disk, so leaving at once loses nothing.
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path
from typing import Any, NoReturn

SAVED = (
    "hws stopped on an unexpected error (above). Your conversation, memory and skills are saved as they "
    "were; the details are in the home's logs/errors.log. Start hws again to go on."
)


def redact_crash_output(app: Any, home_root: Path, config: Any) -> None:
    """The traceback Textual prints when the app stops (with each frame's locals) passes the home's
    redactor, `.env` included. Printed without colours, so no escape code splits a key from its match."""
    from rich.console import Console

    from engine.threats.redact import RedactingStream, home_redactor

    def redact(text: str) -> str:
        return home_redactor(home_root, config)(text)

    app.error_console = Console(
        file=RedactingStream(sys.stderr, redact), markup=False, highlight=False, color_system=None
    )


def crash_code(app: Any) -> int | None:
    """The exit code when `app` stopped on an error (logged under the engine's logger), else None."""
    error = getattr(app, "_exception", None)  # Textual keeps the error that stopped the app here
    if error is None:
        return None
    # The engine's logger writes the home's logs (engine.logs.setup_logging), secrets redacted.
    log = logging.getLogger("engine.workstation")
    log.error("the workstation stopped on an unexpected error", exc_info=error)
    return int(getattr(app, "return_code", None) or 1)


def exit_after_crash(code: int, sentence: str = SAVED) -> NoReturn:
    """Say `sentence` under the traceback and leave now, without waiting for the database's thread."""
    print(sentence, file=sys.stderr)
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
