"""Bad input: config, memory files, SKILL.md, scenario files, FTS queries and the model's tool arguments.

Random bytes, non-UTF-8, 10 MB files, deep YAML, anchor bombs, NUL bytes, huge lines, symlink loops,
`..` and absolute paths, names with control characters: each is a clear error or is handled, and
nothing ends in a traceback. Property-based with hypothesis (more examples with `--slow`) plus a
hand-written matrix run through the real `hws` entry point.
"""

from __future__ import annotations

import asyncio
import json
import os
import string
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.cli import main as hws_main
from engine.config import ConfigError, load_config
from engine.home import Home
from engine.memory.format import MemoryRefused
from engine.memory.store import Memory, MemoryStore
from engine.model_server.parsing import load_scenario, parse_scenario
from engine.model_server.scenario import ScenarioError
from engine.sessions.errors import StoreError
from engine.sessions.store import SessionStore
from engine.skills.library import SkillLibrary
from tests.support.fault_support import assert_clean_exit, hws
from tests.support.tool_helpers import make_bench

EXAMPLES = 400 if os.environ.get("HWS_SLOW") else 40
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
RUNS: Counter[str] = Counter()  # examples each property ran, printed at the end of the module
SLOW = bool(os.environ.get("HWS_SLOW"))
BUG = ("TypeError", "AttributeError", "KeyError", "IndexError", "RecursionError", "UnboundLocalError")

# ── the hostile files every loader meets ────────────────────────────────────────────────────────────
DEEP_YAML = "a: " + "[" * 5000 + "]" * 5000 + "\n"
DEEP_MAP = "".join(f"{' ' * i}k{i}:\n" for i in range(3000)) + " " * 3000 + "v: 1\n"
ANCHOR_BOMB = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(8)
)
HOSTILE_TEXTS: dict[str, bytes] = {
    "random bytes": bytes(range(256)) * 40,
    "non-UTF-8": "caf\xe9 and na\xefve".encode("latin-1") + b"\nkey: \xff\xfe\n",
    "NUL bytes": b"model:\n  default: a\x00b\n\x00\x00\x00",
    "huge line": b"model: {default: " + b"x" * 3_000_000 + b"}\n",
    "10 MB": b"# filler\n" * 1_200_000,
    "deep YAML": DEEP_YAML.encode(),
    "deep mapping": DEEP_MAP.encode(),
    "anchor bomb": ANCHOR_BOMB.encode(),
    "control characters": b"model:\n  default: \x1b[31mred\x07\x08\n",
    "empty": b"",
    "only a BOM": b"\xef\xbb\xbf",
    "a scalar": b"just a sentence\n",
    "a list": b"- 1\n- 2\n",
}


def cli(*argv: str) -> tuple[int, str, str]:
    """`hws ARGV` in this process (the same `main` the console script calls), its code and output."""
    import contextlib
    import io

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = hws_main(list(argv))
    return code, out.getvalue(), err.getvalue()


def assert_sentence(code: int, err: str, codes: tuple[int, ...] = (0, 1, 2)) -> None:
    assert code in codes, (code, err[-2000:])
    assert "Traceback" not in err and "unexpected error" not in err, err[-2000:]


