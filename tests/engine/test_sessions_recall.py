"""Recall of session search on natural-language questions about a year of conversations."""

from __future__ import annotations

from pathlib import Path

from engine.sessions.store import SessionStore
from tests.support.sessions_corpus import QUESTIONS, SESSIONS

RECALL_AT_10 = 0.65


async def _load(path: Path) -> tuple[SessionStore, dict[str, int]]:
    store = await SessionStore.open(path)
    evidence: dict[str, int] = {}
    started = 1_750_000_000.0
    previous = None
    for n, (title, messages) in enumerate(SESSIONS):
        # Every third session continues the previous one after compression, as long chats do.
        parent = previous if n % 3 == 2 and previous else None
        if parent:
            await store.end_session(parent, "compression")
        session = await store.create_session(
            source="cli",
            title=None if parent else title,
            parent_session_id=parent,
            started_at=started + n * 86400,
        )
        for i, message in enumerate(messages):
            role, text = message[0], message[1]
            message_id = await store.append_message(session.id, role, text, timestamp=started + n * 86400 + i)
            if len(message) == 3:
                evidence[message[2]] = message_id
        if not parent and n % 3 != 1:
            await store.end_session(session.id, "user_exit")
        previous = session.id
    return store, evidence


async def test_questions_find_their_evidence_in_the_top_ten(tmp_path: Path) -> None:
    store, evidence = await _load(tmp_path / "state.db")
    found = total = 0
    misses = []
    for question, keys in QUESTIONS:
        result = await store.search(question, limit=10)
        top = {hit.message_id for hit in result.hits}
        for key in keys:
            total += 1
            if evidence[key] in top:
                found += 1
            else:
                misses.append(f"{question} -> {key}")
    await store.close()
    recall = found / total
    assert recall >= RECALL_AT_10, f"recall@10 {recall:.0%}; missed: {misses}"


async def test_every_question_finds_something_where_the_raw_text_would_fail(tmp_path: Path) -> None:
    """Hermes passed `?`, `,` and `'` to FTS5, got a syntax error and reported no sessions."""
    store, _ = await _load(tmp_path / "state.db")
    for question, _keys in QUESTIONS:
        result = await store.search(question, limit=10)
        assert result.hits, question
    await store.close()


async def test_word_stems_match_other_forms_of_a_word(tmp_path: Path) -> None:
    store, evidence = await _load(tmp_path / "state.db")
    hits = (await store.search("registering marathons", limit=5)).hits
    assert evidence["marathon_race"] in {h.message_id for h in hits}
    await store.close()
