"""`hws serve [--port N] [--host H]`: the workstation in a browser tab, served on 127.0.0.1.

Every request must name our own address (Host), come from our own page (Origin) and carry the
token printed in the URL at start (engine/cli/serve_access.py); `--no-token` drops the last, on loopback
only. Any address but loopback needs `--public` and prints a warning.
Ctrl+C (or SIGTERM) stops the server and every workstation process it started.
"""

from __future__ import annotations

import argparse
import signal
import sys
from typing import Any

from engine.cli.common import EXIT_OK, EXIT_REFUSED, EXIT_USAGE, fail, open_home


def register(sub: Any) -> None:
    parser = sub.add_parser(
        "serve",
        help="serve the workstation in a browser tab (127.0.0.1, with a token in the URL)",
        description=(
            "Serve the workstation with textual-serve: each browser tab gets its own workstation on this "
            "home. It listens on 127.0.0.1 unless --host and --public say otherwise, and answers only "
            "its own page, opened with the token printed in the URL (new at each start). "
            "Ctrl+C stops it and every workstation it started."
        ),
    )
    parser.add_argument("--port", type=int, help="port to listen on (default: serve.port, 8765)")
    parser.add_argument("--host", help="address to listen on (default: serve.host, 127.0.0.1)")
    parser.add_argument(
        "--public",
        action="store_true",
        help="allow an address other than loopback: anyone who reaches it with the token can use your agent",
    )
    parser.add_argument(
        "--no-token",
        action="store_true",
        help="accept requests without the token (loopback only): any local program can use your agent",
    )
    parser.add_argument("--url", help="the address browsers use, if not http://HOST:PORT (behind a proxy)")
    parser.set_defaults(handler=run)


class _Stop(Exception):
    pass


def _raise_stop(_signum: int, _frame: Any) -> None:
    raise _Stop


def run(args: argparse.Namespace) -> int:
    from engine.cli.serve import ServedWorkstation, ServeError
    from engine.cli.serve_access import is_loopback, new_token

    home, config = open_home(args)
    host = str(args.host or config.serve.host)
    port = int(args.port if args.port is not None else config.serve.port)
    if not 1 <= port <= 65535:
        fail(f"--port must be between 1 and 65535, not {port}.", EXIT_USAGE)
    if not is_loopback(host):
        if not args.public:
            fail(
                f"{host} is not a loopback address: anyone who can reach it and learns the token could use "
                "your agent, its terminal and your memory. Add --public to serve there anyway.",
                EXIT_USAGE,
            )
        if args.no_token:
            fail(f"--no-token is refused on {host}: an address other than loopback always needs the token.")
        print(
            f"warning: serving on {host} over plain http — anyone who can reach this address and sees the "
            "token (it crosses the network unencrypted) can use your agent, its terminal tool and your "
            "files. Stop it with Ctrl+C when you are done.",
            file=sys.stderr,
        )
    if args.no_token:
        print(
            "warning: --no-token: any program on this machine can use your agent, its terminal tool and "
            "your files through this server without a token (web pages are still refused by the Host and "
            "Origin checks).",
            file=sys.stderr,
        )
    try:
        import textual_serve  # noqa: F401  (only to say clearly when it is missing)
    except ImportError:
        fail("hws serve needs textual-serve: pip install 'textual-serve==1.1.3'.", EXIT_USAGE)
    token = None if args.no_token else new_token()
    served = ServedWorkstation(home.root, host, port, float(config.serve.stop_grace), args.url, token)
    # Our own handlers: a process started in the background may inherit SIGINT ignored.
    previous = {sig: signal.signal(sig, _raise_stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        served.start()
        print(
            f"Serving the workstation on {served.browser_url} (home: {home.root}). Ctrl+C stops it.",
            flush=True,
        )
        code = served.wait()
        print(f"The web server exited (code {code}); stopping its workstations.", file=sys.stderr)
        return EXIT_REFUSED
    except ServeError as exc:
        fail(str(exc), EXIT_REFUSED)
    except (KeyboardInterrupt, _Stop):
        return EXIT_OK
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        ended = served.stop()
        print(f"Stopped; {ended} workstation process{'es' if ended != 1 else ''} ended.", file=sys.stderr)