def _place(path: Path, data: bytes | None = None, link: str | None = None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.is_symlink() or path.is_file():
        path.unlink()
    if link is not None:
        path.symlink_to(link)
    elif data is not None:
        path.write_bytes(data)


# ── config ──────────────────────────────────────────────────────────────────────────────────────────


@pytest.mark.parametrize("name", sorted(HOSTILE_TEXTS))
def test_hostile_config_files_are_a_sentence(name: str, hermes_home: Path) -> None:
    home = Home.resolve(hermes_home).ensure()
    _place(home.config_file, HOSTILE_TEXTS[name])
    for argv in (
        ["config"],
        ["config", "--json"],
        ["memory", "show"],
        ["skills", "list"],
        ["run", "--scripted", "hi"],
    ):
        code, _, err = cli("--home", str(home.root), *argv)
        assert_sentence(code, err)


@pytest.mark.parametrize("kind", ["symlink loop", "a folder", "symlink outside"])
def test_config_that_is_not_a_file_is_a_sentence(kind: str, hermes_home: Path, tmp_path: Path) -> None:
    home = Home.resolve(hermes_home).ensure()
    if kind == "symlink loop":
        _place(home.config_file, link="config.yaml")
    elif kind == "a folder":
        home.config_file.mkdir()
    else:
        (tmp_path / "elsewhere.yaml").write_text("model: {default: x}\n")
        _place(home.config_file, link=str(tmp_path / "elsewhere.yaml"))
    code, _, err = cli("--home", str(home.root), "config")
    assert_sentence(code, err)


@FUZZ
@given(data=st.binary(max_size=3000))
def test_config_loader_never_raises_anything_but_config_error(data: bytes, tmp_path: Path) -> None:
    RUNS["test_config_loader_never_raises_anything_but_config_error"] += 1
    root = tmp_path / "fuzz-config"
    root.mkdir(exist_ok=True)
    (root / "config.yaml").write_bytes(data)
    try:
        load_config(root)
    except ConfigError as exc:
        assert str(exc).strip()


YAMLISH = st.text(alphabet=string.printable + "§é中\t", max_size=400)


@FUZZ
@given(text=YAMLISH, env=st.text(alphabet=string.printable + "\x00é", max_size=200))
def test_yaml_like_config_and_env_text(text: str, env: str, tmp_path: Path) -> None:
    RUNS["test_yaml_like_config_and_env_text"] += 1
    root = tmp_path / "fuzz-yaml"
    root.mkdir(exist_ok=True)
    (root / "config.yaml").write_text(text, encoding="utf-8")
    (root / ".env").write_text(env, encoding="utf-8")
    try:
        load_config(root)
    except ConfigError as exc:
        assert str(exc).strip()


# ── memory files ────────────────────────────────────────────────────────────────────────────────────


@pytest.mark.parametrize("name", sorted(HOSTILE_TEXTS))
def test_hostile_memory_files_are_refused_or_read_and_never_damaged(name: str, hermes_home: Path) -> None:
    home = Home.resolve(hermes_home).ensure()
    path = home.memories / "MEMORY.md"
    _place(path, HOSTILE_TEXTS[name])
    for argv in (["memory", "show"], ["memory", "add", "The kiln is in the garage."], ["prompt"]):
        code, _, err = cli("--home", str(home.root), *argv)
        assert_sentence(code, err)
    after = path.read_bytes()
    original = HOSTILE_TEXTS[name]
    assert after == original or after.startswith(original.rstrip()), "the file was rewritten, not appended to"


@pytest.mark.parametrize("kind", ["symlink loop", "a folder", "symlink outside the home", "dangling symlink"])
def test_memory_paths_that_are_not_files(kind: str, hermes_home: Path, tmp_path: Path) -> None:
    home = Home.resolve(hermes_home).ensure()
    path = home.memories / "MEMORY.md"
    outside = tmp_path / "outside.md"
    outside.write_text("Someone else's file.")
    if kind == "symlink loop":
        _place(path, link="MEMORY.md")
    elif kind == "a folder":
        path.mkdir()
    elif kind == "dangling symlink":
        _place(path, link=str(tmp_path / "missing.md"))
    else:
        _place(path, link=str(outside))
    for argv in (["memory", "show"], ["memory", "add", "The kiln is in the garage."], ["prompt"]):
        code, _, err = cli("--home", str(home.root), *argv)
        assert_sentence(code, err)
    assert outside.read_text() == "Someone else's file.", "a write followed a symlink out of the home"
    memory = Memory(home)
    memory.load_snapshot()  # the prompt's snapshot is built, whatever the file is


@FUZZ
@given(text=st.text(max_size=600), entry=st.text(max_size=120))
def test_memory_store_on_any_text(text: str, entry: str, tmp_path: Path) -> None:
    RUNS["test_memory_store_on_any_text"] += 1
    home = Home(tmp_path / "fuzz-memory").ensure()
    path = home.memories / "MEMORY.md"
    try:
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
    except UnicodeEncodeError:
        return
    store = MemoryStore(home, "memory", limit=2200)
    try:
        store.entries()
    except MemoryRefused:
        pass
    result = store.add(entry)
    assert isinstance(result, dict) and ("error" in result or result.get("success"))
    if not result.get("success"):
        assert str(result["error"]).strip()


# ── skills ──────────────────────────────────────────────────────────────────────────────────────────


def _skill_frontmatter(front: bytes) -> bytes:
    return b"---\n" + front + b"\n---\n\n# Body\n\nStep one.\n"


@pytest.mark.parametrize("name", sorted(HOSTILE_TEXTS))
def test_hostile_skill_files_are_warnings_not_crashes(name: str, hermes_home: Path) -> None:
    home = Home.resolve(hermes_home).ensure()
    data = HOSTILE_TEXTS[name]
    _place(home.skills / "whole" / "SKILL.md", data)
    _place(home.skills / "front" / "SKILL.md", _skill_frontmatter(data[:2_000_000]))
    for argv in (["skills", "list"], ["skills", "index"], ["skills", "view", "front"], ["prompt"]):
        code, _, err = cli("--home", str(home.root), *argv)
        assert_sentence(code, err)


@pytest.mark.parametrize(
    "kind",
    ["symlink loop", "link to the root", "control characters in names", "dotdot name", "absolute name"],
)
def test_skill_trees_with_traps(kind: str, hermes_home: Path) -> None:
    home = Home.resolve(hermes_home).ensure()
    skills = home.skills
    if kind == "symlink loop":
        (skills / "cat").mkdir(parents=True)
        (skills / "cat" / "loop").symlink_to("..")
        (skills / "self").symlink_to("self")
    elif kind == "link to the root":
        (skills / "root").symlink_to("/")
    elif kind == "control characters in names":
        _place(
            skills / "bad\x1b[31mname\x07" / "SKILL.md", b"---\nname: \x1b[2Jevil\x07\ndescription: x\n---\n"
        )
    elif kind == "dotdot name":
        _place(skills / "up" / "SKILL.md", b"---\nname: ../../escape\ndescription: Climbs out.\n---\nbody\n")
    else:
        _place(skills / "abs" / "SKILL.md", b"---\nname: /etc/passwd\ndescription: Absolute.\n---\nbody\n")
    catalog = SkillLibrary(home).catalog()
    for skill in catalog.skills:
        assert "\x1b" not in skill.name and "\x07" not in skill.name and "/" not in skill.name
    for argv in (["skills", "list"], ["skills", "view", "../../escape"], ["skills", "view", "/etc/passwd"]):
        code, out, err = cli("--home", str(home.root), *argv)
        assert_sentence(code, err)
        assert "root:x:0:0" not in out
    assert not (home.root.parent / "escape").exists()


@FUZZ
@given(front=st.text(alphabet=string.printable + "é中\x00\x1b", max_size=300))
def test_frontmatter_of_any_text(front: str, tmp_path: Path) -> None:
    RUNS["test_frontmatter_of_any_text"] += 1
    home = Home(tmp_path / "fuzz-skill").ensure()
    path = home.skills / "fuzzed" / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\n{front}\n---\nbody\n", encoding="utf-8")
    catalog = SkillLibrary(home).catalog()
    assert isinstance(catalog.skills, list)


# ── scenario files ──────────────────────────────────────────────────────────────────────────────────


@pytest.mark.parametrize("name", sorted(HOSTILE_TEXTS))
def test_hostile_scenario_files_are_a_sentence(name: str, tmp_path: Path, hermes_home: Path) -> None:
    path = tmp_path / "scenario.yaml"
    path.write_bytes(HOSTILE_TEXTS[name])
    try:
        load_scenario(path)
    except ScenarioError as exc:
        assert str(exc).strip()
    code, _, err = cli("--home", str(hermes_home), "model-server", str(path), "--check")
    assert_sentence(code, err)
    code, _, err = cli("--home", str(hermes_home), "run", "--scenario", str(path), "hello")
    assert_sentence(code, err)


@FUZZ
@given(text=YAMLISH)
def test_scenario_parser_never_raises_anything_but_scenario_error(text: str) -> None:
    RUNS["test_scenario_parser_never_raises_anything_but_scenario_error"] += 1
    try:
        parse_scenario("rules:\n" + text)
    except ScenarioError as exc:
        assert str(exc).strip()
    try:
        parse_scenario(text)
    except ScenarioError as exc:
        assert str(exc).strip()


# ── search queries ──────────────────────────────────────────────────────────────────────────────────

QUERIES = [
    '"',
    '"unbalanced',
    "AND",
    "OR OR NOT",
    "NEAR(",
    "NEAR(a b, -1)",
    "*",
    "a*b*",
    "^start",
    "col:umn",
    "messages_fts MATCH x",
    "'; DROP TABLE messages; --",
    "\x00",
    "\x1b[31m",
    "(((",
    ")",
    "-",
    "+-+-",
    "中文检索",
    "é" * 5000,
    "word " * 2000,
    "{}[]<>",
    "%_\\",
]


@pytest.fixture
def populated(hermes_home: Path) -> Home:
    home = Home.resolve(hermes_home).ensure()

    async def fill() -> None:
        store = await SessionStore.open(home.state_db)
        session = await store.create_session(title="Kiln notes")
        for text in ("The kiln fired at cone six.", "Glaze crawled on the bowl.", "中文的陶艺笔记"):
            await store.append_message(session.id, "user", text)
        await store.close()

    asyncio.run(fill())
    return home


@pytest.mark.parametrize("query", QUERIES, ids=range(len(QUERIES)))
def test_hostile_search_queries(query: str, populated: Home) -> None:
    code, out, err = cli("--home", str(populated.root), "sessions", "search", query, "--json")
    assert_sentence(code, err)
    if code == 0:
        json.loads(out)
    code, _, err = cli("--home", str(populated.root), "sessions", "show", query)
    assert_sentence(code, err)


@FUZZ
@given(query=st.text(max_size=80))
def test_search_of_any_text(query: str, populated: Home) -> None:
    RUNS["test_search_of_any_text"] += 1

    async def search() -> None:
        store = await SessionStore.open(populated.state_db)
        try:
            await store.search(query, limit=5)
        except StoreError as exc:
            assert str(exc).strip()
        finally:
            await store.close()

    asyncio.run(search())


# ── the model's tool arguments ──────────────────────────────────────────────────────────────────────

PATHS = [
    "../../../../etc/passwd",
    "/etc/passwd",
    "~/.ssh/id_rsa",
    "notes\x00.txt",
    "bad\x1b[31mname\x07.txt",
    "a/" * 600 + "deep.txt",
    "x" * 5000,
    "loop/file.txt",
    "fifo",
    "zero",
    "",
    ".",
    "..",
    "/",
    "/proc/self/environ",
]
TOOL_ARGUMENTS: list[tuple[str, Callable[[str], dict[str, object]]]] = [
    ("read_file", lambda p: {"path": p}),
    ("write_file", lambda p: {"path": p, "content": "hello"}),
    ("patch", lambda p: {"path": p, "old_string": "a", "new_string": "b"}),
    ("search_files", lambda p: {"pattern": "a", "path": p}),
    ("skill_view", lambda p: {"name": p}),
    ("skill_view", lambda p: {"name": "kiln", "file_path": p}),
    ("skill_manage", lambda p: {"action": "create", "name": p, "content": "---\nname: x\n---\n"}),
    ("skill_manage", lambda p: {"action": "write_file", "name": "kiln", "file_path": p, "file_content": "x"}),
]


@pytest.fixture
def bench(tmp_path: Path, hermes_home: Path):  # type: ignore[no-untyped-def]
    bench = make_bench(tmp_path, hermes_home)
    (bench.cwd / "loop").symlink_to("loop")
    os.mkfifo(bench.cwd / "fifo")
    (bench.cwd / "zero").symlink_to("/dev/zero")
    (bench.home.skills / "kiln").mkdir(parents=True)
    (bench.home.skills / "kiln" / "SKILL.md").write_text(
        "---\nname: kiln\ndescription: Fires a kiln. Use when firing.\n---\n\n# Kiln\n\nVent it.\n"
    )
    return bench


def _check_outcome(outcome: object, name: str) -> None:
    content = str(getattr(outcome, "content", ""))
    assert not any(f"failed: {bug}" in content for bug in BUG), content[:500]


@pytest.mark.parametrize("index", range(len(TOOL_ARGUMENTS)))
async def test_hostile_paths_in_tool_arguments(index: int, bench) -> None:  # type: ignore[no-untyped-def]
    name, make = TOOL_ARGUMENTS[index]
    for path in PATHS:
        outcome = await asyncio.wait_for(bench.call(name, make(path)), timeout=20)
        _check_outcome(outcome, name)
        assert "root:x:0:0" not in str(outcome.content)
    assert not Path("/etc/hello").exists()
    assert bench.user.requests == [] or all(r.command for r in bench.user.requests)


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=40),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12,
)
TOOL_NAMES = ["read_file", "write_file", "patch", "search_files", "terminal", "todo", "memory", "skill_view",
              "skill_manage", "skills_list", "session_search", "no_such_tool"]  # fmt: skip


