"""Intents, not phrases: what a text asks the agent to do, read from a few concepts in one sentence.

A sentence is reduced to the concepts it holds (from `threat_vocab`'s per-language words, and from a
few language-free shapes: a URL or e-mail address, a remote script piped into a shell, an upload, a
shell profile or crontab, a home-folder path), and each intent names the concepts that must meet
within a short span: "ignore" + "instructions" + "previous", "approval" + "yourself", "send" +
"secret" + an address. Three families are read this way: instructions addressed to the agent about
its own instructions, approvals, permissions, identity or memory; sending local data or secrets to an
address; making something run later. A few shapes are read directly: images whose address carries
data, markup that claims a system or admin voice, a new git remote that is pushed to.

An intent is certain (critical or high) or uncertain. A note whose subject is the person ("User
prefers to approve deploys themselves") or whose instructions are about a topic ("the setup
instructions for Docker are outdated") is uncertain rather than refused: the patterns do not settle
it, and the auxiliary model may be asked.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, replace

from engine.threats.lexicon import lexicon
from engine.threats.normalise import (
    fold_for_matching,
    has_hidden,
    keep_accents,
    mixed_script_words,
    normalise,
    skeleton,
)
from engine.threats.shapes import (
    CRITICAL,
    HIGH,
    UNCERTAIN,
    Hit,
    IntentFinding,
    clip,
    line_at,
    shape_findings,
    shape_regexes,
)

HITS_PER_GROUP = 12  # enough to find a close combination; a sentence rarely holds more of one concept


# ── the intents ───────────────────────────────────────────────────────────────────────────────
@dataclass(frozen=True)
class Intent:
    """Concepts that together make an intent: one of each group, within `span` characters.

    `mitigated` names the readings that make it uncertain instead: `user` (the sentence is about
    what the person wants, with no second person in it), `topic` (the instructions are about a
    topic, with no second person), `header` (a credential sent in an API header), `deference` (a
    thing, not the reader, takes precedence over the text's own guidance: "the template's styles
    override these guidelines" is prose about precedence, not an order to drop instructions).
    """

    id: str
    category: str
    severity: str
    needs: tuple[frozenset[str], ...]
    span: int = 120
    mitigated: frozenset[str] = frozenset()
    order: tuple[tuple[int, int], ...] = ()  # (i, j): group i's hit comes before group j's


def _i(
    pid: str,
    category: str,
    severity: str,
    needs: str,
    span: int = 120,
    mitigated: str = "",
    order: tuple[tuple[int, int], ...] = (),
) -> Intent:
    """An intent from its needs written `a|b c d|e`: (a or b) and c and (d or e)."""
    groups = tuple(frozenset(group.split("|")) for group in needs.split())
    return Intent(pid, category, severity, groups, span, frozenset(mitigated.split()), order)


_ADDRESSED = "your|you|agent"
INTENTS: tuple[Intent, ...] = (
    # instructions addressed to the agent about its own instructions
    _i(
        "override_instructions",
        "injection",
        CRITICAL,
        f"ignore instructions prior|all|{_ADDRESSED}",
        100,
        "topic deference",
    ),
    _i("override_instructions", "injection", CRITICAL, f"ignore rules {_ADDRESSED}", 80),
    _i("override_instructions", "injection", UNCERTAIN, "ignore rules prior", 60),
    _i(
        "stale_instructions",
        "injection",
        CRITICAL,
        f"instructions|rules|sysprompt stale {_ADDRESSED}|sysprompt",
        120,
    ),
    _i("stale_instructions", "injection", UNCERTAIN, "instructions stale prior", 80),
    _i("stale_instructions", "injection", CRITICAL, "unbind you|agent", 60),
    _i("authority_claim", "injection", CRITICAL, f"authority {_ADDRESSED}|sysprompt", 100),
    _i("authority_claim", "injection", UNCERTAIN, "authority instructions|rules", 80),
    _i("orders_transfer", "injection", CRITICAL, "treat instructions", 80),
    _i("orders_transfer", "injection", UNCERTAIN, "treat rules", 80),
    # approvals the agent answers for the person
    _i("approval_self_answer", "injection", CRITICAL, "approval self", 80, "user"),
    _i("approval_self_answer", "injection", HIGH, f"approval auto all|{_ADDRESSED}", 80, "user"),
    _i("approval_self_answer", "injection", HIGH, f"auto_approve all|{_ADDRESSED}", 80, "user"),
    _i("approval_self_answer", "injection", UNCERTAIN, "approval|auto_approve auto|all", 60),
    _i("approval_skipped", "injection", CRITICAL, f"noask_approval run|all|{_ADDRESSED}", 80, "user"),
    _i("approval_skipped", "injection", CRITICAL, "noask approval", 80, "user"),
    _i("approval_skipped", "injection", CRITICAL, "noask all run|you|agent", 80, "user"),
    _i("approval_skipped", "injection", UNCERTAIN, "noask|noask_approval run", 60),
    _i("approval_granted", "injection", CRITICAL, "approval granted", 80, "user"),
    _i("approval_granted", "injection", UNCERTAIN, "granted all", 60),
    _i("permission_grant", "injection", CRITICAL, "you|agent granted noask|noask_approval|all", 120),
    _i("trust_grant", "injection", HIGH, "trust all source", 80, "user"),
    # identity, deception, memory
    _i("identity_override", "role_hijack", HIGH, "your real identity", 40),
    _i("identity_override", "role_hijack", HIGH, "your identity_core", 30),
    _i("identity_override", "role_hijack", HIGH, "not_self", 40),
    _i("identity_override", "role_hijack", HIGH, "you unbound agent", 60),
    _i("deceive_user", "injection", CRITICAL, "say_only asked|outcome", 120),
    _i("deceive_user", "injection", CRITICAL, "hide agent_action|this_note", 80),
    _i("memory_persistence", "persistence", HIGH, "memory|this_note forever", 100),
    _i("memory_rewrite", "persistence", UNCERTAIN, "erase memory", 60),
    # sending local data or secrets to an address
    _i(
        "send_secret", "exfiltration", CRITICAL, "send secret dest", 200, "header", ((1, 2),)
    ),  # what, then where
    _i("send_secret", "exfiltration", UNCERTAIN, "send secret dest", 200),
    _i("send_secret", "exfiltration", CRITICAL, "net_send secret|home_path", 150, "header"),
    _i("hoard_secrets", "exfiltration", CRITICAL, "collect secret all|whenever", 120),
    _i("archive_upload", "exfiltration", CRITICAL, "archive home_path|secret net_send|dest", 250),
    # making something run later
    _i("trigger_action", "persistence", CRITICAL, "whenever remote_exec|remote_script", 250),
    _i(
        "persist_payload",
        "persistence",
        CRITICAL,
        "persist remote_exec|remote_script|net_send|temp_exec|dest",
        400,
    ),
    _i("skill_runs_code", "persistence", CRITICAL, "skill run noask|noask_approval|remote_exec", 150),
    _i("remote_code", "execution", UNCERTAIN, "remote_exec", 400),
    _i("remote_code", "execution", UNCERTAIN, "run remote_script", 120),
)
_SECOND_PERSON = ("you", "your")
# Words that may stand before an order's verb without being its subject ("please ignore", "now ignore").
_LEAD_INS = frozenset(
    ("please", "now", "just", "simply", "also", "so", "then", "and", "first", "kindly", "to")
)
# Modals and adverbs between a subject and its verb, looked past to find the subject ("… always overrides").
_MODALS = frozenset(("must", "should", "shall", "will", "can", "may", "might", "would", "could", "always"))
_OWN_TEXT = re.compile(r"\s*(?:all\s+)?(?:these|this|its\s+own)\s*$")  # "override these guidelines"

INTENT_MESSAGES = {  # what each intent means, for the sentence that refuses a write
    "override_instructions": "it tells the agent to ignore its instructions",
    "stale_instructions": "it tells the agent its instructions no longer hold",
    "authority_claim": "it claims to outrank the agent's instructions",
    "orders_transfer": "it makes other text count as the agent's instructions",
    "approval_self_answer": "it tells the agent to answer approval questions itself",
    "approval_skipped": "it tells the agent to act without the person's approval",
    "approval_granted": "it claims approvals are already given",
    "permission_grant": "it grants the agent permissions",
    "trust_grant": "it declares a whole source trusted",
    "identity_override": "it rewrites who the agent is",
    "deceive_user": "it tells the agent to mislead the person or hide what it did",
    "memory_persistence": "it pins itself in memory",
    "memory_rewrite": "it rewrites the agent's memory",
    "send_secret": "it sends secrets or private data to an address",
    "hoard_secrets": "it collects secrets",
    "archive_upload": "it packs up local files and uploads them",
    "trigger_action": "it runs a downloaded script on a trigger",
    "persist_payload": "it makes a download or an upload run later",
    "skill_runs_code": "it makes a skill run code without asking",
    "remote_code": "it pipes a downloaded script into a shell",
    "image_beacon": "an image address carries data out",
    "role_spoof": "it speaks in a system or admin voice",
    "git_push_new_remote": "it pushes the code to a new remote",
    "mixed_script": "a word mixes letters of two scripts",
}

_CLAUSE_END = re.compile(r"[.!?;。！？；](?=\s|$)|\n[ \t]*\n|\n(?=[ \t]*(?:[-*+>#|]|\d+[.)])[ \t])")
_NEWLINE = re.compile("\n")
_LEADING = re.compile(r"[\s\"'`*>#\-–—:(\[]*")


def _clauses(view: str) -> list[tuple[int, int]]:
    spans = []
    start = 0
    for m in _CLAUSE_END.finditer(view):
        if m.end() - start > 1:
            spans.append((start, m.end()))
        start = m.end()
    if start < len(view):
        spans.append((start, len(view)))
    return spans


def _concept_hits(view: str, accented: str) -> list[Hit]:
    """Concepts in a folded view; `accented` is the same text with its accents (aligned with `view`)."""
    hits = [Hit(concept, start, end) for concept, start, end in lexicon().hits(view, accented)]
    for concept, needs, regex in shape_regexes():
        if any(need in view for need in needs):
            hits += [Hit(concept, m.start(), m.end()) for m in regex.finditer(view) if m.end() > m.start()]
    hits.sort(key=lambda h: h.start)
    return hits


def _combination(groups: list[list[Hit]], span: int, order: tuple[tuple[int, int], ...] = ()) -> bool:
    """True when one hit of each group, none overlapping another, fit within `span` characters (and
    come in the `order` asked)."""
    indexes = sorted(range(len(groups)), key=lambda i: len(groups[i]))

    def extend(chosen: dict[int, Hit], step: int) -> bool:
        if step == len(indexes):
            return all(chosen[i].start < chosen[j].start for i, j in order)
        group = indexes[step]
        for hit in groups[group][:HITS_PER_GROUP]:
            if any(hit.start < other.end and other.start < hit.end for other in chosen.values()):
                continue
            if chosen:
                low = min(hit.start, *(c.start for c in chosen.values()))
                high = max(hit.end, *(c.end for c in chosen.values()))
                if high - low > span:
                    continue
            if extend({**chosen, group: hit}, step + 1):
                return True
        return False

    return extend({}, 0)


def _user_subject(view: str, start: int, by_concept: dict[str, list[Hit]]) -> bool:
    """The clause is about the person: it opens with the word for the user (after an article)."""
    lead = _LEADING.match(view, start)
    first = lead.end() if lead else start
    return any(0 <= hit.start - first <= 4 for hit in by_concept.get("user", ()))


def _defers(view: str, start: int, by_concept: dict[str, list[Hit]]) -> bool:
    """The clause says something else outranks the text's own guidance: its overriding verb has a
    subject that is a thing ("the style guide overrides …"), and what is overridden is this text ("these
    guidelines", "this skill's rules"), with no "all" or "previous" before it."""
    verb = by_concept["ignore"][0]
    before = re.findall(r"\w+", view[start : verb.start])
    while before and before[-1] in _MODALS:  # "the template should override …": its subject is before
        before.pop()
    if not before or before[-1] in _LEAD_INS:
        return False  # an order: "override …", "please disregard …", "you must ignore …"
    target = next((h for h in by_concept.get("instructions", ()) if h.start > verb.end), None)
    if target is None:
        return False
    between = [
        h for c in ("all", "prior") for h in by_concept.get(c, ()) if verb.end <= h.start < target.start
    ]
    own = _OWN_TEXT.search(view, verb.end, target.start) is not None or any(
        verb.end <= h.start < target.end + 40 for h in by_concept.get("this_note", ())
    )
    return own and not between


def _clause_findings(view: str, start: int, end: int, hits: list[Hit]) -> list[tuple[Intent, str, int]]:
    """(intent, severity, where its first concept is) for each intent the clause holds."""
    by_concept: dict[str, list[Hit]] = {}
    for hit in hits:
        by_concept.setdefault(hit.concept, []).append(hit)
    present = by_concept.keys()
    second_person = any(by_concept.get(c) for c in _SECOND_PERSON) or bool(by_concept.get("agent"))
    found: dict[str, tuple[Intent, str, int]] = {}
    for intent in INTENTS:
        if intent.id in found and found[intent.id][1] != UNCERTAIN:
            continue
        if any(group.isdisjoint(present) for group in intent.needs):
            continue
        groups = [[h for c in group for h in by_concept.get(c, ())] for group in intent.needs]
        if not all(groups):
            continue
        if len(groups) > 1 and not _combination(groups, intent.span, intent.order):
            continue
        severity = intent.severity
        about_user = "user" in intent.mitigated and _user_subject(view, start, by_concept)
        about_topic = "topic" in intent.mitigated and bool(by_concept.get("topic"))
        if severity != UNCERTAIN and not second_person and (about_user or about_topic):
            severity = UNCERTAIN
        if "header" in intent.mitigated and by_concept.get("header"):
            severity = UNCERTAIN
        if "deference" in intent.mitigated and not second_person and _defers(view, start, by_concept):
            severity = UNCERTAIN
        held = found.get(intent.id)
        if held is None or (held[1] == UNCERTAIN and severity != UNCERTAIN):
            found[intent.id] = (intent, severity, min(h.start for group in groups for h in group))
    return list(found.values())


def _view_findings(text: str) -> list[IntentFinding]:
    """The intents of one normalised view of the text."""
    accented = keep_accents(text)
    view = fold_for_matching(text)
    if len(accented) != len(
        view
    ):  # marks that stand alone (Hebrew points): read the short words without them
        accented = view
    hits = _concept_hits(view, accented)
    if not hits:
        return []
    newlines = [m.start() for m in _NEWLINE.finditer(view)]
    starts = [h.start for h in hits]
    found: list[IntentFinding] = []
    for start, end in _clauses(view):
        low = bisect.bisect_left(starts, start)
        high = bisect.bisect_left(starts, end)
        if high <= low:
            continue
        clause_hits = [h for h in hits[low:high] if h.end <= end]
        for intent, severity, where in _clause_findings(view, start, end, clause_hits):
            found.append(
                IntentFinding(
                    intent.id, intent.category, severity, clip(view[start:end]), line_at(newlines, where)
                )
            )
    return found


def intent_findings(text: str) -> list[IntentFinding]:
    """Every intent in the text, certain and uncertain, read in each of its views.

    Views: the text normalised and folded; the same with look-alike letters spelled in Latin (when
    that changes anything); the same with zero-width characters read as spaces (when it has any).
    """
    base = normalise(text)
    found = _view_findings(base)
    lines = base.split("\n")
    others = []
    if not base.isascii():
        others.append([skeleton(line) if not line.isascii() else line for line in lines])
    if has_hidden(text):
        spaced = normalise(text, zero_width_as_space=True).split("\n")
        if len(spaced) == len(lines):
            others.append(spaced)
    for other in others:  # only the lines a view changes are read again
        changed = [i for i, (a, b) in enumerate(zip(lines, other, strict=True)) if a != b]
        if changed:
            for finding in _view_findings("\n".join(other[i] for i in changed)):
                found.append(replace(finding, line=changed[finding.line - 1] + 1))
    found += shape_findings(base)
    for word in mixed_script_words(base)[:1]:
        found.append(
            IntentFinding(
                "mixed_script", "obfuscation", UNCERTAIN, word, 1, "letters of two scripts in one word"
            )
        )
    return _strongest(found)


def _strongest(found: list[IntentFinding]) -> list[IntentFinding]:
    """One finding per (id, line): the certain one when there is one."""
    best: dict[tuple[str, int], IntentFinding] = {}
    for finding in found:
        key = (finding.id, finding.line)
        held = best.get(key)
        if held is None or (not held.certain and finding.certain):
            best[key] = finding
    return sorted(best.values(), key=lambda f: (f.line, not f.certain, f.id))
