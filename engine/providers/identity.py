"""The data of the identity view: what the files state beside what the provider observed.

SOUL.md states who the agent means to be; the AI peer's representation says who it turned out
to be. USER.md holds what the agent wrote down about the user; the user peer holds what the
provider observed. For each pair this computes the drift a widget can highlight: claims only
stated, claims only observed, and matched claims that contradict each other (one says "avoid
emoji", the other "uses emoji"). Comparison is by shared content words, with no model involved.
"""

from __future__ import annotations

import concurrent.futures
from dataclasses import dataclass
from typing import TYPE_CHECKING

from engine.providers import claims
from engine.providers.base import ObservedIdentity, ProviderError

if TYPE_CHECKING:
    from engine.config import Config
    from engine.home import Home
    from engine.providers.host import ProviderHost

ENTRY_DELIMITER = "\n§\n"  # USER.md entries, as Hermes writes them
MAX_FILE_CHARS = 200_000  # a SOUL.md larger than this is read only this far


@dataclass(frozen=True)
class Claim:
    """One sentence of a file or a representation, with its polarity."""

    text: str
    negated: bool  # "avoid emoji" / "never X": the claim says something is not so


@dataclass(frozen=True)
class ClaimMatch:
    stated: Claim
    observed: Claim
    score: float

    @property
    def conflict(self) -> bool:
        """The two talk about the same thing and disagree: on whether it is so, or on names and numbers."""
        if self.stated.negated != self.observed.negated:
            return True
        return claims.different_specifics(self.stated.text, claims.without_evidence(self.observed.text))


@dataclass(frozen=True)
class Drift:
    """How a stated identity and an observed one differ."""

    matches: tuple[ClaimMatch, ...]
    stated_only: tuple[Claim, ...]
    observed_only: tuple[Claim, ...]

    @property
    def conflicts(self) -> tuple[ClaimMatch, ...]:
        return tuple(m for m in self.matches if m.conflict)

    @property
    def agreements(self) -> tuple[ClaimMatch, ...]:
        return tuple(m for m in self.matches if not m.conflict)

    @property
    def agreement(self) -> float:
        """Share of observed claims that agree with something stated (1.0 when nothing was observed)."""
        observed = len(self.matches) + len(self.observed_only)
        return len(self.agreements) / observed if observed else 1.0

    def as_dict(self) -> dict[str, object]:
        return {
            "agreement": round(self.agreement, 3),
            "conflicts": [{"stated": m.stated.text, "observed": m.observed.text} for m in self.conflicts],
            "agreements": [{"stated": m.stated.text, "observed": m.observed.text} for m in self.agreements],
            "stated_only": [c.text for c in self.stated_only],
            "observed_only": [c.text for c in self.observed_only],
        }


@dataclass(frozen=True)
class IdentityPair:
    """One side-by-side: a file (intent) and a peer representation (observation), with the drift."""

    title: str
    file_label: str
    file_text: str
    peer_label: str
    peer_text: str
    drift: Drift

    def as_dict(self) -> dict[str, object]:
        return {
            "title": self.title,
            "file": self.file_label,
            "peer": self.peer_label,
            "file_text": self.file_text,
            "peer_text": self.peer_text,
            "drift": self.drift.as_dict(),
        }


@dataclass(frozen=True)
class IdentityView:
    """Both pairs, plus whether the provider could be read (the files are shown either way)."""

    provider: str
    available: bool
    error: str
    agent: IdentityPair
    user: IdentityPair

    def as_dict(self) -> dict[str, object]:
        return {
            "provider": self.provider,
            "available": self.available,
            "error": self.error,
            "agent": self.agent.as_dict(),
            "user": self.user.as_dict(),
        }


def stated_claims(markdown: str) -> list[Claim]:
    """Claims of a markdown file; bullets under a heading like "What you avoid" count as negated."""
    out: list[Claim] = []
    for heading, body in claims.sections(markdown):
        heading_says_no = claims.negated(heading)
        for sentence in claims.sentences(body):
            out.append(Claim(sentence, heading_says_no or claims.negated(sentence)))
    return out


