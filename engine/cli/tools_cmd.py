"""`hws tools`: the tools the agent is offered, with what each schema costs in tokens."""

from __future__ import annotations

import argparse
import json
from typing import Any

from engine.cli.common import open_home, print_json


def register(sub: Any) -> None:
    parser = sub.add_parser("tools", help="list the agent's tools and the token cost of their schemas")
    parser.add_argument(
        "--json", action="store_true", help="print the schemas exactly as the model gets them"
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from engine.text import tokens
    from engine.tools.knowledge import agent_registry

    _home, config = open_home(args)
    registry = agent_registry(config)  # what `Agent` builds when it is given no registry: the model's list
    if args.json:
        print_json(registry.schemas())
        return 0
    counts = tokens.count_many([json.dumps(tool.schema()) for tool in registry])
    width = max(len(tool.name) for tool in registry)
    toolset_width = max(len(tool.toolset) for tool in registry)
    for tool, count in zip(registry, counts, strict=True):
        first = tool.description.split(". ")[0].rstrip(".")
        print(f"{tool.name:<{width}}  {tool.toolset:<{toolset_width}} {count:>4} tokens  {first}")
    total = tokens.count(json.dumps(registry.schemas()))
    print(f"{len(registry)} tools, {total:,} tokens of schemas")
    return 0
