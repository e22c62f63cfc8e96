"""`hws compress SESSION [--focus TEXT]`: compress a stored conversation now, as `/compress` does.

The session is resumed at the newest child of its compression chain; the three phases run (memory
flush, summary, split) and the conversation continues in a new child session, whose id is printed.
`--json` prints the compression's events as JSON lines.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import TYPE_CHECKING, Any

from engine.cli.common import EXIT_OK, EXIT_REFUSED, EXIT_USAGE, fail, open_home

if TYPE_CHECKING:
    from engine.config import Config
    from engine.events import Event
    from engine.home import Home


def register(sub: Any) -> None:
    parser = sub.add_parser(
        "compress",
        help="compress a session now: save memories, summarise the middle, continue in a child session",
        description=(
            "Compress a stored conversation as /compress does: the model may save memories first, the "
            "middle is summarised, and the conversation continues in a new child session. The original "
            "messages stay in the parent session and remain searchable."
        ),
    )
    parser.add_argument("session", help="session id (or a unique prefix); its newest continuation is used")
    parser.add_argument("--focus", metavar="TEXT", help="what the summary should concentrate on")
    parser.add_argument("--json", action="store_true", help="print the compression's events as JSON lines")
    parser.add_argument(
        "--scripted",
        action="store_true",
        help="use the built-in scripted model server instead of the configured model",
    )
    parser.add_argument(
        "--scenario", metavar="NAME|FILE", help="the scripted model's scenario (implies --scripted)"
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from engine.cli.run_cmd import _no_model_sentence, _scripted_client

    home, config = open_home(args)
    if not config.compression.enabled:
        fail(
            "Compression is off (compression.enabled: false in config.yaml); turn it on to compress.",
            EXIT_REFUSED,
        )
    server = client = None
    if args.scripted or args.scenario:
        server, client = _scripted_client(args.scenario or "default", home, config)
    else:
        from engine.llm.settings import SettingsError, model_settings

        try:
            model_settings(config)
        except SettingsError:
            fail(_no_model_sentence(home), EXIT_USAGE)
    try:
        return asyncio.run(_compress(home, config, args, client))
    finally:
        if server is not None:
            server.stop()


async def _compress(home: Home, config: Config, args: argparse.Namespace, client: Any) -> int:
    from engine.agent.errors import AgentError
    from engine.agent.turns import Agent

    printer = _Printer(args.json)
    try:
        agent = Agent(
            home,
            config,
            resume=args.session,
            source="cli",
            client=client,
            aux_client=client,
            on_background=printer,
        )
    except AgentError as exc:
        fail(str(exc), EXIT_USAGE)
    try:
        try:
            await agent.start()  # resumes the session: an unknown id is a usage error
        except AgentError as exc:
            fail(str(exc), EXIT_USAGE)
        try:
            outcome = await agent.compress(args.focus)
        except AgentError as exc:
            fail(str(exc), EXIT_REFUSED)
    finally:
        await agent.close()
    if not args.json:
        from engine.compression.compressor import summary_of

        print(summary_of(outcome))
    return EXIT_OK if outcome.compressed else EXIT_REFUSED


class _Printer:
    """The compression's events: JSON lines, or one short line per phase on stderr."""

    def __init__(self, as_json: bool) -> None:
        self.as_json = as_json

    def __call__(self, event: Event) -> None:
        if self.as_json:
            import json

            sys.stdout.write(json.dumps(event.as_dict(), ensure_ascii=False, default=str) + "\n")
            sys.stdout.flush()
            return
        for line in _lines(event):
            sys.stderr.write(line + "\n")
        sys.stderr.flush()


def _lines(event: Event) -> list[str]:
    data = event.__dict__
    kind = event.kind
    if kind == "status":
        return [f"{data['level']}: {data['text']}"]
    if kind == "memory_written":
        return [f"┊ memory     {data['target']} {data['action']}: {data['message']}"]
    if kind != "compression_phase":
        return []
    detail = data["detail"]
    if data["phase"] == "flush":
        if detail.get("skipped"):
            return [f"┊ flush      skipped: {detail['skipped']}"]
        writes = detail.get("writes") or []
        return [f"┊ flush      {len(writes)} write(s)"] + [f"┊            {w}" for w in writes]
    if data["phase"] == "summarize":
        if detail.get("skipped"):
            return [f"┊ summarize  {detail['skipped']}"]
        return [
            f"┊ summarize  {detail.get('summarised', 0)} messages -> summary ({detail.get('source')}), "
            f"{data['tokens_before']:,} -> {data['tokens_after']:,} tokens"
        ]
    if data["phase"] == "split":
        return [f"┊ split      {detail.get('old_session_id')} -> {detail.get('new_session_id')}"]
    return []