def user_file_claims(text: str) -> list[Claim]:
    """Claims of USER.md: each `§`-separated entry, cut into sentences."""
    out: list[Claim] = []
    for entry in text.split(ENTRY_DELIMITER):
        out.extend(Claim(s, claims.negated(s)) for s in claims.sentences(entry.strip()))
    return out


def observed_claims(representation: str, card: tuple[str, ...] = ()) -> list[Claim]:
    """Claims of a peer representation and its card, without repeats."""
    seen: set[str] = set()
    out: list[Claim] = []
    for sentence in [*card, *claims.sentences(representation)]:
        key = claims.without_evidence(sentence).lower()
        if key and key not in seen:
            seen.add(key)
            out.append(Claim(sentence, claims.negated(claims.without_evidence(sentence))))
    return out


def compare(stated: list[Claim], observed: list[Claim], threshold: float) -> Drift:
    """Pair each observed claim with the stated claim it shares most words with, above `threshold`."""
    matches: list[ClaimMatch] = []
    matched_stated: set[int] = set()
    observed_only: list[Claim] = []
    for seen in observed:
        bare = claims.without_evidence(seen.text)
        best, best_score = -1, 0.0
        for index, said in enumerate(stated):
            score = claims.overlap(said.text, bare)
            if score > best_score:
                best, best_score = index, score
        if best >= 0 and best_score >= threshold:
            matches.append(ClaimMatch(stated[best], seen, round(best_score, 3)))
            matched_stated.add(best)
        else:
            observed_only.append(seen)
    stated_only = tuple(c for i, c in enumerate(stated) if i not in matched_stated)
    return Drift(tuple(matches), stated_only, tuple(observed_only))


def _read(path_text: str, reader: Home, name: str) -> str:
    path = reader.root / name if not path_text else reader.root / path_text
    try:
        if not reader.inside(path):
            return ""
        with path.open(encoding="utf-8", errors="replace") as handle:
            return handle.read(MAX_FILE_CHARS)
    except (FileNotFoundError, IsADirectoryError, PermissionError):
        return ""


def build_view(
    home: Home, config: Config, observed: ObservedIdentity | None, provider: str = "honcho", error: str = ""
) -> IdentityView:
    """The view from the files on disk and what the provider returned (None: provider unreadable)."""
    threshold = float(config.external_memory.drift_threshold)
    soul = _read("", home, "SOUL.md")
    user_md = _read("memories/USER.md", home, "memories/USER.md")
    ai_text = observed.ai_representation if observed else ""
    user_text = observed.user_representation if observed else ""
    ai_peer = observed.ai_peer if observed else str(config.honcho.ai_peer)
    user_peer = observed.user_peer if observed else str(config.honcho.user_peer)
    agent = IdentityPair(
        title="Who the agent means to be, and who it turned out to be",
        file_label="SOUL.md",
        file_text=soul,
        peer_label=f"AI peer {ai_peer!r}",
        peer_text=ai_text,
        drift=compare(
            stated_claims(soul), observed_claims(ai_text, observed.ai_card if observed else ()), threshold
        ),
    )
    user_card = observed.user_card if observed else ()
    user_source = observed.user_source if observed else ""
    user = IdentityPair(
        title="Who the user is: the profile, and what was observed",
        file_label="USER.md",
        file_text=user_md,
        peer_label=user_source or f"user peer {user_peer!r}",
        peer_text=user_text or ("\n".join(f"- {line}" for line in user_card) if user_source else ""),
        drift=compare(
            user_file_claims(user_md),
            observed_claims(user_text, user_card),
            threshold,
        ),
    )
    return IdentityView(provider, observed is not None, error, agent, user)


def fetch_view(home: Home, config: Config, host: ProviderHost, timeout: float | None = None) -> IdentityView:
    """Ask the provider (on its own thread) and build the view; blocking, so call it from a worker."""
    wait = timeout if timeout is not None else float(config.honcho.timeout) * 2
    future = host.submit(lambda provider: provider.observed_identity())
    try:
        observed = future.result(timeout=wait)
    except concurrent.futures.TimeoutError:
        return build_view(home, config, None, host.name, f"{host.name} did not answer within {wait:g} s.")
    except ProviderError as exc:
        return build_view(home, config, None, host.name, str(exc))
    return build_view(home, config, observed, host.name)
