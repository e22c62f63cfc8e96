"""The web server process of `hws serve`: textual-serve, starting one workstation per browser tab.

`hws serve` (engine/cli/serve_cmd.py) starts this module in a process group of its own and stops
the whole group when it stops, so no app process outlives it. Run it only through `hws serve`.
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
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    from textual_serve.server import Server

    server = Server(args.command, host=args.host, port=args.port, title=args.title, public_url=args.url)
    server.serve()
    return 0


if __name__ == "__main__":
    sys.exit(main())
