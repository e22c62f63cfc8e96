"""Two ways of writing the generated conversations and their questions, with no template in common."""

from __future__ import annotations

from dataclasses import dataclass, replace

from bench.conversations_topics import Topic


@dataclass(frozen=True)
class Style:
    name: str
    held_out: bool
    prefix: bool  # each message starts with its speaker's name
    greeting: tuple[str, ...]
    filler: tuple[str, ...]
    mention: tuple[str, ...]  # someone else's story with a topic's words: a distractor
    event: tuple[str, ...]
    when: tuple[str, ...]
    reply: tuple[str, ...]
    love: tuple[str, ...]
    intro: tuple[str, ...]
    news: tuple[str, ...]
    q_single: tuple[str, ...]
    q_when: tuple[str, ...]
    q_month: tuple[str, ...]
    q_category: tuple[str, ...]
    q_open: tuple[str, ...]
    q_join: tuple[str, ...]
    topics: tuple[Topic, ...] = ()
    places: tuple[str, ...] = ()
    towns: tuple[str, ...] = ()

    def with_vocabulary(
        self, topics: tuple[Topic, ...], places: tuple[str, ...], towns: tuple[str, ...]
    ) -> Style:
        return replace(self, topics=topics, places=places, towns=towns)


TUNING = Style(
    name="tuning",
    held_out=False,
    prefix=False,
    greeting=(
        "Hey {other}! Long time no see, how have you been?",
        "Hi {other}, so good to hear from you again.",
        "Morning {other}! Got a minute to chat?",
        "{other}! I was just thinking about you.",
    ),
    filler=(
        "Work has been a bit crazy lately, but I'm hanging in there.",
        "Ha, that sounds like you, {other}.",
        "I know what you mean, some weeks just fly by.",
        "The weather has been so grey, I can't wait for {month}.",
        "Thanks for listening, it really helps to talk things through.",
        "That's amazing, I'm really happy for you!",
        "I've been trying to get more sleep, with mixed results honestly.",
        "My mom called again about the holidays, you know how she is.",
        "Totally agree. We should catch up properly soon.",
        "Haha, I can picture it perfectly.",
        "What are you up to this weekend?",
        "Not much, just errands and maybe a movie.",
        "I'm so proud of you, seriously.",
        "It's been a tough month but things are looking up.",
    ),
    mention=(
        "My coworker keeps talking about doing a {noun} someday.",
        "Funny, my neighbour has a {noun} story for every occasion.",
        "I saw an ad for a {noun} at {place} last week.",
        "Do you think I'd like a {noun}? I've never tried one.",
        "My sister said she might {base} this year.",
        "Remember when we talked about a {noun} ages ago?",
        "A {noun} sounds fun until you see the price.",
    ),
    event=(
        "Guess what, {when} I {past} at {place}. I came home with {detail}!",
        "{When} I finally {past}. It was at {place} and I ended up with {detail}.",
        "I {past} {when}! It was over at {place}, and now I have {detail}.",
        "So {when} I {past} at {place}, which gave me {detail}. Still smiling about it.",
    ),
    when=("yesterday", "last weekend", "on Saturday", "a few days ago", "last Sunday", "this morning"),
    reply=(
        "Wow, a {noun}! How did it feel?",
        "No way, that's so cool. I'd love to hear more about the {noun}.",
        "That sounds incredible, you deserve it.",
        "Haha, classic. Would you do it again?",
    ),
    love=(
        "Honestly, nothing beats {love}. It's what keeps me sane.",
        "I realised this year how much I love {love}.",
        "You know me, give me {love} and I'm happy.",
    ),
    intro=(
        "At the {noun} I got talking to someone called {friend}, we swapped numbers.",
        "Oh, and I met {friend} at the {noun}, really funny person.",
    ),
    news=(
        "Remember {friend}? Turns out {friend} {job}.",
        "I had coffee with {friend} again, {friend} {job} these days.",
    ),
    q_single=(
        "What did {name} end up with after the {noun}?",
        "Where did {name} {base}?",
        "What came out of {name}'s {noun}?",
    ),
    q_when=("When did {name} {base}?", "When was {name}'s {noun}?"),
    q_month=("What did {name} do in {month} {year}?", "What was {name} up to in {month} {year}?"),
    q_category=("What {category} has {name} tried?", "Which {category} is {name} into?"),
    q_open=("Would {name} enjoy {would}?", "Would {name} likely be interested in {would}?"),
    q_join=(
        "What does the person {name} met at the {noun} do for a living?",
        "What is the job of the friend {name} made at the {noun}?",
    ),
)

HELD_OUT = Style(
    name="held-out",
    held_out=True,
    prefix=True,
    greeting=(
        "Hello hello {other}, it's been ages.",
        "Good evening {other}! Free to talk?",
        "{other}, are you around? I have news.",
    ),
    filler=(
        "Busy busy busy, the office never sleeps.",
        "Ugh, same here {other}.",
        "Time flies, doesn't it?",
        "Can't believe it's nearly {month} already.",
        "You always know what to say.",
        "Love that for you!",
        "Sleep has been rubbish, too much coffee probably.",
        "Family drama again, nothing new.",
        "We need a proper catch-up in person.",
        "LOL, of course.",
        "Plans for the weekend?",
        "Laundry, groceries, the usual glamorous life.",
        "Honestly, respect.",
        "Slowly getting better, one day at a time.",
        "Did you watch that new series everyone is on about?",
    ),
    mention=(
        "A guy at work did a {noun} and wouldn't shut up about it.",
        "My brother had a go at a {noun} once, total disaster.",
        "There's a poster for a {noun} near {place}.",
        "Should I {base} too? Not sure it's my thing.",
        "Everyone on my feed posts about some {noun} these days.",
        "Mum asked if a {noun} is worth it.",
    ),
    event=(
        "Had the best time {when}: {past} over at {place}, and got {detail} out of it.",
        "Quick update: {past} ({when}, {place}). Result: {detail}.",
        "You know how I kept saying I'd do it? {When} I {past}. Place was {place}. Came away with {detail}.",
    ),
    when=("the other day", "on Friday night", "over the long weekend", "earlier this week", "two days ago"),
    reply=(
        "Shut up, a {noun}?! Tell me everything.",
        "Okay that is brilliant.",
        "Ha! I wish I'd been there for the {noun}.",
        "Proud of you, genuinely.",
    ),
    love=(
        "If I'm honest, {love} is my favourite thing in the world.",
        "The older I get, the more I appreciate {love}.",
    ),
    intro=(
        "Made a new friend, {friend}, during the {noun}.",
        "There was this person {friend} at the {noun}, we really clicked.",
    ),
    news=(
        "Update on {friend}: {friend} {job}!",
        "Bumped into {friend}, apparently {friend} {job} now.",
    ),
    q_single=(
        "Which place did {name} pick to {base}?",
        "What did {name} get out of the {noun}?",
        "What was the result of {name}'s {noun}?",
    ),
    q_when=("When did {name} {base}?", "On what date did {name} {base}?"),
    q_month=(
        "What happened to {name} in {month} {year}?",
        "What did {name} get up to during {month} {year}?",
    ),
    q_category=("What {category} does {name} do?", "List the {category} {name} has done."),
    q_open=("Is {name} the kind of person who would like {would}?", "Would {name} sign up for {would}?"),
    q_join=(
        "What work does the friend {name} met during the {noun} do?",
        "What does {name}'s friend from the {noun} do for work?",
    ),
)
