"""`clarify`: ask the person a question, with up to four choices or an answer in their own words.

The question travels the approvals' channel (`ToolContext.clarify`): the workstation shows a
question block, `hws run` asks on its terminal, and where nobody can answer the model is told to
decide for itself and say what it assumed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.tools.context import ToolContext
from engine.tools.errors import ToolError
from engine.tools.preview import quoted
from engine.tools.registry import Tool, ToolResult

MAX_CHOICES = 4
NOBODY = "No person to ask; decide and say what you assumed."

DESCRIPTION = (
    "Ask the user a question when you cannot go on without their choice: up to 4 `choices`, or none "
    "for a free answer. Not for confirming actions."
)
PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "question": {"type": "string"},
        "choices": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["question"],
    "additionalProperties": False,
}


async def clarify(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    question = str(args["question"]).strip()
    if not question:
        raise ToolError("clarify needs a `question`.")
    choices = [str(c).strip() for c in args.get("choices") or [] if str(c).strip()]
    if len(choices) > MAX_CHOICES:
        raise ToolError(f"clarify takes at most {MAX_CHOICES} choices; the user may also answer freely.")
    answer = await ctx.clarify(question, choices)
    if answer is None:
        return ToolResult({"answer": None, "note": NOBODY}, summary="nobody to ask")
    return ToolResult({"answer": answer}, summary=f"answered: {answer}")


def _preview(args: Mapping[str, Any], width: int) -> str:
    return quoted(str(args.get("question") or ""), width)


TOOL = Tool("clarify", "clarify", DESCRIPTION, PARAMETERS, clarify, _preview)
