"""An MCP server's tools as registry tools: `mcp_<server>_<tool>`, a checked schema, a screened description.

What a server says about its tools is text the model reads, written by someone else: every
description (the tool's and each parameter's) is capped and passes the threat scanner at the
context files' scope; one that reads as an instruction to the model is cut and the cut is kept
in `ToolNote.flags` for `hws mcp list`. A schema that is not a JSON schema of an object leaves the
tool out. Calls ask the person as the server's `trust` says, and their results (text, structured
content, images and resources as notes) go through the registry's redaction and caps like any tool's.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from engine.events import ToolProgress
from engine.threats.scan import scan
from engine.tools.context import Decision, ToolContext
from engine.tools.errors import ToolError
from engine.tools.registry import Tool, ToolResult

if TYPE_CHECKING:
    from engine.mcp.connection import ServerConnection

MAX_NAME = 64  # the longest tool name OpenAI-compatible APIs accept
TOOLSET = "mcp"
_UNSAFE = re.compile(r"[^A-Za-z0-9_]")
_SCHEMA_MAPS = ("properties", "$defs", "definitions", "patternProperties")


@dataclass
class ToolNote:
    """What was done to one server tool on its way to the model: its name there, cuts and flags."""

    server: str
    tool: str
    name: str
    flags: list[str] = field(default_factory=list)  # descriptions cut as injections: `where: pattern ids`
    problem: str = ""  # why the tool was left out, when it was


def tool_name(server: str, tool: str) -> str:
    """`mcp_<server>_<tool>` with every character outside [A-Za-z0-9_] as `_`, at most 64 characters."""
    name = f"mcp_{_UNSAFE.sub('_', server)}_{_UNSAFE.sub('_', tool)}"
    if len(name) <= MAX_NAME:
        return name
    digest = hashlib.sha256(name.encode()).hexdigest()[:8]
    return f"{name[: MAX_NAME - 9]}_{digest}"


def screen_description(text: str, limit: int) -> tuple[str, list[str]]:
    """A description capped to `limit` characters, or withheld when the scanner finds an injection."""
    text = (text or "").strip()
    findings = scan(text, "context") if text else []
    if findings:
        ids = sorted({f.id for f in findings})
        return f"[description withheld: it matched prompt-injection patterns ({', '.join(ids)})]", ids
    if len(text) > limit:
        text = text[: limit - 1].rstrip() + "…"
    return text, []


def clean_schema(schema: dict[str, Any], limit: int, flags: list[str], where: str = "") -> dict[str, Any]:
    """The schema without `title`s, each `description` screened; `flags` gets each withheld one."""
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "title" and isinstance(value, str):
            continue
        if key == "description" and isinstance(value, str):
            text, ids = screen_description(value, limit)
            if ids:
                flags.append(f"{where or 'schema'}: {', '.join(ids)}")
            out[key] = text
        elif key in _SCHEMA_MAPS and isinstance(value, dict):
            out[key] = {
                name: clean_schema(sub, limit, flags, f"{where}.{name}".lstrip("."))
                if isinstance(sub, dict)
                else sub
                for name, sub in value.items()
            }
        elif isinstance(value, dict):
            out[key] = clean_schema(value, limit, flags, where)
        elif isinstance(value, list):
            out[key] = [clean_schema(v, limit, flags, where) if isinstance(v, dict) else v for v in value]
        else:
            out[key] = value
    return out


def check_schema(schema: Any) -> str:
    """Why `schema` cannot be a tool's parameters ('' when it can)."""
    if not isinstance(schema, dict) or schema.get("type", "object") != "object":
        return "its input schema is not a JSON schema of an object"
    from jsonschema.exceptions import SchemaError
    from jsonschema.validators import validator_for

    try:
        validator_for(schema).check_schema(schema)
    except SchemaError as exc:
        return f"its input schema is not valid ({exc.message[:120]})"
    if len(json.dumps(schema)) > 100_000:
        return "its input schema is larger than 100,000 characters"
    return ""


