"""What an approval question may grant: once, for the session (and then said so), or never for the session."""

from __future__ import annotations

from pathlib import Path

from engine.events import ApprovalNeeded, ApprovedBySession
from engine.tools import Decision
from tests.tool_helpers import make_bench


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
