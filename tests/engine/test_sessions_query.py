"""The query sanitiser: anything typed becomes a valid FTS5 query that means what the user meant."""

from __future__ import annotations

import sqlite3

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.sessions.query import MAX_TERMS, is_cjk, parse

HOSTILE = [
    "",
    "   ",
    '"',
    '""',
    '"unbalanced quote',
    'two "balanced" and "one',
    "AND",
    "OR",
    "NOT",
    "AND OR NOT",
    "docker AND",
    "OR docker",
    "NOT docker",
    "docker NOT",
    "a AND AND b",
    "docker-compose up -d",
    "node.js",
    "my_var_name",
    "foo.bar.baz()",
    "*",
    "***",
    "deploy*",
    "*deploy",
    "de*ploy",
    "C++ & C#",
    "^start",
    "col:value",
    "{braces} [brackets] (parens)",
    "NEAR(a b)",
    "a NEAR b",
    "When did Dana start the pottery class?",
    "what's Dana's plan, again?!",
    "price: $5.00 (50% off)",
    "email me@example.com, ok?",
    "path /home/user/.config/app.yaml",
    "数据库",
    "数据",
    "库",
    "部署服务器的时候出现了错误，数据库连接失败。",
    '"数据库 连接"',
    "ｆｕｌｌｗｉｄｔｈ　ｔｅｘｔ？",
    "“curly quotes” and ‘single’",
    "emoji 🎉 party",
    "tab\tand\nnewline",
    "nul\x00byte",
    "\u200bzero\u200bwidth",
    "-",
    "--force",
    "'",
    "it's",
    "x" * 5000,
    " ".join(f"word{i}" for i in range(200)),
]


@pytest.fixture(scope="module")
def fts() -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    conn.execute(
        "CREATE VIRTUAL TABLE words USING fts5(content, tokenize='porter unicode61 remove_diacritics 2')"
    )
    conn.execute("CREATE VIRTUAL TABLE cjk USING fts5(content, tokenize='trigram')")
    conn.execute("INSERT INTO words(content) VALUES ('Dana starts the pottery class; run docker-compose up')")
    conn.execute("INSERT INTO cjk(content) VALUES ('部署服务器的时候数据库连接失败  ')")
    return conn


def _assert_valid(conn: sqlite3.Connection, text: str) -> None:
    query = parse(text)
    expression = query.expression()
    if not expression:
        assert query.empty
        return
    words = query.expression(tuple(t for t in query.terms if not t.cjk))
    cjk = query.expression(tuple(t for t in query.terms if t.cjk))
    if words:
        conn.execute("SELECT count(*) FROM words WHERE words MATCH ?", (words,)).fetchall()
    if cjk:
        conn.execute("SELECT count(*) FROM cjk WHERE cjk MATCH ?", (cjk,)).fetchall()
    if query.boolean:
        conn.execute("SELECT count(*) FROM words WHERE words MATCH ?", (expression,)).fetchall()


@pytest.mark.parametrize("text", HOSTILE)
def test_every_hostile_query_is_valid_fts5(fts: sqlite3.Connection, text: str) -> None:
    _assert_valid(fts, text)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=80))
def test_any_text_at_all_is_valid_fts5(text: str) -> None:
    conn = sqlite3.connect(":memory:")
    conn.execute(
        "CREATE VIRTUAL TABLE words USING fts5(content, tokenize='porter unicode61 remove_diacritics 2')"
    )
    conn.execute("CREATE VIRTUAL TABLE cjk USING fts5(content, tokenize='trigram')")
    _assert_valid(conn, text)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from(['"', "*", "-", ".", "AND", "OR", "NOT", "(", ")", ":", "^", "docker", "数据", "a"]),
        max_size=12,
    )
)
def test_operator_soup_is_valid_fts5(parts: list[str]) -> None:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE words USING fts5(content, tokenize='porter unicode61')")
    conn.execute("CREATE VIRTUAL TABLE cjk USING fts5(content, tokenize='trigram')")
    _assert_valid(conn, " ".join(parts))


def test_a_question_keeps_its_content_words_joined_by_or() -> None:
    query = parse("When did Dana start the pottery class?")
    assert [t.text for t in query.terms] == ["dana", "start", "pottery", "class"]
    assert query.expression() == '"dana" OR "start" OR "pottery" OR "class"'
    assert not query.boolean
    assert "when" in query.dropped and "the" in query.dropped


def test_possessives_and_contractions_do_not_leave_stray_letters() -> None:
    assert [t.text for t in parse("What's Dana's plan?").terms] == ["dana", "plan"]


def test_a_query_of_stopwords_only_still_searches_them() -> None:
    assert [t.text for t in parse("what is it").terms] == ["what", "is", "it"]


def test_quoted_text_is_an_exact_phrase() -> None:
    query = parse('the "pottery class" thing')
    phrase = next(t for t in query.terms if t.quoted)
    assert phrase.text == "pottery class" and phrase.phrase
    assert phrase.fts() == '"pottery class"'


def test_dotted_hyphenated_and_underscored_names_are_phrases_of_their_parts() -> None:
    texts = {t.text: t.phrase for t in parse("node.js docker-compose my_var").terms}
    assert texts == {"node js": True, "docker compose": True, "my var": True}


def test_trailing_star_asks_for_a_prefix_and_a_lone_star_is_dropped() -> None:
    query = parse("deploy* *")
    assert [(t.text, t.prefix) for t in query.terms] == [("deploy", True)]
    assert query.expression() == '"deplo" *'  # porter would stem the whole prefix


def test_capital_operators_make_a_boolean_query_and_dangling_ones_are_dropped() -> None:
    query = parse("AND docker AND compose NOT swarm OR")
    assert query.boolean
    assert query.expression() == '"docker" AND "compose" NOT "swarm"'
    assert parse("docker compose AND swarm").expression() == '"docker" AND "compose" AND "swarm"'


def test_or_only_queries_are_questions_and_lowercase_words_are_not_operators() -> None:
    assert not parse("cats OR dogs").boolean
    assert not parse("cats and dogs").boolean


def test_cjk_terms_are_flagged_for_the_trigram_index() -> None:
    terms = parse("部署 docker").terms
    assert [(t.text, t.cjk) for t in terms] == [("部署", True), ("docker", False)]
    assert is_cjk("ひらがな") and is_cjk("한국어") and not is_cjk("café")


def test_a_long_unquoted_cjk_run_becomes_overlapping_trigrams_but_a_quoted_one_stays_whole() -> None:
    split = parse("部署服务器的时候").terms
    assert [t.text for t in split] == ["部署服", "署服务", "服务器", "务器的", "器的时", "的时候"]
    assert [t.text for t in parse('"部署服务器的时候"').terms] == ["部署服务器的时候"]


def test_full_width_and_curly_quotes_are_normalised() -> None:
    assert [t.text for t in parse("ｄｏｃｋｅｒ").terms] == ["docker"]
    assert parse("“pottery class”").terms[0].quoted


def test_the_number_of_terms_is_capped() -> None:
    assert len(parse(" ".join(f"word{i}" for i in range(200))).terms) == MAX_TERMS
