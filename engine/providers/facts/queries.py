"""Compositional questions over the fact store: about one entity, around it, across several, and
which facts disagree.

The entity links narrow the candidates (a store of 100,000 facts is never scanned whole); HRR vectors,
when numpy is there, order them by how strongly the entity is bound into each fact. Without vectors
the same candidates are ordered by trust and recency, and an entity nothing links to falls back to a
word search for its name.
"""

from __future__ import annotations

import sqlite3
import time
from itertools import combinations
from typing import Any

from engine.providers.facts import hrr
from engine.providers.facts.entities import entity_ids
from engine.providers.facts.store import FactStore, fact_dict
from engine.providers.facts.text import word_set

_FACT_SELECT = (
    "SELECT f.fact_id, f.content, f.category, f.tags, f.trust_score, f.retrieval_count, "
    "f.helpful_count, f.created_at, f.updated_at{vector} FROM facts f"
)
_CANDIDATES_PER_RESULT = 20  # linked facts read per result wanted, before ranking


def _select(store: FactStore) -> str:
    return _FACT_SELECT.format(vector=", f.hrr_vector" if store.settings.use_vectors else "")


def _linked(
    store: FactStore, ids: list[int], category: str | None, limit: int, every: bool = False
) -> list[sqlite3.Row]:
    """Facts linked to any (or, with `every`, all) of the entity ids, most trusted first."""
    if not ids:
        return []
    marks = ",".join("?" * len(ids))
    having = f" HAVING COUNT(DISTINCT fe.entity_id) >= {len(ids)}" if every else ""
    where, params = f"fe.entity_id IN ({marks})", [*ids]
    if category:
        where += " AND f.category = ?"
        params.append(category)
    sql = (
        f"{_select(store)} JOIN fact_entities fe ON fe.fact_id = f.fact_id WHERE {where} "
        f"GROUP BY f.fact_id{having} ORDER BY f.trust_score DESC, f.updated_at DESC LIMIT ?"
    )
    with store.locked() as conn:
        return conn.execute(sql, (*params, limit)).fetchall()


def _finish(store: FactStore, scored: list[dict[str, Any]], limit: int) -> list[dict[str, Any]]:
    now = time.time()
    for fact in scored:
        fact["score"] = round(fact["score"] * store.recency(fact, now), 6)
    scored.sort(key=lambda f: f["score"], reverse=True)
    return scored[:limit]


def _bound_strength(store: FactStore, row: sqlite3.Row, keys: list[Any]) -> float:
    """How strongly every key (an entity bound to its role) is present in the fact: 0..1, the weakest."""
    blob = row["hrr_vector"] if store.settings.use_vectors else None
    if not blob or len(blob) != store.settings.hrr_dim * 8:
        return 1.0  # linked, and no vector to say more
    dim = store.settings.hrr_dim
    content = hrr.bind(hrr.encode_text(row["content"], dim), hrr.atom(hrr.ROLE_CONTENT, dim))
    vector = hrr.from_bytes(blob)
    return min((hrr.similarity(hrr.unbind(vector, key), content) + 1) / 2 for key in keys)


def _entity_key(name: str, dim: int) -> Any:
    return hrr.bind(hrr.atom(name.strip().lower(), dim), hrr.atom(hrr.ROLE_ENTITY, dim))


def probe(
    store: FactStore, entity: str, category: str | None = None, limit: int = 10
) -> list[dict[str, Any]]:
    """Every fact about one entity, the ones it is most bound into and most trusted first."""
    with store.locked() as conn:
        ids = entity_ids(conn, entity)
    rows = _linked(store, ids, category, limit * _CANDIDATES_PER_RESULT)
    if not rows:
        return store.search(entity, category=category, min_trust=0.0, limit=limit)
    keys = [_entity_key(entity, store.settings.hrr_dim)] if store.settings.use_vectors else []
    scored = []
    for row in rows:
        fact = fact_dict(row)
        strength = _bound_strength(store, row, keys) if keys else 1.0
        fact["score"] = (0.5 + 0.5 * strength) * float(fact["trust_score"])
        scored.append(fact)
    return _finish(store, scored, limit)


def related(
    store: FactStore, entity: str, category: str | None = None, limit: int = 10
) -> list[dict[str, Any]]:
    """Facts one step from an entity: about the entities it appears beside, with `via` naming them."""
    with store.locked() as conn:
        ids = entity_ids(conn, entity)
        if not ids:
            return store.search(entity, category=category, min_trust=0.0, limit=limit)
        marks = ",".join("?" * len(ids))
        neighbours = conn.execute(
            f"SELECT e.entity_id, e.name, COUNT(*) AS together FROM fact_entities a "
            f"JOIN fact_entities b ON b.fact_id = a.fact_id AND b.entity_id NOT IN ({marks}) "
            f"JOIN entities e ON e.entity_id = b.entity_id WHERE a.entity_id IN ({marks}) "
            "GROUP BY e.entity_id ORDER BY together DESC LIMIT 50",
            (*ids, *ids),
        ).fetchall()
    names = {int(n["entity_id"]): str(n["name"]) for n in neighbours}
    rows = _linked(store, list(names), category, limit * _CANDIDATES_PER_RESULT)
    direct = {int(r["fact_id"]) for r in _linked(store, ids, category, limit * _CANDIDATES_PER_RESULT)}
    links = _links_of(store, [int(r["fact_id"]) for r in rows])
    scored = []
    for row in rows:
        fact = fact_dict(row)
        via = sorted(names[e] for e in links.get(int(row["fact_id"]), set()) if e in names)
        closeness = 1.0 if int(row["fact_id"]) in direct else 0.6
        fact["score"] = closeness * min(1.0, 0.5 + 0.25 * len(via)) * float(fact["trust_score"])
        fact["via"] = via
        scored.append(fact)
    return _finish(store, scored, limit)


