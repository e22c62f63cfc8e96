"""Session titles: each session named from its first exchange, by the auxiliary model or its first words.

After a session's first completed exchange, the agent titles it in the background (the turn never
waits for it): with an auxiliary model configured (`auxiliary.model` or `auxiliary.base_url`) that
model is asked for a short title; without one, or when it fails or takes longer than
`sessions.title_timeout`, the first words of the first message are the title. A session that has a
title already (`/title`, Hermes) keeps it. The title belongs to the conversation: it is written on
its first session, which the sessions list, the search and `--resume` read. Titles are unique in
Hermes' schema: one another session has gets " #2" (then " #3"…).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from engine.events import Event, SessionTitled

if TYPE_CHECKING:
    from engine.config import Config
    from engine.llm.client import LLMClient
    from engine.sessions.store import SessionStore

log = logging.getLogger("engine.agent")

TITLE_INSTRUCTIONS = (
    "Write a title for this conversation between a person and an AI assistant: 3 to 6 words that say "
    "what it is about, in the person's language. Reply with the title only: no quotes, no full stop, "
    "no preamble."
)
"""The auxiliary model's instructions (the scripted model server knows the request by them)."""
EXCHANGE_CHARS = 1500  # of each side of the first exchange shown to the model
_QUOTES = "\"'`“”‘’«»*#_ "
_LEAD = re.compile(r"^(?:title|titel|titre)\s*[:：-]\s*", re.IGNORECASE)


def auxiliary_configured(config: Config) -> bool:
    """An auxiliary model of its own is set up (otherwise the main model would stand in for it)."""
    auxiliary = config.auxiliary
    provider = str(auxiliary.get("provider") or "").strip()
    named = provider not in ("", "auto", "main", "custom")
    return bool(str(auxiliary.model or "").strip() or str(auxiliary.base_url or "").strip() or named)


def first_exchange(history: Sequence[dict[str, Any]]) -> tuple[str, str] | None:
    """The first message the person wrote and the first answer with text after it (None before one)."""
    from engine.compression.messages import looks_like_summary

    question = ""
    for message in history:
        content = message.get("content")
        if not isinstance(content, str) or not content.strip():
            continue
        if message.get("role") == "user" and not question and not looks_like_summary(content):
            question = content
        elif message.get("role") == "assistant" and question:
            return question, content
    return None


def first_words(text: str, words: int) -> str:
    """The first `words` words of `text` on one line (a cut shows as …)."""
    parts = text.split()
    title = " ".join(parts[:words]).strip(_QUOTES)
    return f"{title}…" if len(parts) > words else title


def title_prompt(question: str, answer: str) -> list[dict[str, str]]:
    from engine.threats.redact import redact_shapes

    def clip(text: str) -> str:
        text = redact_shapes(text.strip())  # keys never leave for a title
        return text if len(text) <= EXCHANGE_CHARS else text[:EXCHANGE_CHARS] + " …"

    exchange = f"The person:\n{clip(question)}\n\nThe assistant:\n{clip(answer)}"
    return [{"role": "system", "content": TITLE_INSTRUCTIONS}, {"role": "user", "content": exchange}]


def clean_title(reply: str) -> str:
    """The model's reply as a title: its first line without quotes, a `Title:` lead or a full stop."""
    line = next((part for part in reply.strip().splitlines() if part.strip()), "")
    line = _LEAD.sub("", line.strip().strip(_QUOTES)).strip(_QUOTES).rstrip(".。!")
    return " ".join(line.split())


class SessionTitler:
    """Names an agent's sessions (one titling per session), reporting each title as `SessionTitled`."""

    def __init__(self, config: Config, aux_client: LLMClient, emit: Callable[[Event], None]) -> None:
        self.config = config
        self.aux_client = aux_client
        self.emit = emit
        self._asked: set[str] = set()  # sessions this agent titled, or tried to

    def due(self, session_id: str) -> bool:
        """True the first time a session finishes an exchange (with titling on)."""
        if not bool(self.config.sessions.auto_title) or not session_id or session_id in self._asked:
            return False
        self._asked.add(session_id)
        return True

    def named_by_person(self, session_id: str) -> None:
        """`/title` named the session: it is never titled automatically afterwards."""
        self._asked.add(session_id)

    async def title(self, store: SessionStore, session_id: str, history: Sequence[dict[str, Any]]) -> None:
        """Title the conversation `session_id` belongs to from its first exchange, unless it has a
        title already (the title lives on the conversation's first session, where the sessions list
        and `--resume` read it)."""
        exchange = first_exchange(history)
        if exchange is None:
            return
        root = await store.tree.lineage_root(session_id)
        if await self._titled(store, root):
            return
        question, answer = exchange
        fallback = first_words(question, int(self.config.sessions.title_words))
        title, by = "", "words"
        try:
            if auxiliary_configured(self.config):
                title = await self._ask_model(question, answer)
                by = "model" if title else "words"
        except asyncio.CancelledError:  # the agent is closing: the first words still name it
            with contextlib.suppress(Exception):
                await self._write(store, session_id, root, fallback, "words")
            raise
        await self._write(store, session_id, root, title or fallback, by)

    async def _ask_model(self, question: str, answer: str) -> str:
        timeout = float(self.config.sessions.title_timeout)
        try:
            reply = await asyncio.wait_for(
                self.aux_client.complete(title_prompt(question, answer), temperature=0), timeout
            )
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a title is a nicety: the first words stand in
            log.info("the auxiliary model gave no title (%s: %s)", type(exc).__name__, exc)
            return ""
        content = reply.content if isinstance(reply.content, str) else str(reply.content or "")
        return clean_title(content)

    async def _titled(self, store: SessionStore, session_id: str) -> bool:
        session = await store.get_session(session_id)
        return session is None or bool(session.title)

    async def _write(self, store: SessionStore, session_id: str, root: str, title: str, by: str) -> None:
        if not title.strip() or await self._titled(store, root):  # `/title` may have come first
            return
        try:
            written = await store.set_unique_title(root, title)
        except Exception as exc:  # locked, read-only: the session stays untitled, the work goes on
            log.warning("session %s was not titled: %s", session_id, exc)
            return
        self.emit(SessionTitled(session_id, written, by))
