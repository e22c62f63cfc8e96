"""Crash: `hws run` killed with SIGKILL at random points of a turn, and writers killed mid-write.

After every kill: the database passes `PRAGMA integrity_check`, every message committed before the
kill is still there, memory and skill files are the old or the new version (never partial), no lock
is left that blocks the next run, and the next run continues the session. `--slow` runs many more
kills and prints the figures.
"""

from __future__ import annotations

import contextlib
import json
import queue
import random
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from engine.memory.format import DELIMITER, parse_entries, serialize
from tests.support.fault_support import (
    HWS_TIMEOUT,
    ROOT,
    assert_clean_exit,
    hws,
    hws_env,
    hws_popen,
    integrity,
    stored_messages,
    write_config,
    write_scenario,
)

STORY = " ".join(f"Sentence {n} of a long story about kilns, glazes and a patient potter." for n in range(40))
SKILL_BODY = (
    "---\\nname: NAME\\ndescription: Fires a kiln safely. Use when firing.\\n---\\n\\n# Kiln\\n\\n"
    + ("Step: check the vents and the cones before firing.\\n" * 30)
)
SCENARIO = f"""
name: crash
model: scripted
context_length: 9000
defaults: {{chunk_size: 24, chunk_delay: 0.003}}
kinds:
  review: {{user: "^\\\\[Background review\\\\]"}}
rules:
  - {{when: {{kind: flush}}, reply: {{text: "Nothing to save."}}}}
  - {{when: {{kind: summary}}, reply: {{text: "## Goal\\nA story.\\n## Progress\\nChapters were told."}}}}
  - {{when: {{kind: review}}, reply: {{text: "Nothing to save."}}}}
  - when: {{user: "(?i)remember", iteration: 1}}
    reply:
      text: "Saving."
      tool_calls:
        - name: memory
          arguments:
            action: add
            target: memory
            content: "Fact {{{{call}}}}: the kiln runs at cone {{{{turn}}}}."
  - when: {{user: "(?i)skill", iteration: 1}}
    reply:
      tool_calls:
        - name: skill_manage
          arguments_raw: '{{"action": "create", "name": "kiln-{{{{call}}}}", "content": "{SKILL_BODY}"}}'
  - when: {{user: "(?i)run", iteration: 1}}
    reply:
      text: "Running."
      tool_calls: [{{name: terminal, arguments: {{command: "sleep 0.3; echo fired"}}}}]
  - when: {{after_tool: true}}
    reply: {{text: "Done: {{{{last_tool_result}}}}"}}
  - reply: {{text: "{STORY}"}}
"""
PHASES = {  # prompt, the event that opens the window, the longest random wait after it (seconds)
    "stream": ("tell the story", "text_delta", 0.15),
    "tool": ("run the kiln", "tool_called", 0.45),
    "memory": ("remember the cone", "tool_called", 0.02),
    "skill": ("write a skill", "tool_called", 0.02),
    "compression": ("tell the story", "compression_started", 0.08),
    "fill": ("tell the story", "", 0.0),  # a turn left to finish: the history grows toward compression
}
FACT = re.compile(r"^Fact \d+: the kiln runs at cone \d+\.$")


@dataclass
class Outcome:
    events: list[dict[str, object]] = field(default_factory=list)
    killed: bool = False
    returncode: int | None = None


