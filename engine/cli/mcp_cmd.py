"""`hws mcp list|add|remove|test`: the MCP servers of config.yaml, started for a look and stopped again;
`hws mcp serve`: this home's memory, skills and sessions served to other agents (engine/mcp_serve/)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from engine.cli.common import EXIT_OK, EXIT_REFUSED, EXIT_USAGE, fail, open_home, print_json


def register(sub: Any) -> None:
    parser = sub.add_parser(
        "mcp",
        help="list, add, remove and test the MCP servers whose tools the agent uses",
        description="The MCP servers of config.yaml (`mcp_servers:`, as Hermes Agent writes it).",
    )
    verbs = parser.add_subparsers(dest="verb", metavar="VERB", required=True)
    listing = verbs.add_parser("list", help="start each server, show its state, tools and schema tokens")
    listing.add_argument("--json", action="store_true", help="print the servers as JSON")
    listing.set_defaults(handler=run_list)
    add = verbs.add_parser(
        "add",
        help="add a server: hws mcp add NAME [OPTIONS] -- COMMAND ARGS…, or hws mcp add NAME --url URL",
        description="Add a server to config.yaml. Options: --url URL (a streamable HTTP server), --sse (it "
        "speaks only SSE), --env KEY=VALUE and --header NAME=VALUE (repeatable; `${VAR}` is read from the "
        "home's .env when the server starts and never shown to the model), --trust ask|once|allow.",
    )
    add.add_argument("name", help="the server's name (its tools are offered as mcp_NAME_TOOL)")
    add.add_argument("rest", nargs=argparse.REMAINDER, help="[OPTIONS] -- COMMAND ARGS…")
    add.set_defaults(handler=run_add)
    remove = verbs.add_parser("remove", help="remove a server from config.yaml")
    remove.add_argument("name")
    remove.set_defaults(handler=run_remove)
    test = verbs.add_parser("test", help="start one server, list its tools and stop it")
    test.add_argument("name")
    test.set_defaults(handler=run_test)
    _register_serve(verbs)


def _register_serve(verbs: Any) -> None:
    serve = verbs.add_parser(
        "serve",
        help="serve this home's memory, skills and past sessions to other agents (Claude Code, Codex…)",
        description="Serve the home over MCP on stdio (the client starts it), or with --http on "
        "http://127.0.0.1:PORT/mcp behind a bearer token. Tools: memory, memory_read, skills_list, "
        "skill_view, skill_manage (with mcp_serve.allow_skill_writes), session_search; resources: "
        "hermes://memory/MEMORY.md, hermes://memory/USER.md, hermes://soul, hermes://skills/NAME; every "
        "skill is also a prompt. Writes are journaled as mcp:CLIENT and respect memory.write_approval.",
    )
    serve.add_argument("--read-only", action="store_true", help="serve no tool that writes")
    serve.add_argument("--http", action="store_true", help="serve streamable HTTP instead of stdio")
    serve.add_argument("--host", default="127.0.0.1", help="address for --http (default 127.0.0.1)")
    serve.add_argument("--port", type=int, help="port for --http (default: mcp_serve.port, 8766)")
    serve.add_argument("--token-file", help="read the bearer token from this file instead of making one")
    serve.add_argument(
        "--allow-remote",
        action="store_true",
        help="allow --host other than loopback: anyone who reaches it with the token can read your memory",
    )
    serve.add_argument(
        "--print-config",
        choices=("claude", "codex", "cursor"),
        help="print the snippet for that client's MCP config and exit",
    )
    serve.set_defaults(handler=run_serve)


def run_serve(args: argparse.Namespace) -> int:
    import anyio

    from engine.mcp_serve.knowledge import HomeKnowledge
    from engine.mcp_serve.server import build_server, serve_stdio

    home, config = open_home(args)
    port = int(args.port if args.port is not None else config.mcp_serve.port)
    if args.print_config:
        note, text = _client_snippet(args, home, port)
        print(note, file=sys.stderr)  # stdout is the snippet alone, ready to be saved as the file
        print(text)
        return EXIT_OK
    server = build_server(HomeKnowledge(home, config, read_only=args.read_only))
    if not args.http:
        anyio.run(serve_stdio, server)
        return EXIT_OK
    from engine.mcp_serve.http import MCP_PATH, serve_http

    token = _http_token(args, port)
    print(f"Serving {home.root} over MCP on http://{_url_host(args.host)}:{port}{MCP_PATH}.", flush=True)
    if not args.token_file:
        print(f"Bearer token (shown once; pass it as Authorization: Bearer …): {token}", flush=True)
    try:
        anyio.run(serve_http, server, args.host, port, token)
    except KeyboardInterrupt:
        return EXIT_OK
    except OSError as exc:
        fail(f"Cannot listen on {args.host}:{port}: {exc.strerror or exc}.", EXIT_REFUSED)
    return EXIT_OK


def _http_token(args: argparse.Namespace, port: int) -> str:
    """The token of this start (new, or read from --token-file), after the bind address is checked."""
    from engine.cli.serve_access import is_loopback, new_token

    if not 1 <= port <= 65535:
        fail(f"--port must be between 1 and 65535, not {port}.", EXIT_USAGE)
    if not is_loopback(args.host):
        if not args.allow_remote:
            fail(
                f"{args.host} is not a loopback address: anyone who can reach it and learns the token could "
                "read and change your memory. Add --allow-remote to serve there anyway.",
                EXIT_USAGE,
            )
        print(
            f"warning: serving MCP on {args.host} over plain http: the token crosses the network "
            "unencrypted. Stop it with Ctrl+C when you are done.",
            file=sys.stderr,
        )
    if not args.token_file:
        return new_token()
    try:
        token = open(args.token_file, encoding="utf-8").read().strip()  # noqa: SIM115
    except (OSError, UnicodeDecodeError) as exc:
        fail(f"Cannot read the token file {args.token_file}: {exc}.", EXIT_USAGE)
    if len(token) < 16 or any(c.isspace() for c in token):
        fail(f"The token in {args.token_file} must be one line of at least 16 characters.", EXIT_USAGE)
    return token


def _client_snippet(args: argparse.Namespace, home: Any, port: int) -> tuple[str, str]:
    import shutil
    from pathlib import Path

    from engine.mcp_serve.client_config import TOKEN_VARIABLE, WHERE, snippet
    from engine.mcp_serve.http import MCP_PATH

    argv = [] if home.root == (Path.home() / ".hermes").absolute() else ["--home", str(home.root)]
    argv += ["mcp", "serve"] + (["--read-only"] if args.read_only else [])
    url = f"http://{_url_host(args.host)}:{port}{MCP_PATH}" if args.http else ""
    text = snippet(args.print_config, shutil.which("hws") or "hws", argv, url)
    note = f"For {WHERE[args.print_config]}."
    if url:
        note += f" Set {TOKEN_VARIABLE} to the token hws mcp serve --http printed (or its --token-file)."
    return note, text


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def _views(home: Any, config: Any, names: tuple[str, ...] = ()) -> list[Any]:
    """Start the servers (all, or `names`), wait for each to be ready or fail, and stop them again."""
    from engine.mcp.hub import look
    from engine.mcp.servers import ServerList, read_servers

    servers = read_servers(config)
    if names:
        servers = ServerList(tuple(s for s in servers.servers if s.name in names))
    return look(home, config, servers)[1]


def run_list(args: argparse.Namespace) -> int:
    from engine.mcp.servers import read_servers

    home, config = open_home(args)
    servers = read_servers(config)
    for problem in servers.problems:
        print(f"warning: {problem}", file=sys.stderr)
    if not servers.servers:
        if args.json:
            print_json([])
        else:
            print("No MCP server is configured; add one with: hws mcp add NAME -- COMMAND ARGS…")
        return EXIT_OK
    views = _views(home, config)
    if args.json:
        print_json([view.__dict__ for view in views])
        return EXIT_OK
    print(f"{'server':<14}{'state':<10}{'tools':>6}{'tokens':>8}  {'trust':<6}where")
    for view in views:
        deferred = " (deferred: tool_search)" if view.deferred else ""
        print(
            f"{view.name:<14}{view.state:<10}{view.tools:>6}{view.schema_tokens:>8,}  {view.trust:<6}"
            f"{view.where}{deferred}"
        )
        if view.error:
            print(f"  ✗ {view.error}")
        for flag in view.flags:
            print(f"  ⚠ injection cut from {flag}")
        for left in view.left_out:
            print(f"  – left out: {left}")
    return EXIT_OK


def run_test(args: argparse.Namespace) -> int:
    from engine.mcp.servers import read_servers

    home, config = open_home(args)
    servers = read_servers(config)
    spec = servers.get(args.name)
    if spec is None:
        problem = next((p for p in servers.problems if f"`{args.name}`" in p), "")
        fail(problem or f"No MCP server named `{args.name}` in config.yaml (see hws mcp list).", EXIT_USAGE)
    [view] = _views(home, config, (spec.name,))
    if view.state != "ready":
        print(f"MCP server `{view.name}` did not start: {view.error}", file=sys.stderr)
        return EXIT_REFUSED
    print(
        f"MCP server `{view.name}` started and listed {view.tools} tools "
        f"({view.schema_tokens:,} schema tokens)."
    )
    for flag in view.flags:
        print(f"A description was cut as a prompt injection: {flag}.")
    for left in view.left_out:
        print(f"A tool is left out: {left}.")
    return EXIT_OK


def run_add(args: argparse.Namespace) -> int:
    from engine.config_edit import ConfigEditError
    from engine.mcp.config_write import add_server
    from engine.mcp.servers import parse_server, server_entry

    home, _ = open_home(args)
    rest = list(args.rest or [])
    if "--" in rest:
        split = rest.index("--")
        flags, command = rest[:split], rest[split + 1 :]
    elif rest[:1] and rest[0].startswith("-"):
        flags, command = rest, []
    else:  # argparse drops a `--` that comes right after NAME: then everything is the command
        flags, command = [], rest
    options = _add_options().parse_args(flags)
    args = argparse.Namespace(**vars(args), **vars(options))
    if bool(command) == bool(args.url):
        fail("Give either a command (hws mcp add NAME -- COMMAND ARGS…) or --url URL.", EXIT_USAGE)
    entry: dict[str, Any] = {"url": args.url} if args.url else {"command": command[0], "args": command[1:]}
    if args.sse:
        entry["transport"] = "sse"
    if args.env:
        entry["env"] = _pairs(args.env, "--env")
    if args.header:
        entry["headers"] = _pairs(args.header, "--header")
    if args.trust:
        entry["trust"] = args.trust
    try:
        spec = parse_server(args.name, entry)
        add_server(home.config_file, args.name, server_entry(spec))
    except (ValueError, ConfigEditError) as exc:
        fail(f"The server was not added: {exc}" if isinstance(exc, ValueError) else str(exc), EXIT_USAGE)
    print(f"Added the MCP server `{args.name}` ({spec.where}); check it with: hws mcp test {args.name}")
    return EXIT_OK


def run_remove(args: argparse.Namespace) -> int:
    from engine.config_edit import ConfigEditError
    from engine.mcp.config_write import remove_server

    home, _ = open_home(args)
    try:
        removed = remove_server(home.config_file, args.name)
    except ConfigEditError as exc:
        fail(str(exc), EXIT_USAGE)
    if not removed:
        fail(f"No MCP server named `{args.name}` in config.yaml (see hws mcp list).", EXIT_USAGE)
    print(f"Removed the MCP server `{args.name}`; a running session drops it at /reload-mcp.")
    return EXIT_OK


def _add_options() -> argparse.ArgumentParser:
    options = argparse.ArgumentParser(prog="hws mcp add NAME", add_help=False)
    options.add_argument("--url")
    options.add_argument("--sse", action="store_true")
    options.add_argument("--env", action="append", default=[])
    options.add_argument("--header", action="append", default=[])
    options.add_argument("--trust", choices=("ask", "once", "allow"))
    return options


def _pairs(items: list[str], flag: str) -> dict[str, str]:
    pairs = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            fail(f"{flag} takes NAME=VALUE, not {item!r}.", EXIT_USAGE)
        pairs[key.strip()] = value
    return pairs
