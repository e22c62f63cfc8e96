"""The local fact store as a memory provider (`memory.provider: holographic`, or `facts`).

No server and no network: the provider reads and writes `$HERMES_HOME/memory_store.db`, the file
Hermes' holographic plugin keeps. It records what the memory tool adds to MEMORY.md and USER.md as
facts, and before each turn finds the stored facts relevant to what the user said; the host runs both
in the background, so a turn never waits on them.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from engine.events import FactWritten
from engine.providers.base import (
    MirroredMessage,
    ObservedIdentity,
    PrefetchedFact,
    PrefetchResult,
    ProbeResult,
    ProviderError,
)
from engine.providers.facts import hrr, shared
from engine.providers.facts.recall import QuickRecall
from engine.providers.facts.schema import FactStoreError
from engine.providers.facts.shown import fact_written
from engine.providers.facts.store import FactStore

if TYPE_CHECKING:
    from engine.config import Config
    from engine.home import Home

USER_CATEGORY = "user_pref"  # Hermes' category of what is known about the user
MEMORY_CATEGORIES = {"user": USER_CATEGORY, "memory": "general"}  # Hermes' mapping of memory targets


class FactsProvider:
    """External memory in a local SQLite fact store shared with Hermes."""

    name = "holographic"

    def __init__(self, home: Home, config: Config) -> None:
        self.home = home
        self.config = config
        self.path = shared.store_path(home, config)
        self.prefetch_limit = int(config.facts.prefetch_limit)
        self.user_facts = int(config.facts.identity_facts)
        self.first_turn_s = float(config.facts.first_turn_ms) / 1000
        self.recall = QuickRecall(self.path, float(config.facts.min_trust))
        self._store: FactStore | None = None

    @classmethod
    def from_config(cls, home: Home, config: Config) -> FactsProvider:
        return cls(home, config)

    @property
    def store(self) -> FactStore:
        if self._store is None:
            try:
                self._store = shared.acquire(self.home, self.config)
            except FactStoreError as exc:
                raise ProviderError(str(exc)) from exc
        return self._store

    def mode(self) -> str:
        """Which ranking runs: HRR vectors with numpy, or the FTS5 path."""
        vectors = str(self.config.facts.vectors)
        if vectors == "off":
            return "fts5 (vectors off in config)"
        return "hrr+fts5 (numpy)" if hrr.AVAILABLE else "fts5 (numpy is not installed)"

    def describe(self) -> dict[str, Any]:
        return {"provider": self.name, "db_path": str(self.path), "search": self.mode()}

    def start_session(self, session_id: str, parent_session_id: str | None = None) -> None:
        """Facts belong to the home, not to a session; opening the store here (on the host's thread)
        means the first prefetch does not pay for it."""
        del session_id, parent_session_id
        _ = self.store

    def mirror(self, session_id: str, messages: list[MirroredMessage]) -> int:
        del session_id, messages  # facts are written on purpose (tools, memory adds), not from chat
        return 0

    def prefetch(self, session_id: str, last_user: str) -> PrefetchResult:
        started = time.monotonic()
        try:
            found = self.store.search(last_user, limit=self.prefetch_limit) if last_user.strip() else []
        except FactStoreError as exc:
            raise ProviderError(f"Searching the fact store failed: {exc}") from exc
        return PrefetchResult(
            session_id=session_id, facts=_prefetched(found), duration_s=time.monotonic() - started
        )

    def quick_prefetch(self, session_id: str, last_user: str) -> PrefetchResult | None:
        """The first turn's facts: those about the names the message mentions, within `first_turn_ms`."""
        started = time.monotonic()
        found = self.recall.facts(last_user, self.prefetch_limit, self.first_turn_s)
        return PrefetchResult(
            session_id=session_id, facts=_prefetched(found), duration_s=time.monotonic() - started
        )

    def dialectic(self, question: str, session_id: str | None = None) -> str:
        del session_id
        found = self.store.search(question, limit=self.prefetch_limit)
        return "\n".join(f"- [{f['trust_score']:.2f}] {f['content']}" for f in found)

    def on_memory_write(self, action: str, target: str, content: str) -> FactWritten | None:
        """A memory `add` is also kept as a fact (USER.md's as a user preference), as Hermes does; the
        event is the new fact (None when nothing was added, or the same fact was there already)."""
        if action != "add" or not content.strip():
            return None
        try:
            fact_id, added = self.store.add(content, MEMORY_CATEGORIES.get(target, "general"))
            fact = self.store.get(fact_id) if added else None
        except FactStoreError as exc:
            raise ProviderError(f"Recording the memory entry as a fact failed: {exc}") from exc
        return fact_written(fact, "add") if fact is not None else None

    def observed_identity(self) -> ObservedIdentity:
        about_user = self.store.list(USER_CATEGORY, self.store.settings.min_trust, self.user_facts)
        return ObservedIdentity(
            user_peer="user",
            ai_peer="agent",
            user_representation="",
            ai_representation="",
            user_card=tuple(f"{f['content']} (trust {float(f['trust_score']):.2f})" for f in about_user),
            user_source=f"the fact store's {USER_CATEGORY} facts",
        )

    def probe(self) -> ProbeResult:
        started = time.monotonic()
        settings = self.describe()
        try:
            total, vectors = self.store.count(), self.store.vector_count()
        except (ProviderError, FactStoreError, OSError) as exc:
            return ProbeResult(self.name, reachable=False, settings=settings, error=str(exc))
        return ProbeResult(
            self.name,
            reachable=True,
            settings=settings,
            latency_ms=(time.monotonic() - started) * 1000,
            details={"facts": total, "with_vectors": vectors},
        )

    def close(self) -> None:
        self.recall.close()
        store, self._store = self._store, None
        if store is not None:
            shared.release(store)


def _prefetched(found: list[dict[str, Any]]) -> tuple[PrefetchedFact, ...]:
    return tuple(
        PrefetchedFact(int(f["fact_id"]), str(f["content"]), float(f["trust_score"]), str(f["category"]))
        for f in found
    )
