"""What a person's message asks of MCP servers: `@server:resource` attaches a resource, and a message
that is `/mcp:server:prompt [arguments]` becomes the text of that server prompt.

    text, notes = await expand(hub, "compare @docs:readme with @docs:file:///srv/CHANGES.md")

A resource is named by its name or its URI as the server lists it. Its text is appended to the message
under a `[resource server:uri]` line, cut at `mcp.resource_max_chars`; a binary one is a note. A
reference to a server that is not configured is left as written (`a@b:c` is not a reference); one that
cannot be read is left too, and the note says why. Prompt arguments are `name=value` pairs, or, for a
prompt with one argument, the rest of the line.
"""

from __future__ import annotations

import re
import shlex
from typing import TYPE_CHECKING, Any

from engine.mcp.connection import READY, STARTING, McpCallError

if TYPE_CHECKING:
    from engine.mcp.connection import ServerConnection
    from engine.mcp.hub import McpHub

PROMPT_PREFIX = "mcp:"
_REFERENCE = re.compile(r"(?<![\w@/])@([A-Za-z0-9][A-Za-z0-9_-]{0,31}):(\S+)")
_PROMPT = re.compile(r"^/mcp:([A-Za-z0-9][A-Za-z0-9_-]{0,31}):(\S+)(?:[ \t]+(.*))?$", re.DOTALL)
_TRAILING = ".,;:!?)]}'\""


class McpReferenceError(Exception):
    """A reference that cannot be honoured; the message is the sentence."""


async def expand(hub: McpHub, text: str, *, prompts: bool = True) -> tuple[str, list[tuple[str, str]]]:
    """The message the model gets, and (level, sentence) per reference: what was attached, or why not.

    `prompts`: a leading `/mcp:server:prompt` is expanded (what a person typed, not a paste)."""
    notes: list[tuple[str, str]] = []
    prompt = _PROMPT.match(text.strip()) if prompts else None
    if prompt is not None and prompt.group(1) in hub.connections:
        try:
            text = await prompt_text(hub, prompt.group(1), prompt.group(2), prompt.group(3) or "")
            notes.append(
                ("info", f"The MCP prompt `{prompt.group(2)}` of `{prompt.group(1)}` is the message.")
            )
        except McpReferenceError as exc:
            notes.append(("warning", f"{exc} The message was sent as typed."))
    attached: list[str] = []
    seen: set[tuple[str, str]] = set()
    for match in _REFERENCE.finditer(text):
        server, wanted = match.group(1), match.group(2).rstrip(_TRAILING)
        if server not in hub.connections or (server, wanted) in seen:
            continue
        seen.add((server, wanted))
        try:
            block, note = await _attachment(hub, server, wanted)
        except McpReferenceError as exc:
            notes.append(("warning", f"{exc} `@{server}:{wanted}` was sent as typed."))
            continue
        attached.append(block)
        notes.append(("info", note))
    if attached:
        text = "\n\n".join([text, *attached])
    return text, notes


async def prompt_text(hub: McpHub, server: str, name: str, argument: str) -> str:
    """The text of a server prompt's messages, its arguments taken from `argument`."""
    connection = await _ready(hub, server)
    listed = next((p for p in connection.prompts if p.name == name), None)
    if listed is None:
        offered = ", ".join(f"/mcp:{server}:{p.name}" for p in connection.prompts) or "none"
        raise McpReferenceError(f"The MCP server `{server}` has no prompt `{name}` (it offers: {offered}).")
    arguments = _prompt_arguments(listed, argument)
    missing = [a.name for a in listed.arguments or [] if a.required and a.name not in arguments]
    if missing:
        raise McpReferenceError(
            f"The MCP prompt `{name}` of `{server}` needs {', '.join(missing)}: "
            f"/mcp:{server}:{name} {' '.join(f'{m}=…' for m in missing)}."
        )
    try:
        result = await connection.get_prompt(name, arguments)
    except McpCallError as exc:
        raise McpReferenceError(str(exc)) from None
    parts = []
    for message in result.messages:
        content = message.content
        text = getattr(content, "text", None)
        if text is None and getattr(content, "type", "") == "resource":
            text = getattr(content.resource, "text", None)
        parts.append(text if text is not None else f"[{getattr(content, 'type', 'unknown')} content]")
    return "\n\n".join(parts).strip()


def prompt_commands(hub: McpHub) -> list[tuple[str, str]]:
    """Every ready server's prompts as (`mcp:server:prompt`, description), for the slash completion."""
    found = []
    for name, connection in hub.connections.items():
        if connection.state == READY:
            for prompt in connection.prompts:
                found.append((f"{PROMPT_PREFIX}{name}:{prompt.name}", prompt.description or "an MCP prompt"))
    return found


def resource_references(hub: McpHub) -> list[tuple[str, str]]:
    """Every ready server's resources as (`server:name`, description), for the `@` completion."""
    found = []
    for name, connection in hub.connections.items():
        if connection.state == READY:
            for resource in connection.resources:
                found.append((f"{name}:{resource.name}", resource.description or str(resource.uri)))
    return found


def _prompt_arguments(listed: Any, argument: str) -> dict[str, str]:
    argument = argument.strip()
    if not argument:
        return {}
    names = [a.name for a in listed.arguments or []]
    try:
        words = shlex.split(argument)
    except ValueError:
        words = argument.split()
    pairs = [w.partition("=") for w in words]
    if all(sep and key in names for key, sep, _ in pairs):
        return {key: value for key, _, value in pairs}
    if len(names) == 1:
        return {names[0]: argument}
    raise McpReferenceError(
        f"The MCP prompt `{listed.name}` takes {', '.join(names) or 'no arguments'}: give them as name=value."
    )


async def _attachment(hub: McpHub, server: str, wanted: str) -> tuple[str, str]:
    connection = await _ready(hub, server)
    listed = next((r for r in connection.resources if r.name == wanted or str(r.uri) == wanted), None)
    uri = str(listed.uri) if listed is not None else wanted
    if listed is None and ":" not in wanted:  # a name the server does not list (a URI is tried as given)
        offered = ", ".join(f"@{server}:{r.name}" for r in connection.resources[:10]) or "none"
        raise McpReferenceError(
            f"The MCP server `{server}` has no resource `{wanted}` (it offers: {offered})."
        )
    try:
        result = await connection.read_resource(uri)
    except McpCallError as exc:
        raise McpReferenceError(str(exc)) from None
    limit = int(hub.config.mcp.resource_max_chars)
    texts, notes = [], []
    for content in result.contents:
        text = getattr(content, "text", None)
        if text is not None:
            texts.append(text)
        else:
            notes.append(f"[binary content ({content.mime_type or 'unknown type'}): not attached]")
    body = "\n".join([*texts, *notes])
    cut = len(body) > limit
    if cut:
        body = body[:limit] + f"\n[… cut at {limit:,} characters (mcp.resource_max_chars)]"
    note = f"Attached the resource `{uri}` of the MCP server `{server}` ({len(body):,} characters" + (
        ", cut)." if cut else ")."
    )
    return f"[resource {server}:{uri}]\n{body}", note


async def _ready(hub: McpHub, server: str) -> ServerConnection:
    """The server's connection, once it has started (a message sent while it starts waits for it)."""
    connection = hub.connections[server]
    if connection.state == STARTING:
        await connection.wait(connection.spec.start_timeout(hub.config))
    if connection.state != READY:
        raise McpReferenceError(
            f"The MCP server `{server}` is {connection.state}, so its resources and prompts cannot be "
            "used now (/mcp says why)."
        )
    return connection
