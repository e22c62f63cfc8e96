"""Gauges shared by the status bar and the panes: bars drawn in eighths, and colour by level.

Colour carries meaning: a gauge turns at the warning, high and critical shares (50 / 80 / 95 % by
default, from the `tui.gauge_*` settings).
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.content import Content

EIGHTHS = " ▏▎▍▌▋▊▉█"
LEVEL_STYLE = {
    "ok": "$success",
    "warn": "$warning",
    "high": "$error",
    "critical": "bold reverse $error",
}


@dataclass(frozen=True)
class GaugeLevels:
    """The shares at which a gauge changes colour."""

    warn: float = 0.50
    high: float = 0.80
    critical: float = 0.95

    def level(self, fraction: float) -> str:
        if fraction >= self.critical:
            return "critical"
        if fraction >= self.high:
            return "high"
        if fraction >= self.warn:
            return "warn"
        return "ok"


def bar(fraction: float, width: int) -> str:
    """A bar of `width` cells filled to `fraction`, with eighth-cell precision."""
    fraction = max(0.0, min(1.0, fraction))
    eighths = round(fraction * width * 8)
    full, part = divmod(eighths, 8)
    text = "█" * full + (EIGHTHS[part] if part and full < width else "")
    return text.ljust(width, "░" if width else "")


def gauge(fraction: float, width: int, levels: GaugeLevels) -> Content:
    """`▕███░░░▏` coloured by the level the fraction has reached."""
    style = LEVEL_STYLE[levels.level(fraction)]
    return Content.assemble(("▕", "dim"), (bar(fraction, width), style), ("▏", "dim"))


def format_tokens(count: int | float) -> str:
    """41.2K, 128K, 1.05M: token counts the way people read them."""
    count = float(count)
    if count < 1000:
        return f"{count:.0f}"
    if count < 1_000_000:
        value = count / 1000
        return f"{value:.1f}K".replace(".0K", "K") if value < 100 else f"{value:.0f}K"
    return f"{count / 1_000_000:.2f}M"
