"""The typed events that are the only way the engine talks to a UI.

Plain frozen dataclasses: the CLI prints them (or dumps them as JSON lines), the workstation turns
each into a Textual Message. Every event carries the id of the session it belongs to.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Event:
    session_id: str

    @property
    def kind(self) -> str:
        """A stable snake_case name, used as `type` in JSON output."""
        name = type(self).__name__
        return "".join(f"_{c.lower()}" if c.isupper() else c for c in name).lstrip("_")

    def as_dict(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["type"] = self.kind
        return data


@dataclass(frozen=True)
class TurnStarted(Event):
    text: str
    turn: int


@dataclass(frozen=True)
class UserMessageStored(Event):
    """The turn's user message is in state.db as `message_id` of `session_id` (a /retry: the one asked
    again). Not sent while another program's lock keeps it in the journal."""

    message_id: int


@dataclass(frozen=True)
class TurnSteered(Event):
    """Text the person added to the running turn (`/steer`) joined the conversation at a tool boundary,
    before the next model call: stored as user message `message_id` (None while another program's
    lock keeps it in the journal)."""

    text: str
    message_id: int | None


@dataclass(frozen=True)
class ShellRan(Event):
    """A command the person ran in the session's shell (`!CMD`): its output is shown, and nothing of it
    is recorded for the model."""

    command: str
    ok: bool
    summary: str
    output: str
    duration_s: float


@dataclass(frozen=True)
class TextDelta(Event):
    text: str


@dataclass(frozen=True)
class ReasoningDelta(Event):
    text: str


@dataclass(frozen=True)
class ToolCalled(Event):
    call_id: str
    name: str
    arguments: dict[str, Any]
    preview: str  # what the arguments say in one line, without the name (`src/layout.tsx`)


@dataclass(frozen=True)
class ToolFinished(Event):
    """A tool call ended: with its result, or `interrupted` (stopped, or its turn failed, before it
    finished: `result` is the answer the model is given instead)."""

    call_id: str
    name: str
    ok: bool
    preview: str
    duration_s: float
    result: str = ""
    interrupted: bool = False


@dataclass(frozen=True)
class ApprovalNeeded(Event):
    """A destructive action waits for the user; the UI answers through the request's id.

    `rule` names the rule that asked; `scope` says in words what "approve for this session" would
    cover; `allow_session` False means that answer is not offered (it would act as "once");
    `detail` is more to show before answering (the diff a protected file would take).
    """

    request_id: str
    tool: str
    command: str
    reason: str
    rule: str = ""
    scope: str = ""
    allow_session: bool = True
    detail: str = ""
    call_id: str = ""  # the tool call that asked (empty outside a model's tool call)
    asker: str = ""  # who asks when it is not the agent itself: a subagent (`subagent 2: <goal>`)


@dataclass(frozen=True)
class ClarifyNeeded(Event):
    """The model asks the person a question (`clarify`); the UI answers through the request's id
    (`Agent.answer_approval(request_id, text)`, the channel approvals use) with one of `choices` (up to
    four, maybe none) or words of the person's own."""

    request_id: str
    question: str
    choices: tuple[str, ...] = ()
    call_id: str = ""


@dataclass(frozen=True)
class UnsavedMessages(Event):
    """Messages another program's lock on state.db kept out of it: `waiting` in `journal` (0: all
    written now). They stay in the conversation and are written once the lock is released."""

    waiting: int
    journal: str


@dataclass(frozen=True)
class ApprovedBySession(Event):
    """A call ran without asking because an earlier "approve for this session" covers it."""

    tool: str
    command: str
    rule: str
    scope: str
    call_id: str = ""


@dataclass(frozen=True)
class MemoryWritten(Event):
    target: str  # "memory" | "user"
    action: str  # add | replace | remove | batch | undo
    who: str  # agent | review | user | external
    journal_id: str
    message: str


@dataclass(frozen=True)
class FactWritten(Event):
    """The fact store changed: a fact added, updated, rated or removed, as it now stands (or stood)."""

    fact_id: int
    action: str  # add | update | remove | feedback
    content: str
    trust: float
    category: str


@dataclass(frozen=True)
class RecalledFact:
    """One stored fact put in a turn's context."""

    fact_id: int
    content: str
    trust: float
    category: str


@dataclass(frozen=True)
class FactsRecalled(Event):
    """The facts the external memory provider put in this turn's context, with their trust."""

    facts: tuple[RecalledFact, ...]


