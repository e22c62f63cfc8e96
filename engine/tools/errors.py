"""The one error a tool raises on purpose: its message is the result the model reads."""


class ToolError(Exception):
    """A failure the model should read: the message goes back to it as the error result."""
