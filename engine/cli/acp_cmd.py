"""`hws acp`: the agent for editors and agent TUIs over the Agent Client Protocol, on stdin and stdout.

An ACP client (Zed, a JetBrains IDE, Toad) starts this command and speaks JSON-RPC to it; stdout is
the protocol's alone, logs and notes go to stderr and the home's logs. `--scripted` / `--scenario`
answer from the scripted model server, as `hws run` does, to try it without a model.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from engine.cli.common import EXIT_OK, EXIT_USAGE, fail, open_home


def register(sub: Any) -> None:
    parser = sub.add_parser(
        "acp",
        help="run the agent for an editor (Zed, JetBrains, Toad) over the Agent Client Protocol on stdio",
        description=(
            "Speak the Agent Client Protocol on stdin and stdout, for an editor or agent TUI that starts "
            "this command: sessions in the client's folder (resumable: they are in state.db), the answer "
            "streamed, tool calls and diffs shown, approvals asked in the client. Memory, skills and "
            "the background review work as in the workstation, in the same home."
        ),
    )
    parser.add_argument("--yolo", action="store_true", help="run destructive commands without asking")
    parser.add_argument(
        "--scripted",
        action="store_true",
        help="answer from the built-in scripted model server instead of the configured model",
    )
    parser.add_argument(
        "--scenario", metavar="NAME|FILE", help="the scripted model's scenario (implies --scripted)"
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if sys.stdin.isatty():
        fail(
            "hws acp speaks the Agent Client Protocol to an editor that starts it; to try it, configure "
            "it as an agent in Zed, a JetBrains IDE or Toad (see the README, “hws in your editor”).",
            EXIT_USAGE,
        )
    from engine.acp.server import AgentOptions
    from engine.acp.streams import keep_stdout_for_protocol

    protocol_fd = keep_stdout_for_protocol()
    home, config = open_home(args)
    server = None
    clients: Any = None
    if args.scripted or args.scenario:
        from engine.cli.run_cmd import _scripted_client

        server, client = _scripted_client(args.scenario or "default", home, config)
        clients = lambda: (client, client)  # noqa: E731
    else:
        from engine.cli.run_cmd import _no_model_sentence
        from engine.llm.settings import SettingsError, model_settings

        try:
            model_settings(config)
        except SettingsError:
            fail(_no_model_sentence(home), EXIT_USAGE)
    options = AgentOptions(yolo=True if args.yolo else None, **({"clients": clients} if clients else {}))
    try:
        asyncio.run(_serve(home, config, options, protocol_fd))
    finally:
        if server is not None:
            server.stop()
    return EXIT_OK


async def _serve(home: Any, config: Any, options: Any, protocol_fd: int) -> None:
    from acp import run_agent

    from engine.acp.server import HwsAcpAgent
    from engine.acp.streams import protocol_streams

    agent = HwsAcpAgent(home, config, options)
    reader, writer = await protocol_streams(protocol_fd)
    try:
        await run_agent(agent, writer, reader)
    finally:
        await agent.close()
