"""Long two-person conversations over dated sessions, and questions whose answer messages are known.

Shaped like the public benchmarks of conversational memory: two people chat every week or three
for most of a year; each tells of things they did (one message each, told with "yesterday" or
"last weekend", not a date), mentions friends, says what they love; around it is small talk and
the other person's replies and stories, which share the same words. Questions of four kinds:

- single-hop: one fact of one message ("Where did Maya take a pottery class?");
- temporal: when something happened, or what happened in a month ("What did Maya do in May 2023?"),
  answered by the message's date;
- multi-hop: several messages in different sessions (all of one person's sports), or two facts
  joined through a name ("What does the friend Maya met at the pottery class do for a living?");
- open-domain: an inference from what a person loves ("Would Maya enjoy a weekend ceramics retreat?").

Two styles with disjoint templates, topics, names and places: `tuning` (the set improvements are
tried on) and `held_out` (checked once they work), the latter with a speaker's name before each
message as some chat exports store it. The same seed gives the same data.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from bench.conversations_style import HELD_OUT, TUNING, Style
from bench.conversations_topics import JOBS, Topic, split

MONTHS = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)  # fmt: skip


@dataclass
class Message:
    role: str
    text: str
    time: float


@dataclass
class Session:
    conversation: int
    started: float
    messages: list[Message] = field(default_factory=list)


@dataclass(frozen=True)
class Question:
    kind: str  # single-hop, temporal, multi-hop, open-domain
    text: str
    evidence: tuple[tuple[int, int], ...]  # (session index, message index) of the answer's messages


@dataclass
class Dataset:
    name: str
    sessions: list[Session]
    questions: list[Question]


@dataclass
class _Event:
    person: int
    topic: Topic
    detail: str
    place: str
    town: str
    at: tuple[int, int]  # where it was told
    when: datetime


@dataclass
class _Person:
    name: str
    topics: list[Topic]
    loves: list[tuple[Topic, tuple[int, int]]] = field(default_factory=list)


class _Writer:
    """Writes one conversation's sessions and remembers where each fact was told."""

    def __init__(self, rng: random.Random, style: Style, data: Dataset, index: int, names: list[str]) -> None:
        self.rng, self.style, self.data, self.index = rng, style, data, index
        self.people: list[_Person] = []
        self.events: list[_Event] = []
        self.joins: list[tuple[int, str, Topic, str, tuple[int, int], tuple[int, int]]] = []
        self.names = names

    def say(self, session: int, speaker: int, text: str) -> tuple[int, int]:
        chat = self.data.sessions[session]
        if self.style.prefix:
            text = f"{self.people[speaker].name}: {text}"
        role = "user" if speaker == 0 else "assistant"
        chat.messages.append(Message(role, text, chat.started + 45.0 * len(chat.messages)))
        return session, len(chat.messages) - 1

    def fill(self, session: int, speaker: int, count: int) -> None:
        """Small talk, and the other person's stories that share the topics' words."""
        rng, style = self.rng, self.style
        for _ in range(count):
            if rng.random() < 0.12:
                topic = rng.choice(rng.choice(self.people).topics)
                text = rng.choice(style.mention).format(noun=topic.noun, base=topic.base, place=self._place())
            else:
                other = self.people[1 - speaker].name
                text = rng.choice(style.filler).format(other=other, month=rng.choice(MONTHS))
            self.say(session, speaker, text)
            speaker = 1 - speaker

    def _place(self) -> str:
        return self.rng.choice(self.style.places)

    def event(self, session: int, speaker: int, topic: Topic) -> None:
        rng, style = self.rng, self.style
        detail, place, town = rng.choice(topic.details), self._place(), rng.choice(style.towns)
        when = rng.choice(style.when)
        text = rng.choice(style.event).format(
            past=f"{topic.past} in {town}",
            detail=detail,
            place=place,
            when=when,
            When=when[0].upper() + when[1:],
        )
        at = self.say(session, speaker, text)
        day = datetime.fromtimestamp(self.data.sessions[session].started)
        self.events.append(_Event(speaker, topic, detail, place, town, at, day))
        self.say(session, 1 - speaker, rng.choice(style.reply).format(noun=topic.noun))

    def love(self, session: int, speaker: int, topic: Topic) -> None:
        at = self.say(session, speaker, self.rng.choice(self.style.love).format(love=topic.love))
        self.people[speaker].loves.append((topic, at))
        self.say(
            session,
            1 - speaker,
            self.rng.choice(self.style.filler).format(
                other=self.people[speaker].name, month=self.rng.choice(MONTHS)
            ),
        )

    def friend_intro(self, session: int, speaker: int, friend: str, topic: Topic) -> tuple[int, int]:
        text = self.rng.choice(self.style.intro).format(friend=friend, noun=topic.noun)
        return self.say(session, speaker, text)

    def friend_news(self, session: int, speaker: int, friend: str, job: str) -> tuple[int, int]:
        return self.say(session, speaker, self.rng.choice(self.style.news).format(friend=friend, job=job))


