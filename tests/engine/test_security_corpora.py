"""Security: the skills guard against our corpora (rates printed), and the file tools and skill_manage
confined to the working directory and the home — `..`, absolute paths and symlinks included.

The threat scanner's own corpora and rates are in `tests/engine/test_threats.py`; secrets in
`tests/engine/test_security_secrets.py`.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from pathlib import Path

import pytest

from engine.skills.guard import decide, scan_folder
from tests.support.guard_corpus import GUARD_ATTACKS, GUARD_BENIGN, Body
from tests.support.skills_support import skill_text, write_skill
from tests.support.tool_helpers import Bench, make_bench

DETECTION_AIM = 0.95
FALSE_POSITIVE_AIM = 0.02


def _scan(root: Path, index: int, body: Body) -> str:
    """The guard's verdict on a skill whose SKILL.md body (or support files) is `body`."""
    files = body if isinstance(body, dict) else {}
    text = skill_text(f"corpus-{index}", body="Step one." if isinstance(body, dict) else body)
    folder = write_skill(root, f"corpus-{index}", text, **{k.replace("/", "__"): v for k, v in files.items()})
    return scan_folder(folder, trust="community").verdict


def test_guard_corpus_rates(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Caught = a community install is stopped (caution or dangerous); dangerous also makes the agent ask."""
    attacks = [
        (category, _scan(tmp_path / "attacks", i, body)) for i, (category, body) in enumerate(GUARD_ATTACKS)
    ]
    benign = [_scan(tmp_path / "benign", i, body) for i, body in enumerate(GUARD_BENIGN)]
    stopped = [c for c, verdict in attacks if decide(verdict, "community").action != "allow"]
    dangerous = [c for c, verdict in attacks if verdict == "dangerous"]
    refused = [v for v in benign if decide(v, "community").action != "allow"]
    asked = [v for v in benign if decide(v, "agent-created").action != "allow"]
    missed = Counter(c for c, _ in attacks) - Counter(stopped)
    with capsys.disabled():
        print(
            f"\nskills guard corpus: {len(stopped)}/{len(attacks)} attacks stopped at install "
            f"({len(stopped) / len(attacks):.1%}), {len(dangerous)}/{len(attacks)} dangerous "
            f"(an agent-created skill needs the user's yes); benign refused {len(refused)}/{len(benign)} "
            f"({len(refused) / len(benign):.1%}), benign needing a yes {len(asked)}/{len(benign)}; "
            f"missed by category: {dict(missed) or 'none'}"
        )
    assert len(stopped) >= DETECTION_AIM * len(attacks)
    assert len(refused) <= FALSE_POSITIVE_AIM * len(benign)


def test_guard_corpus_covers_every_disguise_and_many_languages() -> None:
    categories = Counter(category for category, _ in GUARD_ATTACKS)
    for needed in (
        "exfil",
        "persist",
        "destroy",
        "remote",
        "inject",
        "language",
        "invisible",
        "homoglyph",
        "encoded",
    ):
        assert categories[needed] >= 3, needed
    assert categories["language"] >= 10


# ── confinement: the file tools ─────────────────────────────────────────────────────────────────────

SECRET = "PRIVATE-OUTSIDE-CONTENT"


@pytest.fixture
def jail(tmp_path: Path, hermes_home: Path) -> tuple[Bench, Path]:
    """A bench whose working directory and home hold every kind of way out, and a folder outside both."""
    bench = make_bench(tmp_path, hermes_home)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET)
    cwd = bench.cwd
    (cwd / "dir-link").symlink_to(outside)
    (cwd / "file-link").symlink_to(outside / "secret.txt")
    (cwd / "dangling-link").symlink_to(outside / "new.txt")
    (cwd / "chain-a").symlink_to("chain-b")
    (cwd / "chain-b").symlink_to(outside / "secret.txt")
    (bench.home.root / "home-link").symlink_to(outside)
    return bench, outside


ROUTES = [
    "../outside/secret.txt",
    "sub/../../outside/secret.txt",
    "{outside}/secret.txt",
    "dir-link/secret.txt",
    "file-link",
    "chain-a",
    "~/.hermes/home-link/secret.txt",
    "$HERMES_HOME/home-link/secret.txt",
]
WRITE_ROUTES = [*ROUTES, "dangling-link", "dir-link/new.txt", "{outside}/new.txt"]


def _route(route: str, outside: Path) -> str:
    return route.replace("{outside}", str(outside))


@pytest.mark.parametrize("route", ROUTES)
async def test_reads_out_of_bounds_ask_first_and_a_no_reads_nothing(
    jail: tuple[Bench, Path], route: str
) -> None:
    bench, outside = jail
    for tool, args in (("read_file", {}), ("search_files", {"pattern": "PRIVATE"})):
        before = len(bench.user.requests)
        outcome = await bench.call(tool, {**args, "path": _route(route, outside)})
        assert SECRET not in outcome.content, (tool, route)
        assert not outcome.ok and len(bench.user.requests) == before + 1, (tool, route, outcome.content)


async def test_a_search_of_the_working_directory_never_follows_links_out(jail: tuple[Bench, Path]) -> None:
    bench, _ = jail
    outcome = await bench.call("search_files", {"pattern": "PRIVATE"})
    assert SECRET not in outcome.content and bench.user.requests == []
    files = await bench.call("search_files", {"pattern": "*", "target": "files"})
    assert "secret.txt" not in files.content


@pytest.mark.parametrize("route", WRITE_ROUTES)
async def test_writes_out_of_bounds_ask_first_and_a_no_writes_nothing(
    jail: tuple[Bench, Path], route: str
) -> None:
    bench, outside = jail
    before = sorted((p.name, p.read_bytes()) for p in outside.iterdir())
    for tool, args in (
        ("write_file", {"content": "overwritten"}),
        ("patch", {"old_string": "PRIVATE", "new_string": "PUBLIC"}),
    ):
        outcome = await bench.call(tool, {**args, "path": _route(route, outside)})
        assert not outcome.ok, (tool, route, outcome.content)
    assert sorted((p.name, p.read_bytes()) for p in outside.iterdir()) == before
    assert bench.user.requests and all(r.tool in ("write_file", "patch") for r in bench.user.requests)


async def test_a_yes_is_needed_once_per_folder_and_works(jail: tuple[Bench, Path]) -> None:
    """The approval is the way out, and the only one: after a yes the write lands where the link pointed."""
    bench, outside = jail
    bench.user.answers = ["once"]
    outcome = await bench.call("write_file", {"path": "dir-link/approved.txt", "content": "fine"})
    assert outcome.ok and (outside / "approved.txt").read_text() == "fine"


# ── confinement: skill_manage ───────────────────────────────────────────────────────────────────────

GOOD = (
    "---\nname: {name}\ndescription: Notes on {name}. Use when it comes up.\n---\n\n# {name}\n\nStep one.\n"
)


@pytest.fixture
def skills(tmp_path: Path, hermes_home: Path) -> tuple[Bench, Path]:
    bench = make_bench(tmp_path, hermes_home)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "SKILL.md").write_text(GOOD.format(name="victim"))
    (outside / "keep.txt").write_text(SECRET)
    return bench, outside


def _snapshot(folder: Path) -> list[tuple[str, bytes]]:
    return sorted((str(p.relative_to(folder)), p.read_bytes()) for p in folder.rglob("*") if p.is_file())


@pytest.mark.parametrize(
    "args",
    [
        {"action": "create", "name": "../../outside", "content": GOOD.format(name="x")},
        {
            "action": "create",
            "name": "ok-name",
            "category": "../../outside",
            "content": GOOD.format(name="ok-name"),
        },
        {"action": "create", "name": "ok-name", "category": "/tmp", "content": GOOD.format(name="ok-name")},
        {
            "action": "write_file",
            "name": "kiln",
            "file_path": "../../../outside/keep.txt",
            "file_content": "x",
        },
        {"action": "write_file", "name": "kiln", "file_path": "{outside}/keep.txt", "file_content": "x"},
        {
            "action": "write_file",
            "name": "kiln",
            "file_path": "references/../../../outside/x.md",
            "file_content": "x",
        },
        {"action": "write_file", "name": "kiln", "file_path": "out/keep.txt", "file_content": "x"},
        {"action": "remove_file", "name": "kiln", "file_path": "out/keep.txt"},
        {
            "action": "patch",
            "name": "kiln",
            "file_path": "out/keep.txt",
            "old_string": "PRIVATE",
            "new_string": "P",
        },
        {"action": "patch", "name": "victim", "old_string": "Step one.", "new_string": "Step two."},
        {"action": "edit", "name": "victim", "content": GOOD.format(name="victim") + "changed\n"},
        {"action": "delete", "name": "victim"},
    ],
    ids=lambda a: f"{a['action']}-{a.get('file_path') or a.get('category') or a['name']}",
)
async def test_skill_manage_never_writes_outside_the_skills_folder(
    skills: tuple[Bench, Path], args: dict[str, str]
) -> None:
    bench, outside = skills
    kiln = bench.home.skills / "kiln"
    kiln.mkdir(parents=True)
    (kiln / "SKILL.md").write_text(GOOD.format(name="kiln"))
    (kiln / "out").symlink_to(outside)  # a link inside a skill pointing out of the home
    (bench.home.skills / "victim").symlink_to(outside)  # a whole skill folder that is a link out
    before = _snapshot(outside)
    call = {k: v.replace("{outside}", str(outside)) for k, v in args.items()}
    outcome = await bench.call("skill_manage", call)
    assert _snapshot(outside) == before, outcome.content
    assert (
        not (bench.home.root.parent / "outside").exists() or (bench.home.root.parent / "outside") == outside
    )
    assert SECRET not in outcome.content


async def test_skill_view_never_reads_through_a_link_out(skills: tuple[Bench, Path]) -> None:
    bench, outside = skills
    kiln = bench.home.skills / "kiln"
    kiln.mkdir(parents=True)
    (kiln / "SKILL.md").write_text(GOOD.format(name="kiln"))
    (kiln / "references").symlink_to(outside)
    os.symlink(outside / "keep.txt", kiln / "notes.md")
    for file_path in (
        "references/keep.txt",
        "notes.md",
        "../../../outside/keep.txt",
        str(outside / "keep.txt"),
    ):
        outcome = await bench.call("skill_view", {"name": "kiln", "file_path": file_path})
        assert SECRET not in outcome.content, file_path


# ── servers listen on loopback only ─────────────────────────────────────────────────────────────────


def _listening_addresses(port: int) -> set[str]:
    """Local addresses of the sockets listening on `port`, read from /proc/net/tcp{,6}."""
    found: set[str] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            rows = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            local, state = row.split()[1], row.split()[3]
            address, _, hex_port = local.partition(":")
            if state == "0A" and int(hex_port, 16) == port:  # 0A: LISTEN
                found.add(address)
    return found


@pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="needs Linux /proc/net/tcp")
def test_the_model_server_listens_on_loopback_only(hermes_home: Path) -> None:
    """`hws model-server` (our only server command) binds 127.0.0.1, never every interface."""
    import re
    import signal

    from tests.support.fault_support import hws_popen

    hermes_home.mkdir(parents=True, exist_ok=True)
    server = hws_popen("model-server", home=hermes_home, cwd=hermes_home)
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
        match = re.search(r"http://127\.0\.0\.1:(\d+)/v1", line)
        assert match, line
        assert _listening_addresses(int(match.group(1))) == {"0100007F"}  # 127.0.0.1, and nothing else
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=20)


@pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="needs Linux /proc/net/tcp")
def test_hws_serve_listens_on_loopback_only_by_default(hermes_home: Path) -> None:
    """`hws serve` with no --host: the browser workstation is reachable from this machine alone."""
    pytest.importorskip("textual_serve")
    from tests.cli.test_serve import Served, free_port

    hermes_home.mkdir(parents=True, exist_ok=True)
    port = free_port()
    served = Served(hermes_home, "--port", str(port))
    try:
        url = served.wait_ready()
        assert url.startswith("http://127.0.0.1:"), url
        for _ in range(100):  # the web server may bind a moment after the line is printed
            if _listening_addresses(port):
                break
            time.sleep(0.1)
        assert _listening_addresses(port) == {"0100007F"}
    finally:
        served.stop()