@FUZZ
@given(name=st.sampled_from(TOOL_NAMES), arguments=st.dictionaries(st.text(max_size=12), JSONISH, max_size=5))
async def test_any_arguments_for_any_tool(name: str, arguments: dict[str, object], bench) -> None:  # type: ignore[no-untyped-def]
    RUNS["test_any_arguments_for_any_tool"] += 1
    if name == "terminal":
        arguments.pop("command", None)  # never run random commands; the rest of its schema is fuzzed
    outcome = await asyncio.wait_for(bench.call(name, arguments), timeout=20)
    _check_outcome(outcome, name)


@FUZZ
@given(raw=st.text(max_size=200))
async def test_any_raw_argument_text(raw: str, bench) -> None:  # type: ignore[no-untyped-def]
    outcome = await asyncio.wait_for(bench.call("read_file", raw), timeout=20)
    _check_outcome(outcome, "read_file")


def test_the_real_cli_prints_sentences_for_a_broken_home(hermes_home: Path) -> None:
    RUNS["test_any_raw_argument_text"] += 1
    """The console script itself (a separate process) on a home whose every file is hostile."""
    home = Home.resolve(hermes_home).ensure()
    _place(home.config_file, HOSTILE_TEXTS["anchor bomb"])
    _place(home.memories / "MEMORY.md", HOSTILE_TEXTS["non-UTF-8"])
    _place(home.skills / "x" / "SKILL.md", HOSTILE_TEXTS["deep YAML"])
    _place(home.state_db, HOSTILE_TEXTS["random bytes"])
    for argv in (
        ["config"],
        ["memory", "show"],
        ["skills", "list"],
        ["sessions", "list"],
        ["run", "--scripted", "hi"],
    ):
        assert_clean_exit(hws(*argv, home=home.root))


