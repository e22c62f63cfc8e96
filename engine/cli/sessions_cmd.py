"""`hws sessions list|show|search|export|prune|rewind|branch`: the session database from the command line."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from engine.cli.common import EXIT_REFUSED, EXIT_USAGE, fail, open_home, print_json


def register(sub: Any) -> None:
    parser = sub.add_parser("sessions", help="list, show, search and export past sessions")
    commands = parser.add_subparsers(dest="sessions_command", metavar="ACTION", required=True)

    listing = commands.add_parser("list", help="recent conversations, newest first")
    listing.add_argument("--limit", type=int, default=30, help="how many (default 30)")
    listing.add_argument("--all", action="store_true", help="include subagent and tool sessions")
    listing.add_argument("--json", action="store_true", help="print as JSON")
    listing.set_defaults(handler=run_list)

    show = commands.add_parser("show", help="one session's details and messages")
    show.add_argument("id", help="session id, a unique prefix of one, or its title")
    show.add_argument("--rewound", action="store_true", help="include the messages rewound with /undo")
    show.add_argument("--json", action="store_true", help="print as JSON")
    show.set_defaults(handler=run_show)

    search = commands.add_parser("search", help="full-text search of every message")
    search.add_argument("query", help='words, a question, or a "quoted phrase"')
    search.add_argument("--limit", type=int, default=20, help="most hits (default 20)")
    search.add_argument("--role", action="append", default=[], help="only this role (repeatable)")
    search.add_argument("--json", action="store_true", help="print as JSON")
    search.set_defaults(handler=run_search)

    export = commands.add_parser("export", help="a session as Markdown")
    export.add_argument("id", help="session id, a unique prefix of one, or its title")
    export.add_argument("--lineage", action="store_true", help="the whole compression chain it belongs to")
    export.set_defaults(handler=run_export)

    rewind = commands.add_parser(
        "rewind",
        help="take back a session's last exchanges (kept in state.db as rewound), as /undo N does",
        description="Take back the last N exchanges of a session, or back to one of your messages: they stay "
        "in state.db marked rewound (search still finds them) and the next `hws run --session` goes on "
        "without them. Prints the message rewound to, to edit and send again.",
    )
    rewind.add_argument("id", help="session id, a unique prefix of one, or its title")
    rewind.add_argument("count", nargs="?", type=int, default=1, help="how many exchanges (default 1)")
    rewind.add_argument("--to", type=int, metavar="MESSAGE_ID", help="back to this message of yours instead")
    rewind.add_argument("--json", action="store_true", help="print as JSON")
    rewind.set_defaults(handler=run_rewind)

    branch = commands.add_parser(
        "branch",
        help="copy a session into a new branch session to go another way (the original stays as it is)",
        description="Copy a session's conversation (up to a message, with --at) into a new child session "
        "titled NAME or after the original; prints the new session's id for `hws run --session`.",
    )
    branch.add_argument("id", help="session id, a unique prefix of one, or its title")
    branch.add_argument("--at", type=int, metavar="MESSAGE_ID", help="copy up to this message only")
    branch.add_argument("--title", metavar="NAME", help="the branch's title (default: the original's, #N)")
    branch.add_argument("--json", action="store_true", help="print as JSON")
    branch.set_defaults(handler=run_branch)

    prune = commands.add_parser(
        "prune", help="archive, then delete, ended sessions older than sessions.retention_days"
    )
    prune.add_argument("--days", type=float, help="older than this (default sessions.retention_days)")
    prune.add_argument("--dry-run", action="store_true", help="only list the sessions it would prune")
    prune.add_argument("--json", action="store_true", help="print as JSON")
    prune.set_defaults(handler=run_prune)


def _run(args: argparse.Namespace, work: Any) -> int:
    """Open the store of the home, run `work(store)` and close it, turning store errors into sentences."""
    import asyncio

    from engine.sessions.errors import StoreError

    home, config = open_home(args)

    async def main() -> int:
        from engine.sessions.store import SessionStore
        from engine.threats.redact import RedactingStream, home_redactor

        path = home.state_db
        if not path.exists():
            return await work(None)

        def progress(done: int, total: int) -> None:
            end = "\n" if done >= total else ""
            print(f"\rindexing older messages for search: {done:,}/{total:,}", end=end, file=sys.stderr)

        store = await SessionStore.open(
            path, settings=config.sessions, on_progress=progress, redactor=home_redactor(home.root, config)
        )
        stdout = sys.stdout
        sys.stdout = RedactingStream(stdout, store.redactor)  # what we print of the database, too
        try:
            if store.read_only and store.read_only_reason:
                print(f"note: {store.read_only_reason}", file=sys.stderr)
            return await work(store)
        finally:
            sys.stdout = stdout
            await store.close()

    try:
        return asyncio.run(main())
    except StoreError as exc:
        fail(str(exc), EXIT_REFUSED)


def run_list(args: argparse.Namespace) -> int:
    async def work(store: Any) -> int:
        rows = (
            []
            if store is None
            else await store.tree.list_conversations(limit=args.limit, include_hidden=args.all)
        )
        if args.json:
            print_json([c.as_dict() for c in rows])
            return 0
        if not rows:
            print("No sessions yet.")
            return 0
        for c in rows:
            chain = f" (+{len(c.session_ids) - 1} compressed)" if len(c.session_ids) > 1 else ""
            title = c.title or "(untitled)"
            print(
                f"{c.tip_id}  {c.root.when:<28}  {c.root.source:<9} {c.message_count:>5} msgs  {title}{chain}"
            )
        return 0

    return _run(args, work)


async def _resolve(store: Any, session_id: str) -> Any:
    from engine.sessions.errors import SessionNotFound

    if store is None:
        fail("There are no sessions yet (no state.db in this home).", EXIT_REFUSED)
    try:
        return await store.find_session(session_id)
    except SessionNotFound:
        fail(
            f"No single session matches {session_id!r} (no id, id prefix or title, or several share that "
            "prefix); `hws sessions list` shows the ids and titles.",
            EXIT_REFUSED,
        )


def run_show(args: argparse.Namespace) -> int:
    async def work(store: Any) -> int:
        session = await _resolve(store, args.id)
        messages = await store.get_messages(session.id, include_inactive=args.rewound)
        chain = await store.tree.lineage(session.id)
        if args.json:
            print_json(
                {"session": session.as_dict(), "lineage": chain, "messages": [m.as_dict() for m in messages]}
            )
            return 0
        print(f"{session.id}  {session.title or '(untitled)'}")
        print(f"  started {session.when} · {session.source} · {session.model or 'no model'}")
        if session.ended_at:
            print(f"  ended: {session.end_reason or 'ended'}")
        if len(chain) > 1:
            print(f"  conversation: {' -> '.join(chain)}")
        print(
            f"  {session.message_count} messages, {session.tool_call_count} tool calls, "
            f"{session.input_tokens:,} in / {session.output_tokens:,} out tokens "
            f"({session.cache_read_tokens:,} cached), {session.api_call_count} calls"
            + (f", ${session.estimated_cost_usd:.4f}" if session.estimated_cost_usd else "")
        )
        for message in messages:
            label = message.role + (f":{message.tool_name}" if message.tool_name else "")
            text = message.text.strip().replace("\n", "\n      ")
            if message.tool_calls:
                names = [
                    str((c.get("function") or {}).get("name", "?"))
                    for c in message.tool_calls
                    if isinstance(c, dict)
                ]
                text = (text + " " if text else "") + f"[calls {', '.join(names)}]"
            rewound = " (rewound)" if message.rewound else ""
            print(f"\n#{message.id} {label}{rewound}\n      {text}")
        return 0

    return _run(args, work)


def run_search(args: argparse.Namespace) -> int:
    if args.limit < 1:
        fail("--limit must be at least 1.")

    async def work(store: Any) -> int:
        if store is None:
            result_hits: list[Any] = []
            partial, plan = False, []
        else:
            result = await store.search(args.query, limit=args.limit, roles=[r.lower() for r in args.role])
            result_hits, partial, plan = list(result.hits), result.partial, list(result.plan)
        titles: dict[str, str | None] = {}
        for hit in result_hits:
            if hit.session_id not in titles:
                session = await store.get_session(hit.session_id)
                titles[hit.session_id] = session.title if session else None
        if args.json:
            print_json(
                {
                    "query": args.query,
                    "partial": partial,
                    "plan": plan,
                    "hits": [dict(h.as_dict(), title=titles.get(h.session_id)) for h in result_hits],
                }
            )
            return 0
        if not result_hits:
            print("No messages matched.")
            return 0
        from engine.sessions.records import when

        for hit in result_hits:
            title = titles.get(hit.session_id) or ""
            rewound = " (rewound)" if hit.rewound else ""
            print(f"{hit.session_id} #{hit.message_id} {hit.role:<9} {when(hit.timestamp)}  {title}{rewound}")
            print(f"    {hit.snippet}")
        if partial:
            print("(stopped at the time limit: older messages were not all searched)", file=sys.stderr)
        return 0

    return _run(args, work)


def run_export(args: argparse.Namespace) -> int:
    async def work(store: Any) -> int:
        from engine.sessions.as_text import export_markdown

        session = await _resolve(store, args.id)
        ids = await store.tree.lineage(session.id) if args.lineage else [session.id]
        parts = []
        for session_id in ids:
            record = await store.get_session(session_id)
            parts.append((record, await store.get_messages(session_id)))
        # A database written by another tool (or before redaction) may still hold a key: never export it.
        sys.stdout.write(store.redactor(export_markdown(parts)))
        return 0

    return _run(args, work)


def run_rewind(args: argparse.Namespace) -> int:
    if args.count < 1:
        fail("The count of exchanges to rewind must be 1 or more.", EXIT_USAGE)

    async def work(store: Any) -> int:
        from engine.agent.rewinding import opens_exchange
        from engine.sessions.rewind import rewind_exchanges, rewind_to

        session = await _resolve(store, args.id)
        if args.to is not None:
            rewound = await rewind_to(store, session.id, args.to, is_exchange=opens_exchange)
        else:
            rewound = await rewind_exchanges(store, session.id, args.count, is_exchange=opens_exchange)
        if args.json:
            print_json(rewound.as_dict())
            return 0
        count = len(rewound.message_ids)
        print(
            f"Rewound {rewound.exchanges} exchange(s) of {session.id} ({count} message(s), kept as rewound); "
            f"`hws run --session {session.id}` goes on from message {rewound.head_message_id or '(none)'}.",
            file=sys.stderr,
        )
        print(rewound.text)
        return 0

    return _run(args, work)


def run_branch(args: argparse.Namespace) -> int:
    async def work(store: Any) -> int:
        from engine.sessions.branch import branch_session

        session = await _resolve(store, args.id)
        branched = await branch_session(store, session.id, at_message_id=args.at, title=args.title)
        if args.json:
            print_json(branched.as_dict())
            return 0
        print(
            f"Branched {session.id} into “{branched.title}” with {branched.messages} message(s); "
            f"the original is unchanged.",
            file=sys.stderr,
        )
        print(branched.session_id)
        return 0

    return _run(args, work)


def run_prune(args: argparse.Namespace) -> int:
    from engine.sessions.prune import archive_folder, prune_sessions

    home, config = open_home(args)
    days = float(args.days if args.days is not None else config.sessions.retention_days)
    if days <= 0:
        fail("--days must be more than 0.", EXIT_USAGE)

    async def work(store: Any) -> int:
        if store is None:
            print("There is no session database yet; nothing to prune.")
            return 0
        result = await prune_sessions(store, archive_folder(home), days, dry_run=args.dry_run)
        if args.json:
            print_json(
                {
                    "pruned": list(result.pruned),
                    "messages": result.messages,
                    "archive": str(result.archive) if result.archive else None,
                    "dry_run": bool(args.dry_run),
                }
            )
        elif args.dry_run:
            for session_id in result.pruned:
                print(session_id)
            count = len(result.pruned)
            print(f"{count} session(s) older than {days:g} days would be pruned.", file=sys.stderr)
        else:
            print(result.sentence(days))
        return 0

    return _run(args, work)