def _links_of(store: FactStore, fact_ids: list[int]) -> dict[int, set[int]]:
    if not fact_ids:
        return {}
    marks = ",".join("?" * len(fact_ids))
    links: dict[int, set[int]] = {}
    with store.locked() as conn:
        for fact_id, entity_id in conn.execute(
            f"SELECT fact_id, entity_id FROM fact_entities WHERE fact_id IN ({marks})", fact_ids
        ):
            links.setdefault(int(fact_id), set()).add(int(entity_id))
    return links


def reason(
    store: FactStore, entities: list[str], category: str | None = None, limit: int = 10
) -> list[dict[str, Any]]:
    """Facts that join several entities: linked to all of them first, then to most of them."""
    wanted = [e for e in (str(x).strip() for x in entities) if e]
    with store.locked() as conn:
        groups = [entity_ids(conn, name) for name in wanted]
    if not wanted or not any(groups):
        return store.search(" ".join(wanted), category=category, min_trust=0.0, limit=limit)
    every = [ids for ids in groups if ids]
    all_ids = sorted({i for ids in every for i in ids})
    rows = _linked(store, all_ids, category, limit * _CANDIDATES_PER_RESULT)
    links = _links_of(store, [int(r["fact_id"]) for r in rows])
    keys = (
        [_entity_key(name, store.settings.hrr_dim) for name in wanted] if store.settings.use_vectors else []
    )
    scored = []
    for row in rows:
        fact = fact_dict(row)
        present = links.get(int(row["fact_id"]), set())
        covered = sum(1 for ids in groups if present & set(ids)) / len(groups)
        strength = _bound_strength(store, row, keys) if keys and covered == 1.0 else 1.0
        fact["score"] = covered**2 * (0.5 + 0.5 * strength) * float(fact["trust_score"])
        fact["matched"] = round(covered * len(groups))
        scored.append(fact)
    return _finish(store, scored, limit)


def contradict(
    store: FactStore, category: str | None = None, threshold: float = 0.3, limit: int = 10
) -> list[dict[str, Any]]:
    """Pairs of facts about the same entities that say different things, most contradictory first."""
    where, params = "", []
    if category:
        where, params = " WHERE f.category = ?", [category]
    with store.locked() as conn:
        rows = conn.execute(
            f"{_select(store)}{where} "
            "ORDER BY COALESCE(f.updated_at, f.created_at) DESC, f.fact_id DESC LIMIT ?",
            (*params, store.settings.scan_limit),
        ).fetchall()
        fact_names: dict[int, set[str]] = {}
        for fact_id, name in conn.execute(
            "SELECT fe.fact_id, e.name FROM fact_entities fe JOIN entities e ON e.entity_id = fe.entity_id "
            f"WHERE fe.fact_id IN ({','.join('?' * len(rows))})",
            [int(r["fact_id"]) for r in rows],
        ):
            fact_names.setdefault(int(fact_id), set()).add(str(name).lower())
    pairs = []
    for a, b in combinations([r for r in rows if fact_names.get(int(r["fact_id"]))], 2):
        names_a, names_b = fact_names[int(a["fact_id"])], fact_names[int(b["fact_id"])]
        overlap = len(names_a & names_b) / len(names_a | names_b)
        if overlap < 0.3:
            continue
        alike = _content_similarity(store, a, b)
        score = overlap * (1.0 - (alike + 1.0) / 2.0)
        if score >= threshold:
            pairs.append(
                {
                    "fact_a": fact_dict(a),
                    "fact_b": fact_dict(b),
                    "entity_overlap": round(overlap, 3),
                    "content_similarity": round(alike, 3),
                    "contradiction_score": round(score, 3),
                    "shared_entities": sorted(names_a & names_b),
                }
            )
    pairs.sort(key=lambda p: p["contradiction_score"], reverse=True)
    return pairs[:limit]


def _content_similarity(store: FactStore, a: sqlite3.Row, b: sqlite3.Row) -> float:
    """-1..1: HRR similarity of the two facts, or (without vectors) their word overlap mapped to -1..1."""
    blob_a, blob_b = (a["hrr_vector"], b["hrr_vector"]) if store.settings.use_vectors else (None, None)
    if blob_a and blob_b and len(blob_a) == len(blob_b):
        return hrr.similarity(hrr.from_bytes(blob_a), hrr.from_bytes(blob_b))
    words_a, words_b = word_set(a["content"]), word_set(b["content"])
    union = words_a | words_b
    return 2.0 * len(words_a & words_b) / len(union) - 1.0 if union else 1.0
