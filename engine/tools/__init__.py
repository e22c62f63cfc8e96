"""The agent's tools: a registry with JSON schemas and a dispatcher that never raises.

Adding a tool is a `Tool(...)` value in any module plus one line where the agent builds its
registry (`registry.register(MEMORY)`), or a module named in `registry.TOOL_MODULES` that exposes `TOOLS`:

    async def _memory(args: dict, ctx: ToolContext) -> dict:
        result = ctx.resource("memory").add(args["target"], args["content"])  # raise ToolError to refuse
        await ctx.send(MemoryWritten(ctx.session_id, args["target"], "add", "agent", result["id"], "..."))
        return result  # a dict or text; ToolResult(content, ok, summary, display) for more control

    def _preview(args: Mapping, width: int) -> str:  # `memory   +user "User hates light…"`
        return f"+{args.get('target')} " + quoted(str(args.get("content", "")), width - 6)

    MEMORY = Tool("memory", "memory", "Save durable facts…", {"type": "object", ...}, _memory, _preview)

The agent calls `registry.call_detail(name, raw_args, width)` for the ToolCalled line, then
`await registry.dispatch(name, raw_args, ctx)`, whose `ToolOutcome` carries the text for the model
(`content`), `ok`, the one-line result `summary` and any UI-only `display` (diffs).
"""