def run_and_kill(
    home: Path, cwd: Path, scenario: Path, prompt: str, session: str | None, trigger: str | None, wait: float
) -> Outcome:
    """`hws run --json` until `trigger` shows (or from the start), then SIGKILL after a random `wait`."""
    args = ["run", "--scenario", str(scenario), "--json", "--yolo"]
    if session:
        args += ["--session", session]
    proc = hws_popen(*args, prompt, home=home, cwd=cwd)
    lines: queue.Queue[str | None] = queue.Queue()

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=pump, daemon=True).start()
    outcome = Outcome()
    deadline = time.monotonic() + HWS_TIMEOUT
    armed_at = time.monotonic() if trigger is None else None  # "" never arms: the run finishes
    while True:
        if armed_at is not None and time.monotonic() >= armed_at + wait:
            proc.send_signal(signal.SIGKILL)
            outcome.killed = True
            break
        try:
            line = lines.get(timeout=0.002 if armed_at is not None else 0.5)
        except queue.Empty:
            assert time.monotonic() < deadline, "hws run hung"
            continue
        if line is None:
            break
        event = json.loads(line)
        outcome.events.append(event)
        if armed_at is None and event.get("type") == trigger:
            armed_at = time.monotonic()
    outcome.returncode = proc.wait(timeout=HWS_TIMEOUT)
    assert proc.stderr is not None
    stderr = proc.stderr.read()
    proc.stdout.close() if proc.stdout else None
    proc.stderr.close()
    if not outcome.killed or outcome.returncode != -signal.SIGKILL:
        outcome.killed = False
        assert "Traceback" not in stderr, stderr[-3000:]
    return outcome


def memory_entries(home: Path) -> list[str]:
    path = home / "memories" / "MEMORY.md"
    raw = path.read_text(encoding="utf-8") if path.exists() else ""
    entries = parse_entries(raw)
    assert raw.strip() == serialize(entries).strip(), f"MEMORY.md is not a whole file: {raw[-200:]!r}"
    return entries


def check_skills(home: Path) -> int:
    """Every SKILL.md the agent wrote is whole; returns how many there are."""
    count = 0
    for path in (home / "skills").rglob("SKILL.md"):
        text = path.read_text(encoding="utf-8")
        name = path.parent.name
        expected = SKILL_BODY.replace("\\n", "\n").replace("NAME", name)
        assert text == expected, f"{path} is partial: {text[-120:]!r}"
        count += 1
    return count


@dataclass
class Tally:
    kills: dict[str, int] = field(default_factory=dict)
    completed: int = 0
    messages: int = 0
    checks: int = 0


def crash_round(home: Path, cwd: Path, scenario: Path, phases: list[str], rng: random.Random) -> Tally:
    tally = Tally()
    session: str | None = None
    for phase in phases:
        before = stored_messages(home / "state.db")
        memory_before = memory_entries(home)
        prompt, trigger, longest = PHASES[phase]
        outcome = run_and_kill(home, cwd, scenario, prompt, session, trigger, rng.uniform(0, longest))
        if outcome.killed:
            assert phase != "fill"
            tally.kills[phase] = tally.kills.get(phase, 0) + 1
        else:
            tally.completed += 1
        session = next(
            (str(e["session_id"]) for e in reversed(outcome.events) if e.get("session_id")), session
        )
        # The database: whole, and nothing committed before is gone or changed.
        assert integrity(home / "state.db") == "ok"
        after = stored_messages(home / "state.db")
        assert after[: len(before)] == before, f"messages lost or changed after a kill in {phase}"
        if any(e.get("type") in ("text_delta", "tool_called") for e in outcome.events):
            # Stored by this run, or already the session's last message, unanswered by a killed run:
            # the same question is then asked again, not stored twice.
            asked_again = bool(before) and tuple(before[-1][1:]) == ("user", prompt)
            assert asked_again or any(
                role == "user" and content == prompt for _, role, content in after[len(before) :]
            ), "the user's message was sent to the model but is not stored"
        # Memory: the old file or the old one plus the new entry; skills whole.
        memory_after = memory_entries(home)
        added = memory_after[len(memory_before) :]
        assert memory_after[: len(memory_before)] == memory_before
        assert len(added) <= 1 and all(FACT.match(e) for e in added), added
        check_skills(home)
        tally.messages = len(after)
        tally.checks += 1
    # The next run continues the session, and takes every lock a killed run could have held.
    resume = ["--session", session] if session else []
    done = hws("run", "--scenario", str(scenario), *resume, "remember the cone", home=home, cwd=cwd)
    assert_clean_exit(done, (0,))
    assert "Saving." in done.stdout
    assert integrity(home / "state.db") == "ok"
    tip = done.stderr.strip().splitlines()[-1].removeprefix("session ").strip()
    chain = hws("sessions", "show", tip, "--json", home=home)
    assert_clean_exit(chain, (0,))
    shown = json.loads(chain.stdout)
    if session:
        assert session in shown["lineage"] or shown["session"]["id"] == session, "a new session was started"
    return tally


