"""Reading scenario files: YAML with the line of every key kept, checked into a `Scenario`.

The format is described in `engine.model_server.scenario` and `docs/scenarios.md`.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from engine import shipped_files
from engine.model_server.scenario import (
    BUILTIN_DIR,
    BUILTIN_KINDS,
    DEFAULT_CONTEXT_LENGTH,
    DEFAULT_MODEL,
    FAULT_KEYS,
    FAULT_KINDS,
    MAX_SCENARIO_BYTES,
    NUMBER_CONDITIONS,
    REGEX_CONDITIONS,
    REPLY_KEYS,
    RULE_KEYS,
    STYLE_DEFAULTS,
    STYLE_KEYS,
    TEMPLATE,
    TEMPLATE_VARS,
    TOOL_CALL_KEYS,
    TOP_KEYS,
    USAGE_KEYS,
    WHEN_KEYS,
    Condition,
    FaultSpec,
    NumberMatch,
    ReplySpec,
    Rule,
    Scenario,
    ScenarioError,
    ToolCallSpec,
)


class _LineLoader(yaml.SafeLoader):
    """A safe loader whose mappings remember the line each of their keys was on."""


class _LineDict(dict[str, Any]):
    line: int = 0
    key_lines: dict[str, int]


def _construct_mapping(loader: _LineLoader, node: yaml.MappingNode) -> _LineDict:
    loader.flatten_mapping(node)
    result = _LineDict()
    result.line = node.start_mark.line + 1
    result.key_lines = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        result[str(key)] = loader.construct_object(value_node, deep=True)
        result.key_lines[str(key)] = key_node.start_mark.line + 1
    return result


_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def builtin_scenarios() -> list[str]:
    """Names of the scenarios shipped with the server (`default` among them)."""
    return sorted(p.stem for p in BUILTIN_DIR.glob("*.yaml"))


def resolve_scenario_path(name_or_path: str | Path) -> Path:
    """A file path as given, or the shipped scenario of that name."""
    return shipped_files.resolve(name_or_path, BUILTIN_DIR, "scenario", builtin_scenarios(), ScenarioError)


def load_scenario(name_or_path: str | Path) -> Scenario:
    """Read and check a scenario file (or a shipped scenario by name)."""
    path = resolve_scenario_path(name_or_path)
    text = shipped_files.read_text(path, MAX_SCENARIO_BYTES, ScenarioError, "split the scenario")
    return parse_scenario(text, source=str(path), name=path.stem)


def parse_scenario(text: str, source: str = "<scenario>", name: str = "scenario") -> Scenario:
    """Parse scenario YAML text; errors name `source` and the line."""
    try:
        _check_aliases(text, source)
        data = yaml.load(text, Loader=_LineLoader)
    except RecursionError as exc:
        raise ScenarioError(f"{source}: the YAML is nested too deeply to read; flatten it.") from exc
    except yaml.MarkedYAMLError as exc:
        line = exc.problem_mark.line + 1 if exc.problem_mark else 0
        raise ScenarioError(
            f"{source} line {line}: {exc.problem or 'invalid YAML'}; fix the YAML there."
        ) from exc
    except yaml.YAMLError as exc:
        raise ScenarioError(f"{source}: invalid YAML ({exc}).") from exc
    if not isinstance(data, dict):
        raise ScenarioError(f"{source}: a scenario is a mapping with a `rules:` list at the top level.")
    return _Parser(source).scenario(data, name)


MAX_ALIASES = 100  # a scenario needs few; a handful of nested anchors can expand into gigabytes


def _check_aliases(text: str, source: str) -> None:
    if "*" not in text:
        return
    count = 0
    for event in yaml.parse(text, Loader=yaml.SafeLoader):
        if isinstance(event, yaml.AliasEvent):
            count += 1
            if count > MAX_ALIASES:
                line = event.start_mark.line + 1 if event.start_mark else 0
                raise ScenarioError(
                    f"{source} line {line}: more than {MAX_ALIASES} YAML aliases; write the rules out."
                )


class _Parser:
    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, line: int, message: str) -> ScenarioError:
        return ScenarioError(f"{self.source} line {line}: {message}")

    def line_of(self, mapping: dict[str, Any], key: str | None = None) -> int:
        if isinstance(mapping, _LineDict):
            return mapping.key_lines.get(key, mapping.line) if key else mapping.line
        return 0

    def mapping(self, value: Any, where: str, line: int) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(line, f"`{where}` must be a mapping of `key: value` lines, not {value!r}.")
        return value

    def check_keys(self, mapping: dict[str, Any], allowed: set[str], where: str) -> None:
        for key in mapping:
            if key not in allowed:
                known = ", ".join(sorted(allowed))
                raise self.fail(
                    self.line_of(mapping, key), f"unknown key `{key}` in {where}; known: {known}."
                )

    def scenario(self, data: dict[str, Any], default_name: str) -> Scenario:
        self.check_keys(data, TOP_KEYS, "the scenario")
        models = data.get("model", DEFAULT_MODEL)
        models = [models] if isinstance(models, str) else models
        if not isinstance(models, list) or not models or not all(isinstance(m, str) and m for m in models):
            raise self.fail(self.line_of(data, "model"), "`model` must be a model name or a list of names.")
        context_length = self.number(data, "context_length", DEFAULT_CONTEXT_LENGTH, int)
        style = dict(STYLE_DEFAULTS)
        if "defaults" in data:
            defaults = self.mapping(data["defaults"], "defaults", self.line_of(data, "defaults"))
            style.update(self.style(defaults, "defaults"))
        cache = "prefix"
        if "usage" in data:
            usage = self.mapping(data["usage"], "usage", self.line_of(data, "usage"))
            self.check_keys(usage, {"cache"}, "usage")
            cache = usage.get("cache", "prefix")
            if cache not in ("prefix", "none"):
                raise self.fail(self.line_of(usage, "cache"), "`usage.cache` must be `prefix` or `none`.")
        kinds = {name: self.condition(spec, f"kinds.{name}", set()) for name, spec in BUILTIN_KINDS.items()}
        if "kinds" in data:
            given = self.mapping(data["kinds"], "kinds", self.line_of(data, "kinds"))
            for kind_name, spec in given.items():
                line = self.line_of(given, kind_name)
                kinds[kind_name] = self.condition(
                    self.mapping(spec, f"kinds.{kind_name}", line), kind_name, set()
                )
        rules_data = data.get("rules")
        if not isinstance(rules_data, list) or not rules_data:
            raise self.fail(self.line_of(data, "rules"), "`rules` must be a list with at least one rule.")
        rules = tuple(self.rule(item, index, set(kinds)) for index, item in enumerate(rules_data, 1))
        no_match = None
        if "no_match" in data:
            line = self.line_of(data, "no_match")
            no_match = self.reply(self.mapping(data["no_match"], "no_match", line), "no_match")
        name = data.get("name", default_name)
        return Scenario(
            name=str(name),
            source=self.source,
            models=tuple(models),
            context_length=context_length,
            style=style,
            cache=cache,
            kinds=kinds,
            rules=rules,
            no_match=no_match,
            description=str(data.get("description", "")),
        )

    def number(
        self,
        mapping: dict[str, Any],
        key: str,
        default: Any,
        kind: type,
        minimum: float = 0,
    ) -> Any:
        value = mapping.get(key, default)
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        if kind is int:
            ok = ok and isinstance(value, int)
        if not ok or value < minimum:
            what = "a whole number" if kind is int else "a number"
            raise self.fail(
                self.line_of(mapping, key), f"`{key}` must be {what} of at least {minimum}, not {value!r}."
            )
        return kind(value)

    def boolean(self, mapping: dict[str, Any], key: str) -> bool:
        value = mapping[key]
        if not isinstance(value, bool):
            raise self.fail(self.line_of(mapping, key), f"`{key}` must be true or false, not {value!r}.")
        return value

    def style(self, mapping: dict[str, Any], where: str) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key in STYLE_KEYS & set(mapping):
            if key in ("chunk_size", "fragment_size"):
                out[key] = self.number(mapping, key, 1, int, minimum=1)
            elif key == "chunk_delay":
                out[key] = self.number(mapping, key, 0.0, float)
            elif key == "reasoning_field":
                if mapping[key] not in ("reasoning_content", "reasoning"):
                    raise self.fail(
                        self.line_of(mapping, key),
                        "`reasoning_field` must be `reasoning_content` or `reasoning`.",
                    )
                out[key] = mapping[key]
            else:
                out[key] = self.boolean(mapping, key)
        if where == "defaults":
            self.check_keys(mapping, STYLE_KEYS, "defaults")
        return out

    def condition(self, when: dict[str, Any], where: str, kinds: set[str]) -> Condition:
        self.check_keys(when, WHEN_KEYS, f"`when` of {where}")
        numbers = {key: self.number_match(when, key) for key in NUMBER_CONDITIONS & set(when)}
        patterns: dict[str, re.Pattern[str]] = {}
        for key in REGEX_CONDITIONS & set(when):
            value = when[key]
            if not isinstance(value, str):
                raise self.fail(self.line_of(when, key), f"`{key}` must be a regular expression in quotes.")
            try:
                patterns[key] = re.compile(value)
            except re.error as exc:
                raise self.fail(
                    self.line_of(when, key), f"`{key}` is not a valid regular expression ({exc})."
                ) from exc
        tools: dict[str, frozenset[str]] = {}
        for key in ("tools", "tools_exactly"):
            if key in when:
                value = when[key]
                value = [value] if isinstance(value, str) else value
                if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                    raise self.fail(
                        self.line_of(when, key), f"`{key}` must be a tool name or a list of names."
                    )
                tools[key] = frozenset(value)
        flags = {key: self.boolean(when, key) for key in ("after_tool", "no_tools", "stream") if key in when}
        kind = when.get("kind")
        if kind is not None and kind != "chat" and kind not in kinds:
            names = ", ".join(sorted({*kinds, "chat"}))
            raise self.fail(self.line_of(when, "kind"), f"unknown kind {kind!r}; known: {names}.")
        last_tool = when.get("last_tool")
        if last_tool is not None and not isinstance(last_tool, str):
            raise self.fail(self.line_of(when, "last_tool"), "`last_tool` must be a tool name.")
        over = self.number(when, "prompt_tokens_over", 0, int) if "prompt_tokens_over" in when else None
        return Condition(
            numbers=numbers,
            patterns=patterns,
            last_tool=last_tool,
            after_tool=flags.get("after_tool"),
            tools=tools.get("tools", frozenset()),
            tools_exactly=tools.get("tools_exactly"),
            no_tools=flags.get("no_tools"),
            kind=kind,
            stream=flags.get("stream"),
            prompt_tokens_over=over,
        )

    def number_match(self, when: dict[str, Any], key: str) -> NumberMatch:
        value = when[key]
        line = self.line_of(when, key)
        if isinstance(value, int) and not isinstance(value, bool):
            return NumberMatch(values=frozenset({value}))
        if (
            isinstance(value, list)
            and value
            and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
        ):
            return NumberMatch(values=frozenset(value))
        if isinstance(value, dict) and value and set(value) <= {"min", "max", "every"}:
            parts = {k: v for k, v in value.items()}
            if all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in parts.values()):
                if parts.get("every") == 0:
                    raise self.fail(line, f"`{key}.every` must be at least 1.")
                return NumberMatch(
                    minimum=parts.get("min"), maximum=parts.get("max"), every=parts.get("every")
                )
        raise self.fail(
            line, f"`{key}` must be a number, a list of numbers, or {{min, max, every}}; got {value!r}."
        )

    def rule(self, item: Any, index: int, kinds: set[str]) -> Rule:
        if not isinstance(item, dict):
            raise ScenarioError(f"{self.source}: rule {index} must be a mapping with `reply:` or `fault:`.")
        line = self.line_of(item)
        self.check_keys(item, RULE_KEYS, f"rule {index}")
        name = str(item.get("name", f"rule {index} (line {line})"))
        when_data = item.get("when") or {}
        when = self.condition(self.mapping(when_data, "when", self.line_of(item, "when")), name, kinds)
        times = None
        if "times" in item:
            times = self.number(item, "times", 1, int, minimum=1)
        if "reply" not in item and "fault" not in item:
            raise self.fail(line, f"{name} needs a `reply:` or a `fault:`.")
        reply = None
        if "reply" in item:
            reply = self.reply(self.mapping(item["reply"], "reply", self.line_of(item, "reply")), name)
        fault = None
        if "fault" in item:
            fault = self.fault(item["fault"], self.line_of(item, "fault"))
        return Rule(name=name, line=line, when=when, times=times, reply=reply, fault=fault)

    def text(self, mapping: dict[str, Any], key: str) -> str:
        value = mapping.get(key, "")
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            value = str(value)
        if not isinstance(value, str):
            raise self.fail(self.line_of(mapping, key), f"`{key}` must be text, not {value!r}.")
        self.check_template(value, self.line_of(mapping, key))
        return value

    def check_template(self, value: str, line: int) -> None:
        for match in TEMPLATE.finditer(value):
            if match.group(1) not in TEMPLATE_VARS:
                known = ", ".join(sorted(TEMPLATE_VARS))
                raise self.fail(line, f"unknown template variable {{{{{match.group(1)}}}}}; known: {known}.")
            if match.group(1) == "match" and not match.group(2):
                raise self.fail(line, "write `{{match.1}}` (a group number or name), not `{{match}}`.")

    def check_templates_in(self, value: Any, line: int) -> None:
        if isinstance(value, str):
            self.check_template(value, line)
        elif isinstance(value, dict):
            for item in value.values():
                self.check_templates_in(item, line)
        elif isinstance(value, list):
            for item in value:
                self.check_templates_in(item, line)

    def reply(self, data: dict[str, Any], where: str) -> ReplySpec:
        self.check_keys(data, REPLY_KEYS, f"the reply of {where}")
        chunks = None
        if "chunks" in data:
            value = data["chunks"]
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise self.fail(self.line_of(data, "chunks"), "`chunks` must be a list of text pieces.")
            for piece in value:
                self.check_template(piece, self.line_of(data, "chunks"))
            chunks = tuple(value)
        calls_data = data.get("tool_calls", [])
        if isinstance(calls_data, dict):
            calls_data = [calls_data]
        if not isinstance(calls_data, list):
            raise self.fail(self.line_of(data, "tool_calls"), "`tool_calls` must be a list of calls.")
        calls = tuple(self.tool_call(call, self.line_of(data, "tool_calls")) for call in calls_data)
        usage: dict[str, int] = {}
        if "usage" in data:
            usage_data = self.mapping(data["usage"], "usage", self.line_of(data, "usage"))
            self.check_keys(usage_data, USAGE_KEYS, "usage")
            usage = {key: self.number(usage_data, key, 0, int) for key in usage_data}
        finish = data.get("finish_reason")
        if finish is not None and not isinstance(finish, str):
            raise self.fail(
                self.line_of(data, "finish_reason"), "`finish_reason` must be text such as `length`."
            )
        return ReplySpec(
            text=self.text(data, "text"),
            chunks=chunks,
            reasoning=self.text(data, "reasoning"),
            tool_calls=calls,
            finish_reason=finish,
            delay=self.number(data, "delay", 0.0, float),
            usage=usage,
            style=self.style(data, "reply"),
        )

    def tool_call(self, call: Any, line: int) -> ToolCallSpec:
        if not isinstance(call, dict):
            raise self.fail(
                line, f"each tool call must be a mapping with `name:` and `arguments:`, not {call!r}."
            )
        line = self.line_of(call) or line
        self.check_keys(call, TOOL_CALL_KEYS, "a tool call")
        name = call.get("name")
        if not isinstance(name, str) or not name:
            raise self.fail(line, "a tool call needs a `name` (any text; unknown tool names are allowed).")
        if "arguments" in call and "arguments_raw" in call:
            raise self.fail(line, "give either `arguments` (a mapping) or `arguments_raw` (text), not both.")
        raw = call.get("arguments_raw")
        if raw is not None and not isinstance(raw, str):
            raise self.fail(line, "`arguments_raw` must be text; it is sent exactly as written.")
        arguments = call.get("arguments", {} if raw is None else None)
        self.check_templates_in(arguments, line)
        if raw is not None:
            self.check_template(raw, line)
        call_id = call.get("id")
        return ToolCallSpec(
            name=name, arguments=arguments, arguments_raw=raw, id=None if call_id is None else str(call_id)
        )

    def fault(self, data: Any, line: int) -> FaultSpec:
        if isinstance(data, str):
            data = {"kind": data}
        data = self.mapping(data, "fault", line)
        self.check_keys(data, FAULT_KEYS, "the fault")
        kind = data.get("kind")
        if kind not in FAULT_KINDS:
            raise self.fail(
                self.line_of(data, "kind") or line,
                f"`fault.kind` must be one of {', '.join(sorted(FAULT_KINDS))}.",
            )
        default_status = {"rate_limit": 429, "server_error": 500, "context_length": 400}.get(kind, 0)
        status = self.number(data, "status", default_status, int)
        if kind == "http" and not 400 <= status <= 599:
            raise self.fail(
                self.line_of(data, "status") or line, "an `http` fault needs a `status` from 400 to 599."
            )
        retry_after = None
        if "retry_after" in data:
            retry_after = self.number(data, "retry_after", 0.0, float)
        elif kind == "rate_limit":
            retry_after = 1.0
        mention = self.boolean(data, "mention_limit") if "mention_limit" in data else True
        chunk_delay = self.number(data, "chunk_delay", 0.0, float) if "chunk_delay" in data else None
        return FaultSpec(
            kind=kind,
            status=status,
            message=self.text(data, "message"),
            retry_after=retry_after,
            after_chunks=self.number(data, "after_chunks", 0, int),
            seconds=self.number(data, "seconds", 0.0, float),
            limit=self.number(data, "limit", 0, int),
            mention_limit=mention,
            chunk_delay=chunk_delay,
            delay=self.number(data, "delay", 0.0, float),
        )
