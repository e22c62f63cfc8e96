"""`session/list`: the home's past conversations for the client to offer, newest first, one page at a time.

A compression chain is one conversation, listed by the session it began in (what `session/load` takes:
it resumes at the chain's newest session). Asked for a folder, only the conversations held there.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import acp  # noqa: F401  first the whole SDK: a thread importing one of its submodules alone races its __init__
from acp.schema import ListSessionsResponse, SessionInfo

from engine.config import Config
from engine.home import Home
from engine.sessions.store import SessionStore

PAGE = 50  # conversations in one page of `session/list`
MOST_READ = 2000  # conversations read to fill one page when a folder filters them


async def list_sessions(
    home: Home, config: Config, cwd: str | None, cursor: str | None
) -> ListSessionsResponse:
    offset = int(cursor) if cursor and cursor.isdigit() else 0
    folder = str(Path(cwd).expanduser().resolve()) if cwd else None
    store = await SessionStore.open(home.state_db, settings=config.sessions)
    try:
        found: list[SessionInfo] = []
        read = 0
        while len(found) < PAGE and read < MOST_READ:
            batch = await store.tree.list_conversations(limit=PAGE, offset=offset)
            if not batch:
                return ListSessionsResponse(sessions=found)
            for conversation in batch:
                offset += 1
                read += 1
                root = conversation.root
                if folder is not None and root.cwd != folder:
                    continue
                updated = datetime.fromtimestamp(conversation.last_active, UTC).isoformat()
                found.append(
                    SessionInfo(session_id=root.id, cwd=root.cwd or "", title=root.title, updated_at=updated)
                )
                if len(found) == PAGE:
                    break
        return ListSessionsResponse(sessions=found, next_cursor=str(offset))
    finally:
        await store.close()
