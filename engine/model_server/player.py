"""Playing a scenario: read a request, pick the rule that answers it, render the reply as chunks."""

from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from engine.model_server.scenario import (
    DEFAULT_CONTEXT_LENGTH,
    FILLER_TEXT,
    TEMPLATE,
    Condition,
    FaultSpec,
    ReplySpec,
    Rule,
    Scenario,
)

CHARS_PER_TOKEN = 4


def message_text(message: dict[str, Any]) -> str:
    """The text of a message whose content is a string or a list of parts."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            str(part.get("text", ""))
            for part in content
            if isinstance(part, dict) and part.get("type") == "text"
        )
    return ""


class RequestView:
    """The facts about one chat request that rules are written against."""

    def __init__(self, body: dict[str, Any], call: int) -> None:
        self.body = body
        self.call = call
        messages = body.get("messages")
        self.messages: list[dict[str, Any]] = (
            [m for m in messages if isinstance(m, dict)] if isinstance(messages, list) else []
        )
        self.model = str(body.get("model", ""))
        self.stream = bool(body.get("stream", False))
        options = body.get("stream_options")
        self.include_usage = isinstance(options, dict) and bool(options.get("include_usage"))
        tools = body.get("tools")
        self.tool_names: list[str] = []
        if isinstance(tools, list):
            for tool in tools:
                function = tool.get("function") if isinstance(tool, dict) else None
                if isinstance(function, dict) and isinstance(function.get("name"), str):
                    self.tool_names.append(function["name"])
        roles = [m.get("role") for m in self.messages]
        self.turn = roles.count("user")
        last_user_at = max((i for i, role in enumerate(roles) if role == "user"), default=-1)
        self.last_user = message_text(self.messages[last_user_at]) if last_user_at >= 0 else ""
        self.iteration = 1 + sum(1 for role in roles[last_user_at + 1 :] if role == "assistant")
        first = self.messages[0] if self.messages else {}
        self.system = message_text(first) if first.get("role") in ("system", "developer") else ""
        last = self.messages[-1] if self.messages else {}
        self.after_tool = last.get("role") == "tool"
        self.last_tool_result = message_text(last) if self.after_tool else ""
        self.last_tool_name = self._tool_name_of(last) if self.after_tool else ""
        self.tools_json = json.dumps(tools or [], ensure_ascii=False)
        self.message_json = [json.dumps(m, ensure_ascii=False) for m in self.messages]
        size = len(self.tools_json) + sum(len(m) for m in self.message_json)
        self.prompt_tokens = max(1, size // CHARS_PER_TOKEN)

    def _tool_name_of(self, tool_message: dict[str, Any]) -> str:
        if isinstance(tool_message.get("name"), str):
            return str(tool_message["name"])
        wanted = tool_message.get("tool_call_id")
        for message in reversed(self.messages):
            for call in message.get("tool_calls") or []:
                if isinstance(call, dict) and call.get("id") == wanted:
                    function = call.get("function") or {}
                    return str(function.get("name", ""))
        return ""


@dataclass
class MatchResult:
    rule: Rule | None
    groups: dict[str, str] = field(default_factory=dict)


def condition_holds(
    condition: Condition, view: RequestView, kinds: dict[str, Condition]
) -> dict[str, str] | None:
    """The regex groups captured when every condition holds, else None."""
    numbers = {"call": view.call, "turn": view.turn, "iteration": view.iteration}
    for key, match in condition.numbers.items():
        if not match.matches(numbers[key]):
            return None
    if condition.after_tool is not None and condition.after_tool != view.after_tool:
        return None
    if condition.last_tool is not None and condition.last_tool != view.last_tool_name:
        return None
    offered = set(view.tool_names)
    if not condition.tools <= offered:
        return None
    if condition.tools_exactly is not None and condition.tools_exactly != offered:
        return None
    if condition.no_tools is not None and condition.no_tools != (not offered):
        return None
    if condition.stream is not None and condition.stream != view.stream:
        return None
    if condition.prompt_tokens_over is not None and view.prompt_tokens <= condition.prompt_tokens_over:
        return None
    if condition.kind is not None and condition.kind != kind_of(view, kinds):
        return None
    groups: dict[str, str] | None = None
    subjects = {"user": view.last_user, "tool_result": view.last_tool_result, "system": view.system}
    subjects["model"] = view.model
    for key in ("user", "tool_result", "system", "model"):
        pattern = condition.patterns.get(key)
        if pattern is None:
            continue
        found = pattern.search(subjects[key])
        if found is None:
            return None
        if groups is None:
            groups = {"0": found.group(0)}
            groups.update({str(i): g or "" for i, g in enumerate(found.groups(), 1)})
            groups.update({k: v or "" for k, v in found.groupdict().items()})
    return groups or {}


def kind_of(view: RequestView, kinds: dict[str, Condition]) -> str:
    """The first named kind whose condition holds for the request, else `chat`."""
    for name, condition in kinds.items():
        if condition.kind is None and condition_holds(condition, view, {}) is not None:
            return name
    return "chat"


def render(template: str, view: RequestView, groups: dict[str, str]) -> str:
    """Fill `{{name}}` and `{{match.N}}` placeholders from the request."""
    values = {
        "last_user": view.last_user,
        "last_tool_result": view.last_tool_result,
        "last_tool_name": view.last_tool_name,
        "turn": str(view.turn),
        "call": str(view.call),
        "iteration": str(view.iteration),
        "model": view.model,
        "tools": ", ".join(view.tool_names),
    }

    def fill(match: re.Match[str]) -> str:
        if match.group(1) == "match":
            return groups.get(match.group(2) or "0", "")
        return values.get(match.group(1), "")

    return TEMPLATE.sub(fill, template)


def render_value(value: Any, view: RequestView, groups: dict[str, str]) -> Any:
    if isinstance(value, str):
        return render(value, view, groups)
    if isinstance(value, dict):
        return {k: render_value(v, view, groups) for k, v in value.items()}
    if isinstance(value, list):
        return [render_value(v, view, groups) for v in value]
    return value


@dataclass
class Delta:
    """One content-bearing piece of a streamed reply."""

    text: str = ""
    reasoning: str = ""
    tool_index: int = -1
    tool_id: str = ""
    tool_name: str = ""
    tool_arguments: str = ""
    first_of_call: bool = False


@dataclass
class Plan:
    """Everything the server needs to answer one request."""

    call: int
    rule_name: str
    model: str
    deltas: list[Delta] = field(default_factory=list)
    text: str = ""
    reasoning: str = ""
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    finish_reason: str | None = "stop"
    usage: dict[str, Any] = field(default_factory=dict)
    style: dict[str, Any] = field(default_factory=dict)
    delay: float = 0.0
    fault: FaultSpec | None = None
    error: tuple[int, dict[str, Any], dict[str, str]] | None = None  # status, body, headers


def split(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] if text else []


class Player:
    """Chooses replies for requests; thread-safe, since the server answers requests in threads."""

    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario
        self._lock = threading.Lock()
        self._calls = 0
        self._uses: dict[int, int] = {}
        self._previous_prompt: tuple[str, list[str]] | None = None

    def reset(self) -> None:
        with self._lock:
            self._calls = 0
            self._uses.clear()
            self._previous_prompt = None

    def plan(self, body: dict[str, Any]) -> tuple[RequestView, Plan]:
        with self._lock:
            self._calls += 1
            view = RequestView(body, self._calls)
            rule, groups = self._choose(view)
            cached = self._cached_tokens(view)
        if rule is None:
            return view, self._no_match(view, cached)
        return view, self._build(view, rule.name, rule.reply, rule.fault, groups, cached)

    def _choose(self, view: RequestView) -> tuple[Rule | None, dict[str, str]]:
        for index, rule in enumerate(self.scenario.rules):
            if rule.times is not None and self._uses.get(index, 0) >= rule.times:
                continue
            groups = condition_holds(rule.when, view, self.scenario.kinds)
            if groups is not None:
                self._uses[index] = self._uses.get(index, 0) + 1
                return rule, groups
        return None, {}

    def _cached_tokens(self, view: RequestView) -> int | None:
        """Simulate a provider's prompt cache: the tools and leading messages the previous request shared."""
        if self.scenario.cache == "none":
            return None
        previous = self._previous_prompt
        self._previous_prompt = (view.tools_json, view.message_json)
        if not previous or previous[0] != view.tools_json:
            return 0
        shared = len(view.tools_json)
        for before, now_ in zip(previous[1], view.message_json, strict=False):
            if before != now_:
                break
            shared += len(now_)
        return shared // CHARS_PER_TOKEN

    def _no_match(self, view: RequestView, cached: int | None) -> Plan:
        if self.scenario.no_match is not None:
            return self._build(view, "no_match", self.scenario.no_match, None, {}, cached)
        plan = Plan(call=view.call, rule_name="(no rule matched)", model=view.model or self.scenario.model)
        said = view.last_user[:80].replace("\n", " ")
        message = (
            f"Scripted model server: no rule of scenario {self.scenario.name!r} matches call {view.call} "
            f"(turn {view.turn}, iteration {view.iteration}, last user text {said!r}); "
            f"add a rule for it to {self.scenario.source}."
        )
        plan.error = (400, error_body(message, "invalid_request_error", "no_matching_rule"), {})
        return plan

    def _build(
        self,
        view: RequestView,
        rule_name: str,
        reply: ReplySpec | None,
        fault: FaultSpec | None,
        groups: dict[str, str],
        cached: int | None,
    ) -> Plan:
        style = dict(self.scenario.style)
        if reply is not None:
            style.update(reply.style)
        plan = Plan(
            call=view.call,
            rule_name=rule_name,
            model=view.model or self.scenario.model,
            style=style,
            fault=fault,
        )
        if fault is not None:
            error = self._error_for(fault, view)
            if error is not None:
                plan.error = error
                return plan
            if fault.kind == "slow" and fault.chunk_delay is not None:
                style["chunk_delay"] = fault.chunk_delay
            plan.delay = fault.delay
        if reply is None:
            reply = ReplySpec(text="" if fault and fault.kind in ("empty", "drop") else FILLER_TEXT)
        if fault is not None and fault.kind == "empty":
            reply = ReplySpec()
        plan.delay = max(plan.delay, reply.delay)
        self._fill_content(plan, reply, view, groups, style)
        self._fill_usage(plan, reply, view, cached)
        return plan

    def _error_for(
        self, fault: FaultSpec, view: RequestView
    ) -> tuple[int, dict[str, Any], dict[str, str]] | None:
        if fault.kind == "rate_limit":
            message = fault.message or "Rate limit reached for requests; please try again shortly."
            headers = {}
            if fault.retry_after is not None:
                headers["Retry-After"] = str(max(0, round(fault.retry_after)))
                headers["retry-after-ms"] = str(int(fault.retry_after * 1000))
            return fault.status, error_body(message, "rate_limit_exceeded", "rate_limit_exceeded"), headers
        if fault.kind in ("server_error", "http"):
            message = fault.message or f"The scripted server failed on purpose (HTTP {fault.status})."
            return fault.status, error_body(message, "server_error", None), {}
        if fault.kind == "context_length":
            limit = fault.limit or self.scenario.context_length or DEFAULT_CONTEXT_LENGTH
            if fault.message:
                message = render(fault.message, view, {})
            elif fault.mention_limit:
                message = (
                    f"This model's maximum context length is {limit} tokens. However, your messages "
                    f"resulted in {max(view.prompt_tokens, limit + 1)} tokens. Please reduce the length of "
                    "the messages."
                )
            else:
                message = "The prompt is too long for this model's context window; reduce the length."
            return fault.status, error_body(message, "invalid_request_error", "context_length_exceeded"), {}
        return None

    def _fill_content(
        self, plan: Plan, reply: ReplySpec, view: RequestView, groups: dict[str, str], style: dict[str, Any]
    ) -> None:
        reasoning = render(reply.reasoning, view, groups)
        for piece in split(reasoning, style["chunk_size"]):
            plan.deltas.append(Delta(reasoning=piece))
        if reply.chunks is not None:
            pieces = [render(piece, view, groups) for piece in reply.chunks]
        else:
            pieces = split(render(reply.text, view, groups), style["chunk_size"])
        plan.deltas.extend(Delta(text=piece) for piece in pieces if piece)
        plan.text = "".join(pieces)
        plan.reasoning = reasoning
        streams: list[list[Delta]] = []
        for index, call in enumerate(reply.tool_calls):
            call_id = call.id or f"call_{view.call}_{index}"
            if call.arguments_raw is not None:
                arguments = render(call.arguments_raw, view, groups)
            else:
                arguments = json.dumps(render_value(call.arguments, view, groups), ensure_ascii=False)
            plan.tool_calls.append(
                {"id": call_id, "type": "function", "function": {"name": call.name, "arguments": arguments}}
            )
            fragments = split(arguments, style["fragment_size"]) or [""]
            deltas = []
            for number, fragment in enumerate(fragments):
                first = number == 0
                repeat = first or style["repeat_id_name"]
                deltas.append(
                    Delta(
                        tool_index=index,
                        tool_id=call_id if repeat else "",
                        tool_name=call.name if repeat else "",
                        tool_arguments=fragment,
                        first_of_call=first,
                    )
                )
            streams.append(deltas)
        if style["interleave"]:
            longest = max((len(s) for s in streams), default=0)
            plan.deltas.extend(s[i] for i in range(longest) for s in streams if i < len(s))
        else:
            plan.deltas.extend(d for s in streams for d in s)
        if reply.finish_reason == "none":  # a server that never says why it stopped
            plan.finish_reason = None
        else:
            plan.finish_reason = reply.finish_reason or ("tool_calls" if plan.tool_calls else "stop")

    def _fill_usage(self, plan: Plan, reply: ReplySpec, view: RequestView, cached: int | None) -> None:
        produced = (
            len(plan.text)
            + len(plan.reasoning)
            + sum(len(c["function"]["arguments"]) for c in plan.tool_calls)
        )
        prompt = reply.usage.get("prompt_tokens", view.prompt_tokens)
        completion = reply.usage.get("completion_tokens", (produced + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN)
        usage: dict[str, Any] = {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        }
        if "cached_tokens" in reply.usage:
            cached = reply.usage["cached_tokens"]
        if cached is not None:
            usage["prompt_tokens_details"] = {"cached_tokens": min(cached, prompt)}
        plan.usage = usage


def error_body(message: str, kind: str, code: str | None) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


def now() -> int:
    return int(time.time())
