"""The registry: schemas, registration by other modules, and a dispatcher that turns failures into results."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from engine.events import MemoryWritten
from engine.text import tokens
from engine.tools.context import ToolContext
from engine.tools.errors import ToolError
from engine.tools.output import Limits, cap_json, cap_text, keep_head_tail
from engine.tools.registry import Tool, ToolRegistry, ToolResult, default_registry
from engine.tools.validate import validate
from tests.support.tool_helpers import Bench, make_bench, with_settings

pytestmark = pytest.mark.usefixtures("closing_benches")

BUILTIN = ["todo", "read_file", "write_file", "patch", "search_files", "terminal", "process"]


# A stand-in for the thin wrappers other modules add (memory, skills, session_search): a few lines each.
class NotesStore:
    def __init__(self) -> None:
        self.notes: list[str] = []

    def add(self, text: str) -> dict[str, Any]:
        self.notes.append(text)
        return {"success": True, "message": f"Saved note {len(self.notes)}.", "count": len(self.notes)}


async def _notes(args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
    result = ctx.resource("notes").add(args["text"])
    await ctx.send(MemoryWritten(ctx.session_id, "memory", "add", "agent", "j1", result["message"]))
    return result


NOTES = Tool(
    "notes",
    "memory",
    "Save a note.",
    {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
    _notes,
    preview=lambda args, width: f'+ "{args.get("text", "")}"'[:width],
)


def test_builtin_tools_and_their_schemas_are_openai_functions() -> None:
    registry = default_registry()
    assert registry.names == BUILTIN
    for schema in registry.schemas():
        assert schema["type"] == "function"
        function = schema["function"]
        assert set(function) == {"name", "description", "parameters"}
        params = function["parameters"]
        assert params["type"] == "object" and params["additionalProperties"] is False
        assert set(params["required"]) <= set(params["properties"])
        assert not {"anyOf", "oneOf", "allOf"} & set(params)  # strict providers reject top-level combinators


def test_schemas_are_terse_and_byte_stable() -> None:
    first, second = default_registry(), default_registry()
    text = json.dumps(first.schemas())
    assert text == json.dumps(second.schemas())  # the prompt cache depends on identical bytes
    assert first.schemas() is first.schemas()
    assert tokens.count(text) <= 1250, "seven tools must leave room for the rest of the 5K-token budget"


async def test_another_module_registers_a_tool_in_a_few_lines(bench: Bench) -> None:
    store = NotesStore()
    bench.registry.register(NOTES)
    bench.ctx.resources["notes"] = store
    assert bench.registry.names[-1] == "notes"
    outcome = await bench.call("notes", {"text": "User prefers tabs"})
    assert outcome.ok and store.notes == ["User prefers tabs"]
    assert json.loads(outcome.content)["count"] == 1
    assert outcome.summary == "Saved note 1."
    assert [type(e).__name__ for e in bench.events] == ["MemoryWritten"]
    assert bench.registry.preview_call("notes", '{"text": "hi"}') == 'notes     + "hi"'
    with pytest.raises(ValueError, match="already registered"):
        bench.registry.register(NOTES)


async def test_a_missing_store_is_an_error_result_not_a_crash(bench: Bench) -> None:
    bench.registry.register(NOTES)
    outcome = await bench.call("notes", {"text": "x"})
    assert not outcome.ok
    assert json.loads(outcome.content) == {"error": "The notes store is not available in this session."}


def test_decorator_registration_and_subsets() -> None:
    registry = ToolRegistry()

    @registry.tool("echo", "debug", "Echo text.", {"type": "object", "properties": {}})
    async def echo(args: dict[str, Any], ctx: ToolContext) -> str:
        return "echo"

    registry.register(NOTES)
    assert registry.names == ["echo", "notes"]
    assert registry.subset(toolsets=["memory"]).names == ["notes"]
    assert registry.subset(names=["echo"]).names == ["echo"]
    with pytest.raises(ValueError, match="type object"):
        registry.register(Tool("bad", "x", "d", {"type": "string"}, echo))


async def test_unknown_tool_names_the_available_ones(bench: Bench) -> None:
    outcome = await bench.call("read_fil", {"path": "x"})
    assert not outcome.ok
    error = json.loads(outcome.content)["error"]
    assert "Unknown tool `read_fil`" in error and "Did you mean `read_file`?" in error
    assert all(name in error for name in BUILTIN)


async def test_a_tool_outside_the_subset_is_unknown(bench: Bench) -> None:
    review = bench.registry.subset(toolsets=["todo"])
    outcome = await review.dispatch("terminal", '{"command": "ls"}', bench.ctx)
    assert not outcome.ok and "Available tools: todo." in outcome.content


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ('{"path": "a.txt"', "column 17 (char 16)"),
        ('{"path": "a.txt"', "looks cut off"),
        ("{'path': 'a.txt'}", "Expecting property name enclosed in double quotes"),
        ('{"path": "a\nb"}', "Invalid control character"),
        ('["a.txt"]', "must be a JSON object"),
        ('"just text"', "must be a JSON object"),
    ],
)
async def test_broken_json_says_exactly_what_is_wrong(bench: Bench, raw: str, expected: str) -> None:
    outcome = await bench.call("read_file", raw)
    assert not outcome.ok
    assert expected in json.loads(outcome.content)["error"]


async def test_json_error_shows_where_it_broke(bench: Bench) -> None:
    outcome = await bench.call("read_file", '{"path": "a.txt" "offset": 2}')
    error = json.loads(outcome.content)["error"]
    assert "Expecting ',' delimiter" in error and '"a.txt" <HERE>"offset"' in error


async def test_schema_violations_are_listed_together(bench: Bench) -> None:
    outcome = await bench.call("read_file", {"offset": "ten", "limit": 0, "colour": "red"})
    error = json.loads(outcome.content)["error"]
    assert "Missing required field `path`." in error
    assert '`offset` must be an integer, not the string "ten".' in error
    assert "`limit` must be at least 1, not 0." in error
    assert "Unknown field `colour` (the fields are: path, offset, limit)." in error


async def test_double_encoded_and_empty_arguments(bench: Bench) -> None:
    (bench.cwd / "a.txt").write_text("x\n")
    outcome = await bench.call("read_file", json.dumps(json.dumps({"path": "a.txt"})))
    assert outcome.ok and outcome.content == "1|x"
    outcome = await bench.call("todo", "")
    assert not outcome.ok and "Missing required field `action`" in outcome.content


def test_validator_coerces_only_unambiguous_slips() -> None:
    schema = {
        "type": "object",
        "properties": {
            "n": {"type": "integer"},
            "flag": {"type": "boolean"},
            "mode": {"type": "string", "enum": ["a", "b"]},
            "items": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["n"],
    }
    value, problems = validate({"n": "12", "flag": "true", "mode": None}, schema)
    assert problems == [] and value == {"n": 12, "flag": True}
    value, problems = validate({"n": 3.0}, schema)
    assert value == {"n": 3} and problems == []
    _, problems = validate({"n": True, "flag": "yes", "mode": "c", "items": ["x", 2]}, schema)
    assert problems == [
        "`n` must be an integer, not the boolean true.",
        '`flag` must be true or false, not the string "yes".',
        '`mode` must be one of "a", "b", not the string "c".',
        "`items[1]` must be a string, not the integer 2.",
    ]


async def test_handler_exceptions_become_error_results(bench: Bench) -> None:
    async def broken(args: dict[str, Any], ctx: ToolContext) -> str:
        raise KeyError("oops")

    async def refusing(args: dict[str, Any], ctx: ToolContext) -> str:
        raise ToolError("That cannot be done here.")

    bench.registry.register(Tool("broken", "t", "d", {"type": "object"}, broken))
    bench.registry.register(Tool("refusing", "t", "d", {"type": "object"}, refusing))
    outcome = await bench.call("broken", {})
    assert not outcome.ok and json.loads(outcome.content) == {"error": "broken failed: KeyError: 'oops'"}
    outcome = await bench.call("refusing", {})
    assert json.loads(outcome.content) == {"error": "That cannot be done here."}
    assert outcome.summary == "error: That cannot be done here."


async def test_cancellation_still_propagates(bench: Bench) -> None:
    async def slow(args: dict[str, Any], ctx: ToolContext) -> str:
        await asyncio.sleep(10)
        return "late"

    bench.registry.register(Tool("slow", "t", "d", {"type": "object"}, slow))
    task = asyncio.ensure_future(bench.call("slow", {}))
    await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_results_are_capped_with_a_note(tmp_path: Path, hermes_home: Path) -> None:
    config = with_settings(
        tool_output__max_lines=5, tool_output__max_line_length=20, tool_output__max_bytes=1000
    )
    bench = make_bench(tmp_path, hermes_home, config)

    async def chatty(args: dict[str, Any], ctx: ToolContext) -> str:
        return "\n".join(["short"] * 3 + ["y" * 50] + ["z"] * 10)

    bench.registry.register(Tool("chatty", "t", "d", {"type": "object"}, chatty))
    outcome = await bench.call("chatty", {})
    lines = outcome.content.split("\n")
    assert lines[:3] == ["short"] * 3
    assert lines[3] == "y" * 20 + "… [+30 chars]"
    assert lines[-1] == "[output cut: kept the first 5 of 14 lines; 1 line(s) shortened to 20 chars]"
    assert len(lines) == 6 and outcome.cut


def test_byte_cap_keeps_valid_utf8_and_json() -> None:
    limits = Limits(max_bytes=1000, max_lines=10_000, max_line_length=100_000)
    text, note = cap_text("é" * 5000, limits)
    assert len(text.encode("utf-8")) <= 1000 and "bytes" in note
    data, note = cap_json({"output": "x" * 5000, "exit": 0, "items": ["a"] * 3}, limits)
    parsed = json.loads(data)
    assert len(data.encode("utf-8")) <= 1000 and parsed["exit"] == 0 and parsed["items"] == ["a"] * 3
    assert "cut" in note


def test_head_and_tail_are_kept() -> None:
    text, cut = keep_head_tail("A" * 100 + "B" * 100, 50, 0.4)
    assert text.startswith("A" * 20) and text.endswith("B" * 30) and cut == 150
    assert "[150 chars cut from the middle]" in text
    assert keep_head_tail("short", 50, 0.4) == ("short", 0)


def test_call_previews_are_one_plain_line() -> None:
    registry = default_registry()
    assert registry.preview_call("terminal", {"command": "npm run build"}) == "terminal  npm run build"
    assert registry.preview_call("read_file", '{"path": "src/layout.tsx"}') == "read_file src/layout.tsx"
    assert (
        registry.preview_call("read_file", {"path": "a.py", "offset": 10, "limit": 5})
        == "read_file a.py :10-14"
    )
    assert (
        registry.preview_call("patch", {"path": "a.py", "old_string": "x = 1\n  y"})
        == 'patch     a.py "x = 1 y"'
    )
    assert registry.preview_call("todo", {"action": "add", "items": ["a", "b"]}) == 'todo      add "a" +1'
    long = registry.preview_call("terminal", {"command": "echo " + "x" * 200}, width=30)
    assert len(long) <= 10 + 30 and long.endswith("…") and "\n" not in long
    assert registry.preview_call("terminal", '{"command": "ls') == "terminal"  # unparsable: still a line
    from engine.tools.knowledge import agent_registry

    broken = '{"action": "add", "target": "user", "content": "oops'
    assert agent_registry().preview_call("memory", broken) == "memory"  # not 'memory    ?memory ""'


def _mapping_preview(args: Mapping[str, Any], width: int) -> str:
    raise RuntimeError("a preview bug must not break the UI")


def test_a_broken_preview_falls_back() -> None:
    async def noop(args: dict[str, Any], ctx: ToolContext) -> None:
        return None

    registry = ToolRegistry([Tool("t", "t", "d", {"type": "object"}, noop, _mapping_preview)])
    assert registry.preview_call("t", {"a": "b"}) == "t         b"


async def test_none_and_tool_results_are_accepted(bench: Bench) -> None:
    async def nothing(args: dict[str, Any], ctx: ToolContext) -> None:
        return None

    async def detailed(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return ToolResult("body", ok=False, summary="custom", display="diff")

    bench.registry.register(Tool("nothing", "t", "d", {"type": "object"}, nothing))
    bench.registry.register(Tool("detailed", "t", "d", {"type": "object"}, detailed))
    assert (await bench.call("nothing", {})).content == "Done."
    outcome = await bench.call("detailed", {})
    assert (outcome.content, outcome.ok, outcome.summary, outcome.display) == (
        "body",
        False,
        "custom",
        "diff",
    )


def test_hws_tools_lists_tools_and_prints_schemas(capsys: pytest.CaptureFixture[str]) -> None:
    from engine.cli import main
    from engine.config import defaults
    from engine.tools.knowledge import agent_registry

    # the agent's own tools (memory, skills, search), the built-ins, then those the config turns on
    offered = agent_registry(defaults())
    assert main(["tools"]) == 0
    out = capsys.readouterr().out.strip().split("\n")
    assert [line.split()[0] for line in out[:-1]] == offered.names
    configured = ["clarify", "web_fetch", "delegate_task"]
    assert offered.names[-len(BUILTIN) - 3 : -3] == BUILTIN and offered.names[-3:] == configured
    assert out[-1].startswith(f"{len(offered)} tools, ") and out[-1].endswith("tokens of schemas")
    assert main(["tools", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == offered.schemas()


async def test_a_result_that_cannot_be_serialised_is_an_error(bench: Bench) -> None:
    async def odd(args: dict[str, Any], ctx: ToolContext) -> dict[Any, Any]:
        return {("tuple", "key"): 1}

    bench.registry.register(Tool("odd", "t", "d", {"type": "object"}, odd))
    outcome = await bench.call("odd", {})
    assert not outcome.ok and "odd returned a result that cannot be sent: TypeError" in outcome.content
