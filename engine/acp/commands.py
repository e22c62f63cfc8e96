"""The session's skills as the client's slash commands: `/skill-name what for` loads that skill for the turn.

The same skills the model is offered; a prompt that starts with one goes through the engine's skill
invocation, as a command typed in the workstation does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import acp  # noqa: F401  first the whole SDK: a thread importing one of its submodules alone races its __init__
from acp.helpers import update_available_commands
from acp.schema import AvailableCommand, UnstructuredCommandInput

from engine.tools.preview import one_line

if TYPE_CHECKING:
    from engine.skills.tools import SkillTools

DESCRIPTION_WIDTH = 160  # characters of a skill's description shown beside its command


def skill_commands(skills: SkillTools | None) -> Any | None:
    """The `available_commands_update` for the session's skills (None when it has none)."""
    if skills is None:
        return None
    offered, _excluded = skills.library.visible(skills.library.catalog())
    if not offered:
        return None
    commands = [
        AvailableCommand(
            name=skill.name,
            description=one_line(skill.description, DESCRIPTION_WIDTH) or f"the {skill.name} skill",
            input=UnstructuredCommandInput(hint="what to do with it"),
        )
        for skill in offered
    ]
    return update_available_commands(commands)
