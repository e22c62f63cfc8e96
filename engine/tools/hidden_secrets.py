"""A write must not destroy a secret the model was only shown as `[REDACTED]`.

Tool results hide secrets (`DB_PASSWORD=[REDACTED]`); a model that writes back what it read would
replace the real value with the marker. Such a write is refused with a sentence that says how to edit
around the secret instead.
"""

from __future__ import annotations

from engine.threats.redact import REDACTED, Redactor
from engine.tools.errors import ToolError

MISSING_HINT = (
    "old_string holds [REDACTED], which stands for a secret the file really holds there; "
    "choose old_string from the lines around it."
)


def refuse_hidden_secret_loss(redactor: Redactor, before: str | None, after: str, shown: str) -> None:
    """Raise a ToolError when `after` adds [REDACTED] markers to a file whose secrets were hidden."""
    if before is None or REDACTED not in after:
        return
    kept = before.count(REDACTED)
    if redactor.tool_text(before).count(REDACTED) <= kept:  # nothing in the file was hidden
        return
    if after.count(REDACTED) > kept:
        raise ToolError(
            f"{shown} holds secrets you were shown as [REDACTED]; this write would replace them with the "
            "text [REDACTED]. Nothing was written: leave those lines out of your edit (patch the lines "
            "around them), or ask the person to change them."
        )
