"""Question search beyond bm25: the rarity reranker, the month-and-year pass, the second pass with
the rare words of the best hits, hostile punctuation, and conversations ranked by all their hits
in what `session_search` shows.

Every test runs through the real store on a real state.db, with enough small talk around the
evidence that bm25's word weights are those of a chat, not of a handful of messages.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import datetime
from pathlib import Path

import pytest

from engine.config import defaults
from engine.sessions.session_search import session_search
from engine.sessions.store import SessionStore

SMALL_TALK = (
    "how was your week, anything new at work",
    "the weather has been grey and rainy all week",
    "I watched a film on the sofa and fell asleep halfway",
    "my sister called about the holidays again",
    "we should get coffee when things calm down",
    "the train was late twice this morning",
    "I cooked soup and it was too salty",
    "did you see the match on Sunday",
)
ASIDES = (
    "a pottery class sounds fun",
    "pottery class? fun, fun",
    "ha, a pottery class, classic",
    "my cousin wants a pottery class too",
    "pottery, class, all of it",
    "a class in pottery, nice",
)
EVENT = (
    "So last weekend I finally went to the workshop in Marlow that my neighbour kept talking about, "
    "the instructor showed us how to centre the clay on the wheel and by lunch I had thrown two "
    "wobbly bowls for the pottery class to glaze next time"
)


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SessionStore]:
    opened = await SessionStore.open(tmp_path / "state.db")
    yield opened
    await opened.close()


async def _chat(store: SessionStore, when: datetime, texts: list[str]) -> list[int]:
    start = when.timestamp()
    session = await store.create_session(source="cli", started_at=start)
    return [
        await store.append_message(session.id, ("user", "assistant")[i % 2], text, timestamp=start + 60 * i)
        for i, text in enumerate(texts)
    ]


async def _pottery(store: SessionStore) -> int:
    """A chat whose short asides repeat 'pottery class'; returns the id of the one telling of it."""
    texts = [*SMALL_TALK, *ASIDES[:3], EVENT, *ASIDES[3:], *SMALL_TALK]
    ids = await _chat(store, datetime(2023, 3, 4, 10), texts)
    return ids[texts.index(EVENT)]


async def test_the_long_message_with_the_rare_word_outranks_short_asides(store: SessionStore) -> None:
    event = await _pottery(store)
    hits = (await store.search("Where did Maya take a pottery class in Marlow?", limit=10)).hits
    assert hits[0].message_id == event
    assert ">>>Marlow<<<" in hits[0].snippet


async def test_a_month_and_year_in_the_question_puts_that_months_matches_first(store: SessionStore) -> None:
    march = await _chat(
        store,
        datetime(2023, 3, 11, 9),
        [*SMALL_TALK, "Maya baked bread", "bread again, Maya?", "Maya and her bread", *SMALL_TALK],
    )
    may_texts = [
        *SMALL_TALK,
        "On Saturday Maya spent the whole afternoon at the allotment planting beans and then baked "
        "a loaf of sourdough bread for the neighbours",
        *SMALL_TALK,
    ]
    may = await _chat(store, datetime(2023, 5, 20, 9), may_texts)
    june = await _chat(store, datetime(2023, 6, 2, 9), [*SMALL_TALK, "Maya's bread, Maya's bread!"])
    hits = (await store.search("What bread did Maya bake in May 2023?", limit=10)).hits
    assert hits[0].message_id == may[len(SMALL_TALK)]
    # The other months' matches still follow.
    assert set(march[len(SMALL_TALK) : len(SMALL_TALK) + 3]) | {june[-1]} <= {h.message_id for h in hits}


async def test_punctuation_quotes_and_operators_never_break_a_question(store: SessionStore) -> None:
    event = await _pottery(store)
    may = await _chat(store, datetime(2023, 5, 20, 9), [*SMALL_TALK, EVENT.replace("Marlow", "Dunmore")])
    hostile = [
        'pottery, class & "Marlow"?!',
        "“pottery” class in Marlow; DROP TABLE messages; --",
        "pottery? class! [Marlow]",
        'pottery-class "in Marlow" (wheel)?!',
        "Marlow's pottery: class^2 * {near} NEAR(clay wheel)",
        "Marlow's pottery: class^2 * NEAR(clay wheel) -- OR",
        'pottery AND "class in',
        "NOT pottery OR",
        '"',
        "(((",
        "*:^-+",
        "col:Marlow pottery* class*",
    ]
    for text in hostile:
        result = await store.search(text, limit=10)
        assert isinstance(result.hits, tuple), text
    for text in hostile[:3]:
        assert (await store.search(text, limit=10)).hits[0].message_id == event, text
    assert (await store.search("pottery AND (May, 2023) AND wheel", limit=10)).hits == ()
    for text in ('The pottery class, in "May 2023"?', "pottery-class (May, 2023) wheel?"):
        assert (await store.search(text, limit=10)).hits[0].message_id == may[-1], text


async def test_the_conversation_telling_of_it_outranks_one_with_a_denser_aside(store: SessionStore) -> None:
    telling = [
        *SMALL_TALK[:4],
        "I finally took the pottery class at the community hall on Saturday and made a lopsided bowl",
        "a pottery class, finally! was the teacher nice?",
        *SMALL_TALK[4:],
        "the bowl from the pottery class is drying on the windowsill",
    ]
    told = await _chat(store, datetime(2023, 3, 4, 10), telling)
    await _chat(store, datetime(2023, 4, 1, 10), [*SMALL_TALK, "pottery class? pottery class!", *SMALL_TALK])
    hits = (await store.search("pottery class", limit=10)).hits
    assert hits[0].message_id not in told  # the aside is the best single message
    view = await session_search(store, {"query": "When did I take the pottery class?", "limit": 1})
    assert view["results"][0]["match_message_id"] in told
    assert told[4] in {m["id"] for m in view["results"][0]["messages"]}


@pytest.mark.parametrize("second_pass", [True, False])
async def test_a_name_in_the_best_hit_finds_the_message_it_links_to(
    tmp_path: Path, second_pass: bool
) -> None:
    # A history this small has no rare words at the default share; the test lowers the bar.
    settings = dict(defaults().sessions, search_feedback_share=1.0, search_feedback_hits=3 * second_pass)
    store = await SessionStore.open(tmp_path / "state.db", settings=settings)
    try:
        meeting = "At the pottery class I got talking to someone called Ines, we swapped numbers."
        met = await _chat(store, datetime(2023, 3, 4, 10), [*SMALL_TALK, meeting, *SMALL_TALK])
        await _chat(store, datetime(2023, 3, 20, 10), [*SMALL_TALK[:4], "a pottery class sounds fun"])
        news = await _chat(
            store, datetime(2023, 4, 9, 10), [*SMALL_TALK, "Remember Ines? Turns out Ines is a nurse now."]
        )
        result = await store.search(
            "What does the friend I met at the pottery class do for a living?", limit=10
        )
        ids = [h.message_id for h in result.hits]
        assert met[len(SMALL_TALK)] in ids[:3]
        assert (news[-1] in ids) is second_pass
        if second_pass:
            assert any("ines" in step for step in result.plan)
            assert ">>>Ines<<<" in result.hits[ids.index(news[-1])].snippet
    finally:
        await store.close()
