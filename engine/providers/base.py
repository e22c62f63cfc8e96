"""The contract every external memory provider keeps, and the plain records it returns.

A provider runs on top of the built-in memory files, never instead of them. Its methods block
(they talk to a service) and may raise; the `ProviderHost` calls them on a background thread and
turns every failure into a status record, so a provider never has to be careful about the turn.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from engine.events import Event

ROLES_MIRRORED = ("user", "assistant")


class ProviderError(Exception):
    """A provider call failed; the message is one sentence a user can act on."""


class ProviderConfigError(ProviderError):
    """The provider's settings cannot work (unknown name, missing URL or key)."""


@dataclass(frozen=True)
class MirroredMessage:
    """One completed message of the conversation, as the provider receives it."""

    role: str  # user | assistant
    content: str
    created_at: float = field(default_factory=time.time)


@dataclass(frozen=True)
class PrefetchedFact:
    """One stored fact a prefetch found relevant, with the trust the store gives it."""

    fact_id: int
    content: str
    trust: float
    category: str = "general"


@dataclass(frozen=True)
class PrefetchResult:
    """What a provider knows that the next turn may use; rendered once into an ephemeral layer."""

    session_id: str
    user_representation: str = ""
    ai_representation: str = ""
    user_card: tuple[str, ...] = ()
    ai_card: tuple[str, ...] = ()
    user_source: str = ""  # what the user column is, when it is not a peer ("facts about the user")
    dialectic_question: str = ""
    dialectic_answer: str = ""
    fetched_at: float = field(default_factory=time.time)
    duration_s: float = 0.0
    errors: tuple[str, ...] = ()  # parts that failed while others arrived
    facts: tuple[PrefetchedFact, ...] = ()  # a fact store's matches for the user's last message

    @property
    def empty(self) -> bool:
        return not (
            self.user_representation.strip()
            or self.ai_representation.strip()
            or self.user_card
            or self.ai_card
            or self.dialectic_answer.strip()
            or self.facts
        )


@dataclass(frozen=True)
class ObservedIdentity:
    """The two peers as the provider observed them: who the user is, and who the agent turned out to be."""

    user_peer: str
    ai_peer: str
    user_representation: str
    ai_representation: str
    user_card: tuple[str, ...] = ()
    ai_card: tuple[str, ...] = ()
    user_source: str = ""  # what the user column is, when it is not a peer ("facts about the user")


@dataclass(frozen=True)
class ProbeResult:
    """The answer to "is the provider there?": configured settings, reachability and what it reports."""

    provider: str
    reachable: bool
    settings: dict[str, Any]
    latency_ms: float = 0.0
    error: str = ""
    details: dict[str, Any] = field(default_factory=dict)


@runtime_checkable
class MemoryProvider(Protocol):
    """An external memory service; every method may block and may raise `ProviderError`."""

    name: str

    def describe(self) -> dict[str, Any]:
        """The configured settings, secrets masked, without any network call."""
        ...

    def start_session(self, session_id: str, parent_session_id: str | None = None) -> None:
        """Open (get or create) the remote session for a local session; `parent` links a split."""
        ...

    def mirror(self, session_id: str, messages: list[MirroredMessage]) -> int:
        """Send completed messages, each attributed to its speaker; returns how many were stored."""
        ...

    def prefetch(self, session_id: str, last_user: str) -> PrefetchResult:
        """Fetch the peer context and the dialectic answer the next turn should see."""
        ...

    def quick_prefetch(self, session_id: str, last_user: str) -> PrefetchResult | None:
        """Context for a session's first turn within the provider's own small budget, from local data;
        None when it has no such path (a remote service), and the host waits for `prefetch` instead."""
        ...

    def dialectic(self, question: str, session_id: str | None = None) -> str:
        """Answer a natural-language question about the user from what the provider observed."""
        ...

    def on_memory_write(self, action: str, target: str, content: str) -> Event | None:
        """The built-in memory tool wrote `content` to MEMORY.md (target memory) or USER.md (user); the
        event says what the provider made of it, if anything (the host emits it)."""
        ...

    def observed_identity(self) -> ObservedIdentity:
        """Both peers' representations, for the identity view."""
        ...

    def probe(self) -> ProbeResult:
        """Check that the service answers and report what it knows; never raises."""
        ...

    def close(self) -> None:
        """Release connections; later calls may reopen them."""
        ...
