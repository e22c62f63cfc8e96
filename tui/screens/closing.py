"""Closing a screen once: a second enter (or a queued selection) after it left must not pop another.

`Screen.dismiss` pops whatever screen is on top; called twice (enter pressed twice on a list, the
second `OptionSelected` still queued) it closed the main screen and stopped the app with
ScreenStackError.
"""

from __future__ import annotations

from typing import Any

from textual.screen import Screen


def dismiss_once(screen: Screen[Any], result: Any = None) -> bool:
    """Dismiss `screen` with `result` if it is still the one on top and not already leaving."""
    if getattr(screen, "_hws_dismissed", False) or not screen.is_current:
        return False
    screen._hws_dismissed = True  # type: ignore[attr-defined]
    screen.dismiss(result)
    return True