@pytest.fixture
def crash_home(hermes_home: Path, tmp_path: Path) -> tuple[Path, Path, Path]:
    write_config(hermes_home, compression={"threshold": 0.5, "protect_last_n": 2})
    cwd = tmp_path / "project"
    cwd.mkdir()
    scenario = write_scenario(tmp_path, SCENARIO)
    return hermes_home, cwd, scenario


def test_sigkill_at_each_phase_of_a_turn_loses_nothing(crash_home: tuple[Path, Path, Path]) -> None:
    home, cwd, scenario = crash_home
    rng = random.Random(10)
    phases = [
        "stream",
        "tool",
        "memory",
        "fill",
        "skill",
        "fill",
        "compression",
        "fill",
        "fill",
        "compression",
    ]
    tally = crash_round(home, cwd, scenario, phases, rng)
    assert sum(tally.kills.values()) >= len(phases) - 5, tally  # most runs were really killed mid-turn
    assert tally.kills.get("compression", 0) >= 1, f"no kill landed during a compression: {tally}"


@pytest.mark.slow
def test_sigkill_many_times_at_random_phases(crash_home: tuple[Path, Path, Path]) -> None:
    home, cwd, scenario = crash_home
    rng = random.Random(1010)
    rounds, per_round = 6, 10
    total = Tally()
    started = time.monotonic()
    for _ in range(rounds):
        phases = [rng.choice(list(PHASES)) for _ in range(per_round)] + ["fill", "compression"]
        tally = crash_round(home, cwd, scenario, phases, rng)
        for phase, count in tally.kills.items():
            total.kills[phase] = total.kills.get(phase, 0) + count
        total.completed += tally.completed
        total.checks += tally.checks
        total.messages = tally.messages
    print(
        f"\ncrash suite: {sum(total.kills.values())} SIGKILLs of hws run ({total.kills}), "
        f"{total.completed} runs finished before their kill, {total.checks} checks passed, "
        f"{total.messages} messages kept, 0 lost, in {time.monotonic() - started:.0f} s"
    )


# ── writers killed in the middle of a write ─────────────────────────────────────────────────────────

WRITER = """
import sys, asyncio
from engine.home import Home
from engine.memory.store import MemoryStore
from engine.skills.library import SkillLibrary
from engine.skills.manage import SkillManager
from engine.sessions.store import SessionStore

home = Home.resolve().ensure()
kind = sys.argv[1]
first = int(sys.argv[2])  # each writer numbers its writes after the previous one's
print("ready", flush=True)
if kind == "memory":
    store = MemoryStore(home, "memory", limit=10_000_000)
    n = first
    while True:
        n += 1
        result = store.add(f"Entry {n}: " + "x" * (n % 400))
        assert result["success"], result
        print(n, flush=True)
elif kind == "skills":
    manager = SkillManager(SkillLibrary(home), who="agent")
    n = first
    while True:
        n += 1
        body = "---\\nname: s{0}\\ndescription: Skill {0}. Use when {0}.\\n---\\n\\n" + "Step.\\n" * (n % 300)
        result = manager.run({"action": "create", "name": f"s{n}", "content": body.format(n)})
        assert result.get("success"), result
        patch = {"action": "patch", "name": f"s{n}", "old_string": "Step.", "new_string": "Done."}
        result = manager.run(patch)
        print(n, flush=True)
else:
    async def main():
        store = await SessionStore.open(home.state_db)
        session = await store.create_session(source="cli")
        n = first
        while True:
            n += 1
            await store.append_message(session.id, "user", f"message {n} " + "y" * (n % 3000))
            print(n, flush=True)
    asyncio.run(main())
"""


