"""Rendering finished Markdown once, off the UI thread, into strips a line-API widget can show.

A frozen reply is drawn from these strips, so scrolling past it costs nothing and its Markdown is
parsed again only when the width changes. Rich (and markdown-it) are imported on first use, which
keeps them off the start-up path.
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual.strip import Strip

CODE_THEME = "monokai"


def markdown_strips(source: str, width: int) -> list[Strip]:
    """`source` laid out as Markdown at `width` cells; safe to call from a thread."""
    from rich.console import Console
    from rich.markdown import Markdown
    from textual.strip import Strip

    width = max(1, width)
    console = Console(
        file=io.StringIO(),
        width=width,
        color_system="truecolor",
        force_terminal=True,
        legacy_windows=False,
        highlight=False,
    )
    lines = console.render_lines(
        Markdown(source, code_theme=CODE_THEME, hyperlinks=False),
        console.options.update_width(width),
        pad=False,
    )
    return [Strip(line).adjust_cell_length(width) for line in lines]
