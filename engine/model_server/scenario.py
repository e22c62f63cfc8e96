r"""Scenario files: which reply the scripted model server streams for each request.

A scenario is a YAML mapping a person can write by hand. Rules are tried top to bottom for
every chat request; the first rule whose `when` matches and whose `times` is not used up
answers. A list of rules with `times: 1` each is therefore a plain script played in order,
and a rule with no `when` and no `times` is a catch-all.

    name: greeting                   # shown in logs; defaults to the file name
    model: scripted                  # model id(s) served by /v1/models (a string or a list)
    context_length: 128000           # reported by /v1/models as `context_length`; 0 leaves it out
    defaults:                        # reply settings used when a rule gives none
      chunk_size: 12                 #   characters per text delta
      chunk_delay: 0                 #   seconds between deltas (a slow model)
      fragment_size: 16              #   characters of tool-call arguments per delta
      repeat_id_name: false          #   repeat tool-call id and name on every delta (llama.cpp)
      interleave: false              #   alternate the fragments of parallel tool calls
      reasoning_field: reasoning_content   # or `reasoning` (OpenRouter's name)
      http_chunk_per_event: false    #   frame each SSE event as its own HTTP chunk (as uvicorn does);
                                     #   by default events sent together share one chunk
    usage:
      cache: prefix                  # cached_tokens = shared prefix with the previous request; or none
    kinds:                           # named conditions usable as `when: {kind: NAME}`
      flush: {user: "(?i)save anything worth remembering"}
    no_match: {text: "I have no scripted answer."}   # default: HTTP 400 naming the request
    rules:
      - name: greet
        when: {turn: 1, user: "(?i)hello (\\w+)"}
        reply: {text: "Hello, {{match.1}}!", reasoning: "A greeting."}
      - when: {tools: [memory], iteration: 1}
        times: 1
        reply:
          text: "Saving that."
          tool_calls:
            - {name: memory, arguments: {action: add, target: user, content: "{{last_user}}"}}
            - {name: terminal, arguments_raw: '{"command": "ls'}     # broken JSON, sent verbatim
      - when: {after_tool: true}
        reply: {text: "Done: {{last_tool_result}}"}
      - when: {call: 7}
        fault: {kind: rate_limit, retry_after: 2}

`when` conditions (all given must hold):
  call, turn, iteration   a number, a list of numbers, or {min, max, every}; `call` counts chat
                          requests since the server started, `turn` counts user messages in the
                          request, `iteration` counts model calls since the last user message (1 first)
  user, system            regex searched in the last user message / the system prompt
  tool_result             regex searched in the last tool result
  last_tool               name of the tool whose result is the last message
  after_tool              true when the last message is a tool result (false: it is not)
  tools                   names that must all be offered; `tools_exactly` the exact set offered
  no_tools                true when no tools are offered
  kind                    a name from `kinds` (built in: title, flush, summary, security_review,
                          subagent), or `chat` for none of them
  model                   regex over the requested model name
  stream                  true or false
  prompt_tokens_over      the request's estimated size (characters / 4) exceeds this

`reply` keys: text, chunks (explicit list of text deltas), reasoning, tool_calls (each `name`
plus `arguments` mapping or `arguments_raw` string, optional `id`), finish_reason (`none` sends
null, as a few servers do), delay (seconds
before the first byte), usage ({prompt_tokens, completion_tokens, cached_tokens}), and the
`defaults` keys above. Strings may use `{{last_user}}`, `{{last_tool_result}}`,
`{{last_tool_name}}`, `{{turn}}`, `{{call}}`, `{{iteration}}`, `{{model}}`, `{{tools}}` and
`{{match.N}}` / `{{match.NAME}}` (groups of the first matching `user`/`tool_result`/`system` regex).

`fault` kinds: rate_limit (429, retry_after seconds), server_error (500 or `status`), http
(any `status`, `message`), context_length (400 naming `limit`; `mention_limit: false` hides the
number), cut (close the connection after `after_chunks` deltas of the reply), stall (stop for
`seconds` after `after_chunks` deltas, then go on), drop (close before answering), empty (a
reply with no content), slow (`chunk_delay` between deltas, `delay` before the first byte),
stream_error (an `{"error": {...}}` event with `message` after `after_chunks` deltas, as OpenRouter
sends when the upstream provider fails mid-reply).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MAX_SCENARIO_BYTES = 5_000_000
DEFAULT_MODEL = "scripted"
DEFAULT_CONTEXT_LENGTH = 128_000
BUILTIN_DIR = Path(__file__).parent / "scenarios"

TOP_KEYS = {
    "name",
    "description",
    "model",
    "context_length",
    "defaults",
    "usage",
    "kinds",
    "rules",
    "no_match",
}
RULE_KEYS = {"name", "when", "times", "reply", "fault"}
NUMBER_CONDITIONS = {"call", "turn", "iteration"}
REGEX_CONDITIONS = {"user", "system", "tool_result", "model"}
WHEN_KEYS = (
    NUMBER_CONDITIONS
    | REGEX_CONDITIONS
    | {
        "last_tool",
        "after_tool",
        "tools",
        "tools_exactly",
        "no_tools",
        "kind",
        "stream",
        "prompt_tokens_over",
    }
)
STYLE_KEYS = {"chunk_size", "chunk_delay", "fragment_size", "repeat_id_name", "interleave", "reasoning_field"}
STYLE_KEYS |= {"http_chunk_per_event"}
REPLY_KEYS = STYLE_KEYS | {"text", "chunks", "reasoning", "tool_calls", "finish_reason", "delay", "usage"}
TOOL_CALL_KEYS = {"name", "arguments", "arguments_raw", "id"}
USAGE_KEYS = {"prompt_tokens", "completion_tokens", "cached_tokens"}
FAULT_KINDS = {
    "rate_limit",
    "server_error",
    "http",
    "context_length",
    "cut",
    "stall",
    "drop",
    "empty",
    "slow",
    "stream_error",
}
FAULT_KEYS = {"kind", "status", "message", "retry_after", "after_chunks", "seconds", "limit", "mention_limit"}
FAULT_KEYS |= {"chunk_delay", "delay"}
TEMPLATE_VARS = {
    "last_user",
    "last_tool_result",
    "last_tool_name",
    "turn",
    "call",
    "iteration",
    "model",
    "tools",
    "match",
}
TEMPLATE = re.compile(r"\{\{\s*([A-Za-z_]+)(?:\.([A-Za-z0-9_]+))?\s*\}\}")

STYLE_DEFAULTS: dict[str, Any] = {
    "chunk_size": 12,
    "chunk_delay": 0.0,
    "fragment_size": 16,
    "repeat_id_name": False,
    "interleave": False,
    "reasoning_field": "reasoning_content",
    "http_chunk_per_event": False,
}
BUILTIN_KINDS: dict[str, dict[str, Any]] = {
    # a session's title, asked of the auxiliary model (engine/agent/titles.py's instructions); first,
    # as the exchange it shows may itself ask for a summary
    "title": {"no_tools": True, "system": r"(?i)write a title for this conversation"},
    "flush": {"user": r"(?i)(session is being compressed|save anything worth remembering)"},
    "summary": {"no_tools": True, "user": r"(?i)\bsummar(y|ise|ize)\b"},
    # the second opinion of `security.aux_review` (engine/threats/review.py's system prompt)
    "security_review": {"no_tools": True, "system": r"(?i)security reviewer of an AI agent"},
    # a child agent's call (`delegate_task`): its system prompt ends with engine/agent/subagent.py's layer
    "subagent": {"system": r"# Subagent\nYou are a subagent"},
}
FILLER_TEXT = "This reply was scripted to be interrupted part way through, so it goes on for a while."


class ScenarioError(Exception):
    """A scenario that cannot be played; the message names the file, the line and the fix."""


@dataclass(frozen=True)
class NumberMatch:
    """A number condition: exact values, or a range with an optional period."""

    values: frozenset[int] = frozenset()
    minimum: int | None = None
    maximum: int | None = None
    every: int | None = None

    def matches(self, value: int) -> bool:
        if self.values:
            return value in self.values
        if self.minimum is not None and value < self.minimum:
            return False
        if self.maximum is not None and value > self.maximum:
            return False
        return not (self.every and value % self.every)


@dataclass(frozen=True)
class Condition:
    """The parsed `when` of a rule (or of a named kind)."""

    numbers: dict[str, NumberMatch] = field(default_factory=dict)
    patterns: dict[str, re.Pattern[str]] = field(default_factory=dict)
    last_tool: str | None = None
    after_tool: bool | None = None
    tools: frozenset[str] = frozenset()
    tools_exactly: frozenset[str] | None = None
    no_tools: bool | None = None
    kind: str | None = None
    stream: bool | None = None
    prompt_tokens_over: int | None = None


@dataclass(frozen=True)
class ToolCallSpec:
    name: str
    arguments: Any = None  # a mapping (templated, then JSON-encoded) ...
    arguments_raw: str | None = None  # ... or a string sent as it is, broken JSON included
    id: str | None = None


@dataclass(frozen=True)
class ReplySpec:
    """What to stream: text, reasoning and tool calls, with the chunking style."""

    text: str = ""
    chunks: tuple[str, ...] | None = None
    reasoning: str = ""
    tool_calls: tuple[ToolCallSpec, ...] = ()
    finish_reason: str | None = None
    delay: float = 0.0
    usage: dict[str, int] = field(default_factory=dict)
    style: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class FaultSpec:
    kind: str
    status: int = 0
    message: str = ""
    retry_after: float | None = None
    after_chunks: int = 0
    seconds: float = 0.0
    limit: int = 0
    mention_limit: bool = True
    chunk_delay: float | None = None
    delay: float = 0.0


@dataclass(frozen=True)
class Rule:
    name: str
    line: int
    when: Condition
    times: int | None
    reply: ReplySpec | None
    fault: FaultSpec | None


@dataclass(frozen=True)
class Scenario:
    """A parsed scenario, ready to play; build one with `load_scenario` or `parse_scenario`."""

    name: str
    source: str
    models: tuple[str, ...]
    context_length: int
    style: dict[str, Any]
    cache: str
    kinds: dict[str, Condition]
    rules: tuple[Rule, ...]
    no_match: ReplySpec | None
    description: str = ""

    @property
    def model(self) -> str:
        return self.models[0]
