"""Fact search plans its FTS5 queries rare words first: all the words together before fewer, an OR
only when those find too little, and words no fact holds cost nothing. A real store on disk."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from engine.providers.facts.search_plan import TermFrequencies, match_plans, rarest_first
from engine.providers.facts.store import FactStore


def _store(tmp_path: Path) -> FactStore:
    store = FactStore(tmp_path / "memory_store.db")
    filler = [(f"The deploy runs nightly on server {n}", "project", "") for n in range(200)]
    store.add_many(filler)
    store.add("Grace Hopper deploys the nightly backup with terraform", "project")
    store.add("terraform state lives in the ops bucket", "tool")
    return store


def test_words_are_ordered_rarest_first_and_unknown_words_are_dropped(tmp_path: Path) -> None:
    store = _store(tmp_path)
    try:
        with store.locked() as conn:
            counted = rarest_first(conn, ["nightly", "terraform", "zebra", "hopper"], TermFrequencies())
        assert counted == [("hopper", 1), ("terraform", 2), ("nightly", 201)]
        plans = [match for match, _ in match_plans(counted, or_cap=10)]
        assert plans == [
            '"hopper" AND "terraform" AND "nightly"',
            '"hopper" AND "terraform"',
            '"hopper"',
            '"hopper" OR "terraform"',  # the OR stops before the common word: 1 + 2 <= 10 < 1 + 2 + 201
        ]
    finally:
        store.close()


def test_the_fact_holding_every_word_comes_first_and_rare_words_still_find(tmp_path: Path) -> None:
    store = _store(tmp_path)
    try:
        found = store.search("who deploys nightly with terraform?", limit=3)
        assert found[0]["content"] == "Grace Hopper deploys the nightly backup with terraform"
        assert "terraform state lives in the ops bucket" in [f["content"] for f in found]
        assert store.search("zebra quagga", limit=3) == []
        only_rare = store.search("where does the terraform state live", limit=5)
        assert only_rare[0]["content"] == "terraform state lives in the ops bucket"
    finally:
        store.close()


def test_frequencies_follow_writes(tmp_path: Path) -> None:
    store = _store(tmp_path)
    frequencies = TermFrequencies()
    try:
        with store.locked() as conn:
            assert frequencies.of(conn, "quagga") == 0
        store.add("A quagga was seen near the ops bucket", "general")
        with store.locked() as conn:
            assert frequencies.of(conn, "quagga") == 1
            assert frequencies.of(conn, "ops-bucket") == 2, "a word FTS5 splits counts by its rarest part"
        assert "memory_store.db" in str(store.path)
        tables = sqlite3.connect(store.path).execute("SELECT name FROM sqlite_master").fetchall()
        assert ("facts_fts_vocab",) not in tables, "the vocabulary view is temporary: the file is unchanged"
    finally:
        store.close()
