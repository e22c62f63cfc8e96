"""The agent's exceptions: each message is one sentence saying what to do."""

from __future__ import annotations


class AgentError(Exception):
    """The agent cannot start or go on; the message is one sentence saying what to do."""


class AgentBusy(AgentError):
    """A turn is already running."""
