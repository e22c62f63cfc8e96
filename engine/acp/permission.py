"""Approvals over ACP: `ApprovalNeeded` becomes `session/request_permission`; the client's pick answers.

The options are the workstation's: allow once, allow for the session (only when the engine offers it,
with its scope in the name) and deny. A cancelled request, or an option we did not offer, denies.
"""

from __future__ import annotations

from acp import text_block, tool_content
from acp.schema import AllowedOutcome, PermissionOption, RequestPermissionResponse, ToolCallUpdate

from engine.events import ApprovalNeeded
from engine.tools.context import Decision


def options_for(event: ApprovalNeeded) -> list[PermissionOption]:
    options = [PermissionOption(option_id=Decision.ONCE.value, name="Allow once", kind="allow_once")]
    if event.allow_session:
        name = f"Allow for this session ({event.scope})" if event.scope else "Allow for this session"
        options.append(PermissionOption(option_id=Decision.SESSION.value, name=name, kind="allow_always"))
    options.append(PermissionOption(option_id=Decision.DENY.value, name="Deny", kind="reject_once"))
    return options


def tool_call_for(event: ApprovalNeeded) -> ToolCallUpdate:
    """The tool call the question is about, titled with what is asked and why."""
    rule = f" [{event.rule}]" if event.rule else ""
    title = f"Allow `{event.command}`? {event.reason}{rule}"
    content = None
    if event.detail:
        content = [tool_content(text_block(event.detail))]
    return ToolCallUpdate(
        tool_call_id=event.call_id or event.request_id, title=title, status="pending", content=content
    )


def decision_from(response: RequestPermissionResponse, event: ApprovalNeeded) -> Decision:
    """The engine's decision for the client's answer; anything but an offered option denies."""
    outcome = response.outcome
    if not isinstance(outcome, AllowedOutcome):
        return Decision.DENY
    offered = {option.option_id for option in options_for(event)}
    chosen = outcome.option_id
    return Decision(chosen) if chosen in offered else Decision.DENY