# ── the console script, as a separate process, on every hostile file at once ───────────────────────

CONSOLE_KINDS = sorted(HOSTILE_TEXTS) if SLOW else ["NUL bytes", "anchor bomb", "deep YAML", "non-UTF-8"]


@pytest.mark.parametrize("name", CONSOLE_KINDS)
def test_the_console_script_on_hostile_files(name: str, tmp_path: Path) -> None:
    """`hws` subcommands (real processes) on a hostile config, or hostile memory, skill and scenario files."""
    data = HOSTILE_TEXTS[name]
    broken_config = Home(tmp_path / "config-home").ensure()
    _place(broken_config.config_file, data)
    for argv in (["config"], ["memory", "show"], ["run", "--scripted", "hi"]):
        assert_clean_exit(hws(*argv, home=broken_config.root))
    home = Home(tmp_path / "files-home").ensure()
    _place(home.memories / "MEMORY.md", data)
    _place(home.memories / "USER.md", data)
    _place(home.skills / "hostile" / "SKILL.md", _skill_frontmatter(data[:2_000_000]))
    scenario = tmp_path / "scenario.yaml"
    scenario.write_bytes(data)
    for argv in (
        ["memory", "show"],
        ["memory", "add", "The kiln is in the garage."],
        ["skills", "list"],
        ["skills", "view", "hostile"],
        ["prompt"],
        ["model-server", str(scenario), "--check"],
        ["run", "--scenario", str(scenario), "hello"],
        ["sessions", "search", data[:200].decode("utf-8", "replace").replace("\x00", "")],
    ):
        assert_clean_exit(hws(*argv, home=home.root))


@pytest.fixture(scope="module", autouse=True)
def _print_example_counts(request: pytest.FixtureRequest):  # type: ignore[no-untyped-def]
    yield
    if RUNS:
        total = sum(RUNS.values())
        line = f"fuzz: {total:,} generated inputs over {len(RUNS)} properties (at most {EXAMPLES} each)"
        capture = request.config.pluginmanager.getplugin("capturemanager")
        with capture.global_and_fixture_disabled():  # what capsys.disabled() does, for a module fixture
            print(f"\n{line}")
