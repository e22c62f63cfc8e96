"""The local Honcho test server's stand-in for Honcho's deriver and dialectic: rules, not a model.

From what a peer said it derives *conclusions*: first-person statements turned into third-person
facts ("I prefer dark themes" becomes "ana prefers dark themes"), and observed patterns of style
(emoji, exclamation marks, hype words, flattery, message length). Deterministic, so tests can
assert on what the SDK brings back, and believable enough for the demo's identity view.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from engine.providers.claims import rank_by_overlap, sentences, words

_MODAL_TEXT = "will would can could should must might may shall was did had"
_ADVERB_TEXT = "also always never often usually really just still sometimes rarely"
MODALS = frozenset(_MODAL_TEXT.split())
ADVERBS = frozenset(_ADVERB_TEXT.split())
IRREGULAR = {"am": "is", "have": "has", "do": "does", "don't": "doesn't", "go": "goes", "'m": "is"}
HYPE = (
    "powerful",
    "seamless",
    "robust",
    "cutting-edge",
    "supercharge",
    "game-changing",
    "amazing",
    "awesome",
)
FLATTERY = ("great question", "excellent idea", "excellent question", "happy to help", "i hope this helps")
EMOJI = re.compile("[\U0001f300-\U0001faff\u2600-\u27bf\u2b50\u2705]")
LONG_WORDS, SHORT_WORDS = 120, 25
OFTEN = 0.25  # share of messages (or sentences) at which a habit counts as a pattern


def third_person(sentence: str, peer: str) -> str | None:
    """A first-person sentence rewritten about `peer`, or None when it is not about the speaker."""
    text = sentence.strip().rstrip(".!?").strip()
    lowered = text.lower().replace("’", "'")
    if lowered.startswith("my "):
        return _possessives(_inner_first_person(f"{peer}'s {text[3:]}", peer))
    match = re.match(r"(i'm|i am|i've|i have|i'd|i'll|i)\s+(\S+)(.*)$", text, re.IGNORECASE)
    if not match:
        return None
    subject, verb, rest = match.group(1).lower().replace("’", "'"), match.group(2), match.group(3)
    if subject in ("i'm", "i am"):
        head = f"{peer} is {verb}"
    elif subject in ("i've", "i have"):
        head = f"{peer} has {verb}"
    elif subject == "i'd":
        head = f"{peer} would {verb}"
    elif subject == "i'll":
        head = f"{peer} will {verb}"
    elif verb.lower() in ADVERBS:
        following, _, tail = rest.strip().partition(" ")
        head = f"{peer} {verb} {_agree(following)}" if following else f"{peer} {verb}"
        rest = f" {tail}" if tail else ""
    else:
        head = f"{peer} {_agree(verb)}"
    return _possessives(_inner_first_person(head + rest, peer))


def _inner_first_person(text: str, peer: str) -> str:
    """A later "I verb" in the same sentence ("... and I use tmux") is about the speaker too."""
    return re.sub(r"\bI\s+(\S+)", lambda m: f"{peer} {_agree(m.group(1))}", text)


def _agree(verb: str) -> str:
    low = verb.lower().replace("’", "'")
    if low in IRREGULAR:
        return IRREGULAR[low]
    if low in MODALS or not low.isalpha():
        return verb
    if low.endswith(("s", "sh", "ch", "x", "o", "z")):
        return verb + "es"
    if low.endswith("y") and len(low) > 1 and low[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def _possessives(text: str) -> str:
    text = re.sub(r"\bmyself\b", "themselves", text, flags=re.IGNORECASE)
    text = re.sub(r"\bmy\b", "their", text, flags=re.IGNORECASE)
    return re.sub(r"\bme\b", "them", text, flags=re.IGNORECASE)


def explicit_conclusions(peer: str, said: Sequence[str]) -> list[str]:
    """What the peer stated about itself, as third-person facts, oldest first, without repeats."""
    seen: set[str] = set()
    out: list[str] = []
    for message in said:
        for sentence in sentences(message):
            fact = third_person(sentence, peer)
            if fact and fact.lower() not in seen:
                seen.add(fact.lower())
                out.append(fact)
    return out


def style_conclusions(peer: str, said: Sequence[str]) -> list[str]:
    """Habits visible in how the peer writes, each with the evidence count."""
    said = [message for message in said if message.strip()]
    if not said:
        return []
    total = len(said)
    out: list[str] = []
    with_emoji = sum(1 for message in said if EMOJI.search(message))
    if with_emoji:
        out.append(f"{peer} uses emoji (in {with_emoji} of {total} messages)")
    all_sentences = [s for message in said for s in re.split(r"(?<=[.!?])\s+", message.strip()) if s]
    shouted = sum(1 for s in all_sentences if s.rstrip().endswith("!"))
    if all_sentences and shouted / len(all_sentences) >= OFTEN:
        out.append(f"{peer} uses exclamation marks (in {shouted} of {len(all_sentences)} sentences)")
    lowered = " ".join(said).lower()
    hype = [word for word in HYPE if re.search(rf"\b{re.escape(word)}\b", lowered)]
    if hype:
        out.append(f"{peer} uses hype words: {', '.join(repr(w) for w in hype[:3])}")
    flattery = [phrase for phrase in FLATTERY if phrase in lowered]
    if flattery:
        out.append(f"{peer} flatters: {', '.join(repr(p) for p in flattery[:2])}")
    average = sum(len(words(message)) for message in said) / total
    if average > LONG_WORDS:
        out.append(f"{peer} writes long messages (about {average:.0f} words each)")
    elif average < SHORT_WORDS:
        out.append(f"{peer} writes short messages (about {average:.0f} words each)")
    questions = sum(1 for message in said if message.rstrip().endswith("?"))
    if questions / total >= OFTEN * 2:
        out.append(f"{peer} often asks questions ({questions} of {total} messages)")
    return out


def representation(peer: str, said: Sequence[str], limit: int, search_query: str | None = None) -> str:
    """Honcho's "working representation" text for a peer: explicit conclusions, then patterns."""
    explicit = explicit_conclusions(peer, said)
    patterns = style_conclusions(peer, said)
    if search_query:
        explicit = [c for score, c in rank_by_overlap(search_query, explicit) if score > 0] or explicit
    explicit = explicit[-limit:]
    patterns = patterns[: max(0, limit - len(explicit))]
    if not explicit and not patterns:
        return ""
    lines: list[str] = []
    if explicit:
        lines.append(f"Explicit observations about {peer}:")
        lines.extend(f"- {c}" for c in explicit)
    if patterns:
        lines.append(f"Observed patterns of {peer}:")
        lines.extend(f"- {c}" for c in patterns)
    return "\n".join(lines)


def peer_card(peer: str, said: Sequence[str], size: int = 10) -> list[str]:
    """The short card Honcho keeps for a peer: its most recent explicit facts."""
    return explicit_conclusions(peer, said)[-size:]


def dialectic_answer(subject: str, said: Sequence[str], query: str) -> str | None:
    """An answer to a question about `subject` from its conclusions; None when nothing is known."""
    known = explicit_conclusions(subject, said) + style_conclusions(subject, said)
    if not known:
        return None
    ranked = rank_by_overlap(query, known)
    relevant = [c for score, c in ranked if score > 0][:3]
    if relevant:
        return f"From what {subject} has said: " + "; ".join(relevant) + "."
    recent = known[-3:]
    return f"Nothing {subject} said bears on that directly. What is known: " + "; ".join(recent) + "."
