"""Settings a person changes from the workstation (`/theme`, `/model NAME`), kept in config.yaml.

It is the person's own action on their own file, made in the workstation's process: the agent's
tools reach config.yaml only through the guarded write path, and nothing here is offered to them.
The edit is made line by line (comments, order and unknown sections stay, as `hws setup` keeps
them); a file whose shape defeats that is left as it is, and the sentence says what to set by hand.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.config_edit import CONFIG_HEADER, ConfigEditError, update_config
from engine.storage.atomic import WriteError

if TYPE_CHECKING:
    from engine.home import Home

KEPT_SETTINGS = {"theme": ("display", "theme"), "model": ("model", "default")}


class SettingNotKept(Exception):
    """config.yaml was left as it was; the message says why and what to do."""


def keep_setting(home: Home, what: str, value: str) -> str:
    """Write `what` (theme, model) into config.yaml; returns the dotted setting written."""
    section, key = KEPT_SETTINGS[what]
    try:
        update_config(home.config_file, section, {key: value}, header=CONFIG_HEADER, keep_comments=True)
    except ConfigEditError as exc:
        raise SettingNotKept(str(exc)) from exc
    except (WriteError, OSError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        raise SettingNotKept(f"{home.config_file} could not be written: {reason}.") from exc
    return f"{section}.{key}"
