"""What an approval question may grant: once, for the session (and then said so), or never for the session."""

from __future__ import annotations

from pathlib import Path

from engine.events import ApprovalNeeded, ApprovedBySession
from engine.tools.context import Decision
from tests.support.tool_helpers import make_bench


async def test_a_session_approval_covers_later_calls_and_each_is_announced(
    tmp_path: Path, hermes_home: Path
) -> None:
    bench = make_bench(tmp_path, hermes_home)
    bench.user.answers = [Decision.SESSION]
    ask = bench.ctx.ask
    first = await ask(
        "terminal", "rm -r build", "deletes", ("rm:build",), rule="rm", scope="rm -r in ./build"
    )
    second = await ask(
        "terminal", "rm -r build/x", "deletes", ("rm:build",), rule="rm", scope="rm -r in ./build"
    )
    assert (first, second) == (Decision.SESSION, Decision.SESSION)
    assert len(bench.user.requests) == 1  # the second call was not asked
    covered = [e for e in bench.events if isinstance(e, ApprovedBySession)]
    assert [(e.command, e.rule, e.scope) for e in covered] == [("rm -r build/x", "rm", "rm -r in ./build")]
    asked = [e for e in bench.events if isinstance(e, ApprovalNeeded)]
    assert asked[0].scope == "rm -r in ./build" and asked[0].rule == "rm" and asked[0].allow_session


async def test_a_question_that_allows_no_session_approval_counts_a_session_answer_once(
    tmp_path: Path, hermes_home: Path
) -> None:
    bench = make_bench(tmp_path, hermes_home)
    bench.user.answers = [Decision.SESSION, Decision.DENY]
    ask = bench.ctx.ask
    assert (
        await ask("write_file", "config.yaml", "control file", ("cfg",), allow_session=False) is Decision.ONCE
    )
    assert "cfg" not in bench.ctx.state.approvals
    assert (
        await ask("write_file", "config.yaml", "control file", ("cfg",), allow_session=False) is Decision.DENY
    )
    asked = [e for e in bench.events if isinstance(e, ApprovalNeeded)]
    assert len(asked) == 2 and not any(e.allow_session for e in asked)


async def test_yolo_skips_ordinary_questions_but_not_those_that_always_ask(
    tmp_path: Path, hermes_home: Path
) -> None:
    bench = make_bench(tmp_path, hermes_home)
    bench.ctx.yolo = True
    assert await bench.ctx.ask("terminal", "rm -rf build", "deletes") is Decision.ONCE
    assert bench.user.requests == []
    assert await bench.ctx.ask("terminal", "curl x", "leaves the sandbox", always_ask=True) is Decision.DENY
    assert len(bench.user.requests) == 1


async def test_an_answer_nobody_understands_denies(tmp_path: Path, hermes_home: Path) -> None:
    bench = make_bench(tmp_path, hermes_home)
    bench.user.answers = ["yes please"]
    assert await bench.ctx.ask("terminal", "rm -rf build", "deletes", ("rm",)) is Decision.DENY


async def test_every_answer_and_every_call_a_session_approval_covers_is_kept_in_state_db(
    tmp_path: Path, hermes_home: Path
) -> None:
    from engine.sessions.store import SessionStore

    bench = make_bench(tmp_path, hermes_home)
    store = await SessionStore.open(bench.home.state_db)
    try:
        session = await store.create_session(system_prompt="p")
        bench.ctx.session_id = session.id
        bench.ctx.resources["sessions"] = store
        bench.user.answers = [Decision.DENY, Decision.SESSION]
        await bench.ctx.for_call("c1").ask("terminal", "rm -rf /", "deletes", ("rm:/",), rule="rm-recursive")
        await bench.ctx.for_call("c2").ask(
            "terminal", "rm -r b/x", "deletes", ("rm:b",), rule="rm", scope="b"
        )
        await bench.ctx.for_call("c3").ask(
            "terminal", "rm -r b/y", "deletes", ("rm:b",), rule="rm", scope="b"
        )
        rows = await store.approvals(session.id)
    finally:
        await store.close()
    assert [(r["tool_call_id"], r["command"], r["decision"], r["by_session_rule"]) for r in rows] == [
        ("c1", "rm -rf /", "deny", 0),
        ("c2", "rm -r b/x", "session", 0),
        ("c3", "rm -r b/y", "session", 1),
    ]
    assert rows[2]["rule"] == "rm" and rows[2]["scope"] == "b"
