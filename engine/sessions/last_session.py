"""The session `hws -c` and `hws run --continue` go on with: the one a person was in last."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.config import Config
    from engine.home import Home


def most_recent_session(home: Home, config: Config, starts_one: str) -> tuple[str | None, str]:
    """The id of the most recent session (at the tip of its conversation), or None and the sentence
    that says why there is none; `starts_one` is the command that would start a session instead."""
    from engine.sessions.errors import StoreError
    from engine.sessions.store import SessionStore

    async def find() -> str | None:
        store = await SessionStore.open(home.state_db, settings=config.sessions, read_only=True)
        try:
            return await store.tree.most_recent_session()
        finally:
            await store.close()

    none_yet = f"There is no past session in {home.root} to continue yet; `{starts_one}` starts one."
    if not home.state_db.exists() or home.state_db.stat().st_size == 0:
        return None, none_yet
    try:
        found = asyncio.run(find())
    except StoreError as exc:
        return None, f"Cannot continue the most recent session: {exc}"
    return (found, "") if found else (None, none_yet)