@dataclass(frozen=True)
class SkillChanged(Event):
    name: str
    action: str  # create | patch | edit | delete | write_file | remove_file | restore
    who: str
    version: str
    message: str


@dataclass(frozen=True)
class WriteStaged(Event):
    """A memory or skill write waits for the person's approval (`memory.write_approval`, `skills.…`)."""

    subsystem: str  # memory | skills
    pending_id: str
    action: str
    summary: str
    who: str  # agent | review


@dataclass(frozen=True)
class SkillLoaded(Event):
    """Tier 2 (the whole SKILL.md) or Tier 3 (one support file) entered the conversation."""

    name: str
    file_path: str
    tokens: int


@dataclass(frozen=True)
class NudgeFired(Event):
    nudge: str  # memory | skill_create | skill_patch
    reason: str


@dataclass(frozen=True)
class Usage(Event):
    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int = 0
    cost_usd: float = 0.0
    model: str = ""  # the model that answered this call
    provider: str = ""  # its provider's name (or the endpoint's host): a fallback's after a switch


@dataclass(frozen=True)
class Status(Event):
    """Something worth a line in the status bar (retrying, provider down, review running)."""

    level: str  # info | warning | error
    text: str
    reply_void: bool = False  # a retry: the reply (text and thinking) streamed so far starts over


@dataclass(frozen=True)
class ProviderSwitched(Event):
    """The provider failed for good and the session went on with the next `fallback_providers` entry.

    The `Status` before it says so in a sentence; this carries the names the budget pane shows.
    """

    model: str  # the model answering now
    provider: str  # its provider's name (or the endpoint's host)
    base_url: str
    failed: str  # `model at base_url` of the provider given up on
    reason: str = ""  # what failed, e.g. `HTTP 503`


@dataclass(frozen=True)
class GuardedSettingsChanged(Event):
    """Settings that guard the person (agent.yolo, model.base_url, …) changed on disk since the session
    began; `changes` names them (empty: they are back as they began). The session keeps its own."""

    changes: tuple[str, ...]
    message: str


@dataclass(frozen=True)
class ErrorEvent(Event):
    message: str
    retryable: bool = False


@dataclass(frozen=True)
class TurnFinished(Event):
    text: str
    interrupted: bool = False
    tool_calls: int = 0
    empty: bool = False  # the model answered, with nothing: no words and no tool call


@dataclass(frozen=True)
class CompressionStarted(Event):
    reason: str  # threshold | overflow | manual
    tokens_before: int


@dataclass(frozen=True)
class CompressionPhase(Event):
    phase: str  # flush | summarize | split
    tokens_before: int
    tokens_after: int
    detail: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class CompressionFinished(Event):
    old_session_id: str
    new_session_id: str
    tokens_before: int
    tokens_after: int
    summary: str
    flushed: tuple[str, ...] = ()
    compressed: bool = True  # False: nothing was dropped (nothing to compress, or it failed); see note
    note: str = ""


@dataclass(frozen=True)
class SessionTitled(Event):
    """The session has a title now; `by` says who chose it: `model` (the auxiliary model), `words`
    (the first words of its first message) or `user` (`/title`)."""

    title: str
    by: str


@dataclass(frozen=True)
class ConversationTooLarge(Event):
    """The conversation no longer fits the context window and compression cannot shorten it enough
    (sent once when that becomes true, and once with `fits=True` when it fits again)."""

    tokens: int
    window: int
    message: str  # what happened and what to do, in one or two sentences
    fits: bool = False


@dataclass(frozen=True)
class SessionResumed(Event):
    """A past session was opened to go on with: its title ("" when it has none) and its stored messages."""

    title: str
    messages: int

    @property
    def sentence(self) -> str:
        """What a person reads once the session is open again: `Resumed “Deploy” (…): 12 messages.`"""
        name = f"“{self.title}” ({self.session_id})" if self.title else f"session {self.session_id}"
        return f"Resumed {name}: {self.messages:,} message{'' if self.messages == 1 else 's'}."


@dataclass(frozen=True)
class SessionChanged(Event):
    """The conversation moved to another session (new, resumed, or split by compression)."""

    previous_session_id: str
    reason: str