def adapt_tool(connection: ServerConnection, listed: Any, limit: int) -> tuple[Tool | None, ToolNote]:
    """One listed MCP tool as a registry tool, and the note of what was done to it (None: left out)."""
    server = connection.name
    note = ToolNote(server, str(listed.name), tool_name(server, str(listed.name)))
    schema = dict(listed.input_schema or {"type": "object"})
    schema.setdefault("type", "object")
    problem = check_schema(schema)
    if problem:
        note.problem = problem
        return None, note
    description, ids = screen_description(listed.description or "", limit)
    if ids:
        note.flags.append(f"description: {', '.join(ids)}")
    parameters = clean_schema(schema, limit, note.flags)
    parameters.setdefault("properties", {})
    prefix = f"(MCP server {server}) "
    tool = Tool(
        name=note.name,
        toolset=TOOLSET,
        description=prefix + (description or listed.name),
        parameters=parameters,
        handler=_handler(connection, str(listed.name), note.name),
    )
    return tool, note


def _handler(connection: ServerConnection, remote: str, name: str) -> Any:
    async def call(arguments: dict[str, Any], ctx: ToolContext) -> ToolResult:
        from engine.mcp.connection import McpCallError

        await _approve(connection, remote, name, arguments, ctx)
        call_id = ctx.call_id

        async def progress(done: float, total: float | None, message: str | None) -> None:
            await ctx.send(ToolProgress(ctx.session_id, call_id, name, float(done), total, message or ""))

        try:
            result = await connection.call(remote, arguments, progress)
        except McpCallError as exc:
            raise ToolError(str(exc)) from None
        return tool_result(result)

    return call


async def _approve(
    connection: ServerConnection, remote: str, name: str, arguments: dict[str, Any], ctx: ToolContext
) -> None:
    """Ask the person as the server's `trust` says: every call, the first call of each tool, or never."""
    trust = connection.spec.trust_level(ctx.config)
    if trust == "allow":
        return
    grant = f"mcp:{connection.name}:{remote}"
    shown = json.dumps(arguments, ensure_ascii=False)
    command = f"{name} {shown if len(shown) <= 300 else shown[:299] + '…'}"
    reason = f"a call of the tool `{remote}` on the MCP server `{connection.name}`"
    decision = await ctx.ask(
        name,
        command,
        reason,
        (grant,) if trust == "once" else (),
        rule=f"mcp_trust_{trust}",
        scope=f"every call of `{remote}` on the MCP server `{connection.name}`" if trust == "once" else "",
        allow_session=trust == "once",
    )
    if decision is Decision.DENY:
        raise ToolError(f"The person declined this call of `{remote}` on the MCP server `{connection.name}`.")
    if trust == "once":  # asked once per tool: any approval covers its later calls in this session
        ctx.state.approvals.add(grant)


def tool_result(result: Any) -> ToolResult:
    """A CallToolResult as what the model reads: text, or the structured content, with notes for the rest."""
    texts: list[str] = []
    notes: list[str] = []
    for block in result.content or []:
        kind = getattr(block, "type", "")
        if kind == "text":
            texts.append(block.text)
        elif kind in ("image", "audio"):
            size = len(getattr(block, "data", "") or "") * 3 // 4
            notes.append(f"[{kind} {block.mime_type}, about {size:,} bytes: not shown to the model]")
        elif kind == "resource_link":
            notes.append(f"[resource {block.name}: {block.uri}]")
        elif kind == "resource":
            inner = block.resource
            text = getattr(inner, "text", None)
            if text is not None:
                texts.append(f"[resource {inner.uri}]\n{text}")
            else:
                notes.append(
                    f"[resource {inner.uri} ({inner.mime_type or 'binary'}): not shown to the model]"
                )
        else:
            notes.append(f"[{kind or 'unknown'} content: not shown to the model]")
    structured = getattr(result, "structured_content", None)
    text = "\n".join([*texts, *notes]).strip()
    if result.is_error:
        return ToolResult({"error": text or "The MCP tool reported an error without saying why."}, ok=False)
    if structured is not None:
        if isinstance(structured, dict) and set(structured) == {"result"}:  # a plain return value, wrapped
            structured = structured["result"]
        if isinstance(structured, str):
            return ToolResult("\n".join([structured, *notes]))
        content: dict[str, Any] = {"result": structured}
        if notes:
            content["notes"] = notes
        return ToolResult(content)
    return ToolResult(text or "(the tool returned nothing)")
