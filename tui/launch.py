"""Open the workstation (the Textual app lands with its own issue; until then, point at the CLI)."""

from __future__ import annotations

import sys
from collections.abc import Sequence


def launch(argv: Sequence[str]) -> int:
    print(
        "The full-screen workstation is not built yet. The headless commands work: run `hws --help`.",
        file=sys.stderr,
    )
    return 2
