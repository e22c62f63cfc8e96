"""The tool registry: schemas for the model, and a dispatcher that turns every failure into a result.

`dispatch` never raises (cancellation aside, so an interrupted turn still stops): an unknown tool,
arguments that are not JSON or do not match the schema, and a handler that fails all come back as
an error result the model can read and act on.
"""

from __future__ import annotations

import difflib
import importlib
import json
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from engine.tools.context import ToolContext
from engine.tools.errors import ToolError
from engine.tools.output import Limits, cap_json, cap_text, dumps
from engine.tools.preview import default_detail, default_summary, format_call, one_line
from engine.tools.validate import validate

Handler = Callable[[dict[str, Any], ToolContext], Awaitable[Any]]
CallPreview = Callable[[Mapping[str, Any], int], str]


@dataclass(frozen=True)
class ToolResult:
    """What a handler may return when plain text or a dict is not enough.

    `summary` is the one-line result preview (`exit 0, 47 lines`); `display` is extra detail for
    the UI only (an inline diff) and is never sent to the model.
    """

    content: str | dict[str, Any] | list[Any]
    ok: bool = True
    summary: str = ""
    display: str = ""


@dataclass(frozen=True)
class Tool:
    """One tool: its name, the toolset it belongs to, its schema and its async handler."""

    name: str
    toolset: str
    description: str
    parameters: dict[str, Any]
    handler: Handler
    preview: CallPreview | None = None  # (arguments, width) -> the detail after the tool's name

    def schema(self) -> dict[str, Any]:
        """The OpenAI function-calling form of this tool."""
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.parameters},
        }


@dataclass(frozen=True)
class ToolOutcome:
    """The result of one call: `content` goes to the model, the rest feeds events and previews."""

    name: str
    arguments: dict[str, Any]
    content: str
    ok: bool
    summary: str
    display: str = ""
    duration_s: float = 0.0
    cut: str = ""  # what the output caps removed, empty when nothing was cut


class ToolRegistry:
    """An ordered set of tools; the order is the order of the schemas, which keeps the prompt stable."""

    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        self._schemas: list[dict[str, Any]] | None = None
        for tool in tools:
            self.register(tool)

    def register(self, tool: Tool, *, replace: bool = False) -> Tool:
        """Add a tool; registering a second tool under a taken name is a programming error."""
        if tool.name in self._tools and not replace:
            raise ValueError(f"a tool named {tool.name!r} is already registered")
        if tool.parameters.get("type") != "object":
            raise ValueError(f"the parameters of tool {tool.name!r} must be a JSON schema of type object")
        self._tools[tool.name] = tool
        self._schemas = None
        return tool

    def tool(
        self,
        name: str,
        toolset: str,
        description: str,
        parameters: dict[str, Any],
        preview: CallPreview | None = None,
    ) -> Callable[[Handler], Handler]:
        """Register the decorated async handler as a tool."""

        def decorate(handler: Handler) -> Handler:
            self.register(Tool(name, toolset, description, parameters, handler, preview))
            return handler

        return decorate

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __iter__(self) -> Iterator[Tool]:
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)

    @property
    def names(self) -> list[str]:
        return list(self._tools)

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def subset(
        self, toolsets: Iterable[str] | None = None, names: Iterable[str] | None = None
    ) -> ToolRegistry:
        """A registry with only some toolsets or names (the background review gets memory and skills)."""
        wanted_sets = set(toolsets) if toolsets is not None else None
        wanted_names = set(names) if names is not None else None
        return ToolRegistry(
            t
            for t in self._tools.values()
            if (wanted_sets is None or t.toolset in wanted_sets)
            and (wanted_names is None or t.name in wanted_names)
        )

    def schemas(self) -> list[dict[str, Any]]:
        """Every tool's schema, in registration order (the same list object until the registry changes)."""
        if self._schemas is None:
            self._schemas = [t.schema() for t in self._tools.values()]
        return self._schemas

    def preview_call(self, name: str, raw_arguments: str | Mapping[str, Any] | None, width: int = 60) -> str:
        """The one-line preview of a call (its name, then `call_detail`), for plain-text output."""
        return format_call(name, self.call_detail(name, raw_arguments, width))

    def call_detail(self, name: str, raw_arguments: str | Mapping[str, Any] | None, width: int = 60) -> str:
        """What a call's arguments say in one line, without its name (arguments that do not parse: '')."""
        try:
            arguments = parse_arguments(raw_arguments)
        except ToolError:
            return ""  # a tool's own preview of no arguments would invent some (memory: '?memory ""')
        tool = self._tools.get(name)
        try:
            detail = tool.preview(arguments, width) if tool and tool.preview else None
        except Exception:
            detail = None
        return default_detail(arguments, width) if detail is None else detail

    async def dispatch(
        self, name: str, raw_arguments: str | Mapping[str, Any] | None, ctx: ToolContext, call_id: str = ""
    ) -> ToolOutcome:
        """Run one tool call and return its outcome; every failure becomes an error result.

        `call_id` (the model's id for the call) is carried on what the call asks the person. Secrets
        never reach the model: the content, summary and display are redacted here, for every tool,
        before the output caps (the literal keys of the home, key shapes, `PASSWORD=…` forms).
        """
        started = time.perf_counter()
        ctx = ctx.for_call(call_id)
        redact = ctx.redactor.tool_text
        limits = Limits.from_config(ctx.config)
        width = int(ctx.config.tool_output.preview_chars)
        arguments: dict[str, Any] = {}
        tool = self._tools.get(name)
        try:
            if tool is None:
                raise ToolError(self._unknown_tool_message(name))
            arguments = parse_arguments(raw_arguments)
            arguments, problems = validate(arguments, tool.parameters)
            if problems:
                raise ToolError(f"Invalid arguments for {name}: {' '.join(problems)}")
            returned = await tool.handler(arguments, ctx)
        except ToolError as exc:
            return _error_outcome(name, arguments, redact(str(exc)), started, limits, width)
        except Exception as exc:  # a bug or an OS failure inside a handler must not end the turn
            message = redact(f"{name} failed: {type(exc).__name__}: {exc}")
            return _error_outcome(name, arguments, message, started, limits, width)
        try:
            result = returned if isinstance(returned, ToolResult) else ToolResult(_plain(returned))
            clean = ctx.redactor.tool_value(result.content)  # before the caps: a cut must not halve a key
            if isinstance(clean, str):
                content, cut = cap_text(clean, limits)
            else:
                content, cut = cap_json(clean, limits)
            summary = redact(result.summary) or default_summary(clean, width)
        except Exception as exc:  # a result that cannot be serialised is the tool's bug, not the turn's
            message = redact(f"{name} returned a result that cannot be sent: {type(exc).__name__}: {exc}")
            return _error_outcome(name, arguments, message, started, limits, width)
        return ToolOutcome(
            name=name,
            arguments=arguments,
            content=content,
            ok=result.ok,
            summary=one_line(summary, width),
            display=redact(result.display),
            duration_s=time.perf_counter() - started,
            cut=cut,
        )

    def _unknown_tool_message(self, name: str) -> str:
        available = ", ".join(self._tools) or "none"
        close = difflib.get_close_matches(name, list(self._tools), n=1)
        hint = f" Did you mean `{close[0]}`?" if close else ""
        return f"Unknown tool `{name}`.{hint} Available tools: {available}."


