"""The web server process of `hws serve`: textual-serve, starting one workstation per browser tab.

`hws serve` (engine/cli/serve_cmd.py) starts this module in a process group of its own and stops
the whole group when it stops, so no app process outlives it. Run it only through `hws serve`.
The access token arrives on stdin (one line), never in argv or the environment, so the workstation
processes this server starts never inherit it.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tui.serve")
    parser.add_argument("--host", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--command", required=True, help="the shell command that starts one workstation")
    parser.add_argument("--url", default=None, help="the address browsers use")
    parser.add_argument("--title", default="hws")
    parser.add_argument("--no-token", action="store_true", help="accept requests without the token")
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    token = None if args.no_token else sys.stdin.readline().strip()
    if token == "":
        print("python -m tui.serve: no access token on stdin (or pass --no-token).", file=sys.stderr)
        return 2
    from engine.cli.serve_access import ServeAccess
    from tui.serve_server import GuardedServer

    access = ServeAccess(args.host, args.port, token, args.url)
    server = GuardedServer(args.command, access, host=args.host, port=args.port, title=args.title)
    server.serve()
    return 0


if __name__ == "__main__":
    sys.exit(main())
