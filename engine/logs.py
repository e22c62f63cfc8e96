"""Log files under `$HERMES_HOME/logs`: `agent.log` (info and up) and `errors.log` (warnings and up).

Every record is redacted before it is written (message, arguments and traceback alike), so a key
that reaches an exception message or a debug line never lands on disk.
"""

from __future__ import annotations

import logging
import logging.handlers
from typing import TYPE_CHECKING

from engine.threats.redact import Redactor, home_redactor

if TYPE_CHECKING:
    from engine.config import Config
    from engine.home import Home

LOGGER = "engine"  # every engine module logs under it
FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
_installed: list[logging.Handler] = []


class RedactingFormatter(logging.Formatter):
    """Formats a record as usual, then removes secrets from the whole text (traceback included)."""

    def __init__(self, redactor: Redactor) -> None:
        super().__init__(FORMAT)
        self.redactor = redactor

    def format(self, record: logging.LogRecord) -> str:
        return self.redactor(super().format(record))


class _QuietFileHandler(logging.handlers.RotatingFileHandler):
    """A log file that, when it cannot be written (disk full, read-only), drops the record silently:
    the default prints a traceback to stderr, which would look like the command crashed."""

    def handleError(self, record: logging.LogRecord) -> None:
        pass


def setup_logging(home: Home, config: Config, redactor: Redactor | None = None) -> list[logging.Handler]:
    """Send the engine's log records to the home's log files (replacing any handlers set up before).

    A home whose logs folder cannot be written gets no file handlers: logging must never stop a command.
    """
    logger = logging.getLogger(LOGGER)
    for handler in _installed:
        logger.removeHandler(handler)
        handler.close()
    _installed.clear()
    redactor = redactor if redactor is not None else home_redactor(home.root, config)
    formatter = RedactingFormatter(redactor)
    level = getattr(logging, str(config.logs.level).upper(), logging.INFO)
    for name, handler_level in (("agent.log", level), ("errors.log", logging.WARNING)):
        try:
            home.logs.mkdir(parents=True, exist_ok=True)
            handler = _QuietFileHandler(
                home.logs / name,
                maxBytes=int(config.logs.max_bytes),
                backupCount=int(config.logs.backups),
                encoding="utf-8",
                delay=True,
            )
        except OSError:
            continue
        handler.setLevel(handler_level)
        handler.setFormatter(formatter)
        logger.addHandler(handler)
        _installed.append(handler)
    if not _installed:  # no file could be opened: without a handler, Python prints warnings on stderr,
        quiet = logging.NullHandler()  # over the workstation's screen
        logger.addHandler(quiet)
        _installed.append(quiet)
    logger.setLevel(min(level, logging.WARNING))
    return list(_installed)