@dataclass(frozen=True)
class ConversationRewound(Event):
    """The last `exchanges` exchanges were taken back (`/undo N`), from the user message
    `target_message_id` on. Its `message_ids` stay in state.db marked inactive (search still finds
    them, as rewound); `text` is that user message, to put back in the input to edit and send again;
    the model's next call gets the `remaining` messages before it."""

    target_message_id: int
    text: str
    message_ids: tuple[int, ...]
    exchanges: int
    remaining: int
    # The checkpoint holding the working folder as the first rewound turn found it, when files changed
    # since: a rollback to it is offered (never made unasked). "" and 0 when there is nothing to offer.
    checkpoint_id: str = ""
    files_changed: int = 0
    project: str = ""  # the folder that checkpoint is of

    @property
    def sentence(self) -> str:
        """`Rewound 2 exchanges (6 messages); your message is back in the input.`"""
        plural = "" if self.exchanges == 1 else "s"
        count = len(self.message_ids)
        return (
            f"Rewound {self.exchanges} exchange{plural} ({count} message{'' if count == 1 else 's'}, kept "
            "in the session database as rewound); your message is back in the input to edit and send."
        )


@dataclass(frozen=True)
class SessionBranched(SessionChanged):
    """The conversation goes on in a branch (`/branch`): `session_id` is the new child session holding a
    copy of it (`messages` of them, up to `at_message_id`), titled `title`; `previous_session_id` is
    the original, ended as `branched` and still resumable. A UI that knows only `SessionChanged`
    sees it as one, with reason `branched`."""

    title: str
    at_message_id: int | None
    messages: int

    @property
    def sentence(self) -> str:
        return (
            f"Branched into “{self.title}” ({self.session_id}) with {self.messages:,} message"
            f"{'' if self.messages == 1 else 's'}; the original {self.previous_session_id} stays resumable."
        )


@dataclass(frozen=True)
class ToolProgress(Event):
    """A running tool call said how far it is (an MCP server's progress notification)."""

    call_id: str
    name: str
    progress: float
    total: float | None
    message: str


@dataclass(frozen=True)
class ProcessStarted(Event):
    """A background process started (`terminal` with `background: true`)."""

    process_id: str
    command: str
    where: str  # `local`, `ssh dev@box`, `docker python:3.12`
    log: str  # its log file under the session's folder


@dataclass(frozen=True)
class ProcessOutput(Event):
    """A background process printed more (sent at most about once a second per process)."""

    process_id: str
    last_line: str
    total_bytes: int


@dataclass(frozen=True)
class ProcessEnded(Event):
    """A background process ended: by itself, killed by the model or the person, or with the session."""

    process_id: str
    command: str
    exit_code: int | None
    reason: str  # exited | killed | session_end | lost
    message: str  # one sentence


@dataclass(frozen=True)
class CheckpointTaken(Event):
    """The working folder was saved before the turn's first change (`hws checkpoints restore ID` brings
    it back). `unchanged`: nothing had changed since checkpoint `checkpoint_id`, so it covers this turn."""

    checkpoint_id: str
    turn: int
    reason: str  # the call that prompted it, in one line: `write_file notes.txt`
    project: str
    files: int
    unchanged: bool = False


@dataclass(frozen=True)
class CheckpointSkipped(Event):
    """The working folder was not saved before a change (too large, or git failed); said once per folder."""

    project: str
    message: str  # what happened and what to change, in one sentence


@dataclass(frozen=True)
class SubagentStarted(Event):
    """`delegate_task` handed a task to a child agent, which runs it in its own session
    `child_session_id` (source `subagent`, its parent this session). `call_id` is the parent's
    `delegate_task` call; `index` the task's place in it (1-based)."""

    child_session_id: str
    call_id: str
    index: int
    goal: str
    background: bool = False


@dataclass(frozen=True)
class SubagentProgress(Event):
    """What a running child did: `step` is `tool_called` or `tool_finished` (with the tool's id, name,
    preview and outcome) or `usage` (a model call came back). The totals are the child's so far; they
    are never counted in the parent's own usage."""

    child_session_id: str
    call_id: str
    step: str
    tool_call_id: str = ""
    name: str = ""
    preview: str = ""
    ok: bool = True
    duration_s: float = 0.0
    calls: int = 0  # the child's model calls so far
    prompt_tokens: int = 0
    completion_tokens: int = 0


@dataclass(frozen=True)
class SubagentFinished(Event):
    """A child ended: `status` is completed, failed, interrupted or max_turns; `summary` is its final
    answer (what the parent is given). A background child's result also joins the parent's
    conversation as a message."""

    child_session_id: str
    call_id: str
    index: int
    status: str
    summary: str
    tool_calls: int = 0
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    duration_s: float = 0.0
    background: bool = False