def kill_writer(home: Path, kind: str, rng: random.Random, first: int, until_written: bool = False) -> int:
    """Start a writer looping on `kind`, SIGKILL it after a random time; the last write it reported.

    With `until_written` the kill waits for the first reported write (up to HWS_TIMEOUT) instead.
    """
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, kind, str(first)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=hws_env(home),
        cwd=ROOT,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "ready", proc.stderr.read() if proc.stderr else ""
    if until_written:
        lines: queue.Queue[str] = queue.Queue()
        threading.Thread(
            target=lambda: lines.put(proc.stdout.readline() if proc.stdout else ""), daemon=True
        ).start()
        try:
            first_line = lines.get(timeout=HWS_TIMEOUT)
        except queue.Empty:
            first_line = ""
        proc.send_signal(signal.SIGKILL)
        out, err = proc.communicate(timeout=HWS_TIMEOUT)
        assert "Traceback" not in err, err
        done = [int(line) for line in (first_line + out).split() if line.isdigit()]
        return done[-1] if done else 0
    time.sleep(rng.uniform(0.02, 0.25))
    proc.send_signal(signal.SIGKILL)
    out, err = proc.communicate(timeout=HWS_TIMEOUT)
    assert "Traceback" not in err, err
    done = [int(line) for line in out.split() if line.isdigit()]
    return done[-1] if done else 0


def check_after_writer(home: Path, kind: str, reported: int) -> None:
    if kind == "memory":
        entries = memory_entries(home)
        numbers = [int(e.split(":")[0].removeprefix("Entry ")) for e in entries]
        assert numbers == sorted(numbers) and len(set(numbers)) == len(numbers)  # in order, none twice
        assert not reported or reported in numbers, "a write reported done is missing"
        assert DELIMITER not in "".join(entries)
    elif kind == "skills":
        for path in (home / "skills").rglob("SKILL.md"):
            text = path.read_text(encoding="utf-8")
            name = path.parent.name
            assert text.startswith(f"---\nname: {name}\ndescription: Skill {name[1:]}."), text[:80]
            assert text.endswith(("Step.\n", "Done.\n", "---\n\n")), f"{path} is partial: {text[-40:]!r}"
    else:
        assert integrity(home / "state.db") == "ok"
        with contextlib.closing(sqlite3.connect(home / "state.db")) as conn:
            tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
        if not reported and "messages" not in tables:
            return  # killed before the schema was written (a busy machine): nothing to lose yet
        rows = [c for _, _, c in stored_messages(home / "state.db")]
        if not reported and not rows:
            return
        numbers = [int(c.split()[1]) for c in rows]
        assert numbers[-1] >= reported, "a message reported committed is missing"


def writer_kills(home: Path, kind: str, times: int, seed: int) -> int:
    rng = random.Random(seed)
    for round_number in range(times):
        reported = kill_writer(home, kind, rng, 100_000 * (round_number + 1))
        check_after_writer(home, kind, reported)
    # No lock left behind: a normal writer still gets through (waited for, not timed: a busy machine).
    reported = kill_writer(home, kind, random.Random(seed + 1), 100_000 * (times + 1), until_written=True)
    assert reported > 0, "the writer after the kills could not write (a stale lock?)"
    check_after_writer(home, kind, reported)
    return times


@pytest.mark.parametrize("kind", ["memory", "skills", "sessions"])
def test_writers_killed_mid_write_leave_whole_files(hermes_home: Path, kind: str) -> None:
    writer_kills(hermes_home, kind, 4, seed=len(kind))


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["memory", "skills", "sessions"])
def test_writers_killed_mid_write_many_times(hermes_home: Path, kind: str) -> None:
    started = time.monotonic()
    kills = writer_kills(hermes_home, kind, 40, seed=100 + len(kind))
    print(
        f"\n{kind} writer: {kills} SIGKILLs mid-write, every file whole, {time.monotonic() - started:.0f} s"
    )
