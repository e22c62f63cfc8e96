"""The home's knowledge on the MCP SDK's low-level server, and the stdio transport that serves it.

The low-level server is used (not the decorator one) because the tools already have their JSON
schemas, shared with the agent's own tools. Every text that leaves passes the home's redactor, as the
agent's tool results do; a refused call (`success: False`) is an MCP tool error carrying its reason.
"""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types
from mcp.server.lowlevel import Server

from engine.mcp_serve.knowledge import HomeKnowledge, KnowledgeError
from engine.threats.redact import home_redactor

SERVER_NAME = "hermes"
SERVER_VERSION = "0.1.0"
INSTRUCTIONS = (
    "The user's Hermes Workstation home: their persistent memory (who they are, facts about their "
    "environment), their skills (reusable procedures) and their past conversations. Read memory with "
    "memory_read; save a lasting fact with memory; look for earlier work with session_search."
)
INSTRUCTION_ARGUMENT = "instruction"


def client_name(ctx: Any) -> str | None:
    """The name the client gave in its initialize request (`clientInfo.name`), if it gave one."""
    params = ctx.session.client_params
    return params.client_info.name if params is not None and params.client_info is not None else None


def build_server(knowledge: HomeKnowledge) -> Server[Any]:
    """A low-level MCP server whose handlers answer from `knowledge`."""

    def redact(value: Any) -> Any:
        return home_redactor(knowledge.home.root, knowledge.config).tool_value(value)

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        knowledge.refresh()
        return types.ListToolsResult(
            tools=[
                types.Tool(name=spec.name, description=spec.description, input_schema=spec.input_schema)
                for spec in knowledge.tools()
            ]
        )

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        result = redact(await knowledge.call(params.name, dict(params.arguments or {}), client_name(ctx)))
        failed = not result.get("success", True)
        text = json.dumps(result, ensure_ascii=False, indent=1)
        if failed:
            text = f"{result.get('error') or 'The call failed.'}\n\n{text}"
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=failed)

    async def list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
        return types.ListResourcesResult(
            resources=[
                types.Resource(uri=r.uri, name=r.name, description=r.description, mime_type=r.mime_type)
                for r in knowledge.resources()
            ]
        )

    async def read_resource(ctx: Any, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        uri = str(params.uri)
        try:
            text = redact(knowledge.read(uri))
        except KnowledgeError as exc:
            raise _error(str(exc)) from exc
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=uri, mime_type="text/markdown", text=text)]
        )

    async def list_prompts(ctx: Any, params: Any) -> types.ListPromptsResult:
        argument = types.PromptArgument(
            name=INSTRUCTION_ARGUMENT, description="What to do with the skill (optional).", required=False
        )
        return types.ListPromptsResult(
            prompts=[
                types.Prompt(name=p.name, description=p.description, arguments=[argument])
                for p in knowledge.prompts()
            ]
        )

    async def get_prompt(ctx: Any, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        instruction = str((params.arguments or {}).get(INSTRUCTION_ARGUMENT) or "")
        try:
            text = redact(knowledge.prompt(params.name, instruction))
        except KnowledgeError as exc:
            raise _error(str(exc)) from exc
        message = types.PromptMessage(role="user", content=types.TextContent(type="text", text=text))
        return types.GetPromptResult(description=f"The skill {params.name}", messages=[message])

    return Server(
        SERVER_NAME,
        version=SERVER_VERSION,
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_read_resource=read_resource,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
    )


def _error(message: str) -> Exception:
    from mcp.shared.exceptions import MCPError

    return MCPError(code=types.INVALID_PARAMS, message=message)


async def serve_stdio(server: Server[Any]) -> None:
    """Serve one client over this process's stdin and stdout until it closes them."""
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())