def _conversation(
    rng: random.Random,
    style: Style,
    data: Dataset,
    index: int,
    names: list[str],
    friends: list[str],
    start: datetime,
) -> _Writer:
    """One pair's sessions: events, loves and friends spread over them among small talk."""
    writer = _Writer(rng, style, data, index, names)
    topics = list(style.topics)
    rng.shuffle(topics)
    per = rng.randint(4, 6)
    writer.people = [_Person(names[0], topics[:per]), _Person(names[1], topics[per : 2 * per])]
    count = rng.randint(18, 30)
    plan: list[tuple[str, int, Topic]] = [("event", p, t) for p in (0, 1) for t in writer.people[p].topics]
    plan += [("love", p, t) for p in (0, 1) for t in rng.sample(topics, 3)]
    plan += [("friend", rng.randint(0, 1), rng.choice(topics)) for _ in range(2)]
    rng.shuffle(plan)
    slots: list[list[tuple[str, int, Topic]]] = [[] for _ in range(count)]
    for item in plan:
        slots[rng.randrange(count - 4)].append(item)
    when = start
    pending: list[tuple[int, str, Topic, tuple[int, int]]] = []
    for s in range(count):
        data.sessions.append(Session(index, when.timestamp()))
        session = len(data.sessions) - 1
        speaker = rng.randint(0, 1)
        writer.say(session, speaker, rng.choice(style.greeting).format(other=names[1 - speaker]))
        writer.fill(session, 1 - speaker, rng.randint(2, 5))
        for kind, person, topic in slots[s]:
            if kind == "event":
                writer.event(session, person, topic)
            elif kind == "love":
                writer.love(session, person, topic)
            else:
                friend = friends.pop()
                pending.append((person, friend, topic, writer.friend_intro(session, person, friend, topic)))
            writer.fill(session, rng.randint(0, 1), rng.randint(3, 8))
        if pending and rng.random() < 0.5:
            person, friend, topic, intro = pending.pop(0)
            job = rng.choice(JOBS)
            news = writer.friend_news(session, person, friend, job[0])
            writer.joins.append((person, friend, topic, job[1], intro, news))
            writer.fill(session, rng.randint(0, 1), rng.randint(1, 4))
        writer.fill(session, rng.randint(0, 1), rng.randint(4, 9))
        when += timedelta(days=rng.randint(4, 21), hours=rng.randint(-3, 3))
    return writer


def _questions(rng: random.Random, style: Style, writer: _Writer) -> list[Question]:
    out: list[Question] = []
    people = writer.people
    for e in writer.events:
        name = people[e.person].name
        base = e.topic.base.replace("my ", "their ")
        noun = e.topic.noun
        if rng.random() < 0.7:  # most questions name the town, as most name what makes an event unique
            base, noun = f"{base} in {e.town}", f"{noun} in {e.town}"
        ask = rng.choice(style.q_single).format(name=name, noun=noun, base=base)
        out.append(Question("single-hop", ask, (e.at,)))
        ask = rng.choice(style.q_when).format(name=name, base=base, noun=noun)
        out.append(Question("temporal", ask, (e.at,)))
    months: dict[tuple[int, int, int], list[_Event]] = {}
    for e in writer.events:
        months.setdefault((e.person, e.when.year, e.when.month), []).append(e)
    for (person, year, month), events in months.items():
        if rng.random() < 0.5:
            ask = rng.choice(style.q_month).format(
                name=people[person].name, month=MONTHS[month - 1], year=year
            )
            out.append(Question("temporal", ask, tuple(e.at for e in events)))
    for p, person in enumerate(people):
        by_category: dict[str, list[_Event]] = {}
        for e in writer.events:
            if e.person == p:
                by_category.setdefault(e.topic.category, []).append(e)
        for category, events in by_category.items():
            if len(events) >= 2 or rng.random() < 0.3:
                ask = rng.choice(style.q_category).format(name=person.name, category=category)
                out.append(Question("multi-hop", ask, tuple(e.at for e in events)))
        for topic, at in person.loves:
            ask = rng.choice(style.q_open).format(name=person.name, would=topic.would)
            out.append(Question("open-domain", ask, (at,)))
    for person, _friend, topic, job, intro, news in writer.joins:
        ask = rng.choice(style.q_join).format(name=people[person].name, noun=topic.noun)
        out.append(Question("multi-hop", ask, (intro, news)))
        del job
    return out


def generate(style: Style, seed: int, conversations: int = 10) -> Dataset:
    """`conversations` pairs of people, each with 18-30 sessions, and their questions."""
    rng = random.Random(seed)
    words = split(style.held_out)
    style = style.with_vocabulary(words.topics, words.places, words.towns)
    data = Dataset(style.name, [], [])
    pool = list(words.names)
    rng.shuffle(pool)
    friend_pool = list(words.friends) * 3
    rng.shuffle(friend_pool)
    for c in range(conversations):
        pair = [pool[(2 * c) % len(pool)], pool[(2 * c + 1) % len(pool)]]
        start = datetime(2022 + c % 3, rng.randint(1, 6), rng.randint(1, 28), rng.randint(8, 20))
        mine = [friend_pool.pop() for _ in range(2)]
        writer = _conversation(rng, style, data, c, pair, mine, start)
        data.questions.extend(_questions(rng, style, writer))
    return data


def tuning_set(seed: int = 1) -> Dataset:
    return generate(TUNING, seed)


def held_out_set(seed: int = 2) -> Dataset:
    return generate(HELD_OUT, seed)
