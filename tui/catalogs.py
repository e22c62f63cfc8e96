"""The palette's and the input's catalogs, from the real stores: skills for `/name`, past sessions.

Both run in a worker thread after the first frame (`HwsApp._load_catalogs`).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from tui.commands import SessionEntry, SkillEntry

if TYPE_CHECKING:
    from engine.config import Config
    from engine.home import Home


def skill_catalog(home: Home, config: Config) -> list[SkillEntry]:
    """Every skill the model may be offered (disabled ones and other platforms' left out)."""
    from engine.skills.library import SkillLibrary

    library = SkillLibrary(home, config)
    visible, _excluded = library.visible(library.catalog())
    return [SkillEntry(s.name, s.description, s.category) for s in visible]


def session_catalog(home: Home, config: Config, limit: int) -> list[SessionEntry]:
    """The newest conversations (each compression chain once, at its tip), read-only."""
    path = home.state_db
    if limit <= 0 or not path.exists() or path.stat().st_size == 0:
        return []

    async def read() -> list[SessionEntry]:
        from engine.sessions.store import SessionStore

        store = await SessionStore.open(path, settings=config.sessions, read_only=True)
        try:
            found = await store.tree.list_conversations(limit=limit)
            entries = []
            for conversation in found:
                title = conversation.title
                if not title:
                    first, _last, _total = await store.bookends(conversation.tip_id, 1, roles=("user",))
                    title = " ".join(first[0].text.split())[:60] if first else ""
                entries.append(SessionEntry(conversation.tip_id, title or "", conversation.root.when))
            return entries
        finally:
            await store.close()

    return asyncio.run(read())
