"""`hws prompt [--json] [--text]`: the system prompt a new session would get, layer by layer, in tokens."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from engine.cli.common import EXIT_OK, fail, open_home, print_json


def register(sub: Any) -> None:
    parser = sub.add_parser(
        "prompt",
        help="show the system prompt's layers and token counts, with the tool schemas",
        description=(
            "Build the system prompt a new session in this folder would get (identity, guidance, skills "
            "index, project context, memory and user snapshots, session line) and print each layer's "
            "tokens, plus the tool schemas that go with every call."
        ),
    )
    parser.add_argument("--json", action="store_true", help="print the layers and totals as JSON")
    parser.add_argument("--text", action="store_true", help="print the prompt text itself after the table")
    parser.add_argument("--cwd", metavar="DIR", help="working directory (default: the current one)")
    parser.set_defaults(handler=run)


def gather(args: argparse.Namespace) -> dict[str, Any]:
    from engine.memory.store import Memory
    from engine.prompt.build import build_system_prompt, tool_schema_text
    from engine.skills.tiers import SessionTiers
    from engine.skills.tools import SkillTools
    from engine.text.tokens import count
    from engine.tools.knowledge import agent_registry

    home, config = open_home(args)
    cwd = Path(args.cwd).resolve() if args.cwd else Path.cwd()
    if not cwd.is_dir():
        fail(f"--cwd {args.cwd} is not a folder.")
    registry = agent_registry(config)
    skills = SkillTools(home, config, tiers=SessionTiers(""), session_id="")
    memory = Memory(home, config)
    prompt = build_system_prompt(
        home,
        config,
        tool_names=registry.names,
        skills_index=skills.index(),
        snapshot=memory.load_snapshot(),
        cwd=cwd,
        model=config.model_name,
    )
    schema_text = tool_schema_text(registry.schemas())
    schema_tokens = count(schema_text)
    data = prompt.as_dict()
    data["tools"] = {
        "count": len(registry),
        "names": registry.names,
        "tokens": schema_tokens,
        "chars": len(schema_text),
        "per_tool": {s["function"]["name"]: count(tool_schema_text([s])) for s in registry.schemas()},
    }
    data["mcp"] = _mcp_layer(home, config)
    data["total_tokens"] = prompt.tokens + schema_tokens + data["mcp"]["tokens"]
    data["system_prompt_chars"] = len(prompt.text)
    return data


def _mcp_layer(home: Any, config: Any) -> dict[str, Any]:
    """The MCP servers' schemas sent with every call (their own layer): the servers are started to see."""
    from engine.mcp.servers import read_servers

    if not read_servers(config).servers:
        return {"tokens": 0, "count": 0, "names": [], "deferred": [], "servers": {}}
    from engine.mcp.hub import look

    hub, views = look(home, config)
    return {
        "tokens": hub.sent_tokens(),
        "count": len(hub.sent),
        "names": [s["function"]["name"] for s in hub.sent],
        "deferred": sorted(hub.deferred_servers),
        "servers": {
            v.name: {"state": v.state, "tools": v.tools, "schema_tokens": v.schema_tokens} for v in views
        },
    }


def run(args: argparse.Namespace) -> int:
    data = gather(args)
    if args.json:
        print_json(data)
        return EXIT_OK
    out = sys.stdout
    out.write(f"{'layer':<15}{'tokens':>8}  {'cached':<7}source / note\n")
    for layer in data["layers"]:
        where = " — ".join(p for p in (layer["source"], layer["note"]) if p)
        cached = "yes" if layer["cached"] else "no"
        out.write(f"{layer['name']:<15}{layer['tokens']:>8,}  {cached:<7}{where}\n")
    out.write(f"{'system prompt':<15}{data['tokens']:>8,}  ({data['system_prompt_chars']:,} chars)\n")
    tools = data["tools"]
    names = ", ".join(tools["names"])
    out.write(f"{'tool schemas':<15}{tools['tokens']:>8,}  ({tools['count']} tools: {names})\n")
    mcp = data["mcp"]
    if mcp["servers"]:
        states = ", ".join(f"{name} {s['state']}" for name, s in mcp["servers"].items())
        deferred = f"; deferred behind tool_search: {', '.join(mcp['deferred'])}" if mcp["deferred"] else ""
        out.write(f"{'mcp schemas':<15}{mcp['tokens']:>8,}  ({mcp['count']} tools; {states}{deferred})\n")
    out.write(f"{'total':<15}{data['total_tokens']:>8,}  tokens sent with every call before any message\n")
    if args.text:
        out.write("\n" + data["text"] + "\n")
    return EXIT_OK