def parse_arguments(raw: str | Mapping[str, Any] | None) -> dict[str, Any]:
    """The arguments of a call as a dict; an empty string means no arguments."""
    if raw is None:
        return {}
    if isinstance(raw, Mapping):
        return dict(raw)
    if not raw.strip():
        return {}
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ToolError(_json_error_message(raw, exc)) from None
    if isinstance(value, str):  # some models encode the object twice
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            pass
    if not isinstance(value, dict):
        kind = type(value).__name__.replace("list", "an array").replace("str", "a string")
        raise ToolError(
            f'The arguments must be a JSON object like {{"name": value}}, not {kind}. Send one object '
            "whose fields match the tool's schema."
        )
    return value


def _json_error_message(raw: str, exc: json.JSONDecodeError) -> str:
    before = raw[max(exc.pos - 30, 0) : exc.pos]
    after = raw[exc.pos : exc.pos + 10]
    snippet = f"{before}<HERE>{after}".replace("\n", "\\n")
    cut_off = " The text ends there: it looks cut off." if exc.pos >= len(raw.rstrip()) else ""
    return (
        f"The arguments are not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno} "
        f"(char {exc.pos}): `{snippet}`.{cut_off} Send the call again with one complete JSON object; "
        "escape quotes and newlines inside strings."
    )


def _plain(value: Any) -> str | dict[str, Any] | list[Any]:
    if value is None:
        return "Done."
    if isinstance(value, (str, dict, list)):
        return value
    return dumps(value)


def _error_outcome(
    name: str, arguments: dict[str, Any], message: str, started: float, limits: Limits, width: int
) -> ToolOutcome:
    content, cut = cap_json({"error": message}, limits)
    return ToolOutcome(
        name=name,
        arguments=arguments,
        content=content,
        ok=False,
        summary=one_line(f"error: {message}", width),
        duration_s=time.perf_counter() - started,
        cut=cut,
    )


# Modules whose `TOOLS` list makes up the default registry, in the order their schemas are sent.
TOOL_MODULES: tuple[str, ...] = ("engine.tools.builtin",)


def default_registry(modules: tuple[str, ...] = TOOL_MODULES) -> ToolRegistry:
    """A fresh registry holding every tool of `modules` (a module that is missing is a bug, not skipped)."""
    registry = ToolRegistry()
    for name in modules:
        for tool in importlib.import_module(name).TOOLS:
            registry.register(tool)
    return registry
