"""The learning loop: nudges fire, the background review writes memories and skills, as events."""

from __future__ import annotations

import json
from pathlib import Path

from engine.events import MemoryWritten, NudgeFired, SkillChanged, SkillLoaded, Status, TurnFinished
from tests.support.agent_support import make_rig, of_type, serve, write_config

SKILL_TEXT = (
    "---\\nname: deploy-site\\ndescription: Deploy the site with its build and deploy scripts; use it "
    "whenever the user asks to deploy.\\n---\\n1. Run ./build.sh\\n2. Run ./deploy.sh --prod\\n"
)
REVIEW_TOOLS = ["memory", "skills_list", "skill_view", "skill_manage"]


async def test_a_long_task_creates_a_skill_and_a_failed_run_of_it_patches_it(
    hermes_home: Path, tmp_path: Path
) -> None:
    server = serve(
        f"""
        kinds:
          review: {{user: "^\\\\[Background review\\\\]"}}
        rules:
          - name: review creates
            when: {{kind: review, user: "Skill: the last task took 5 tool calls", iteration: 1}}
            reply:
              tool_calls:
                - name: skill_manage
                  arguments: {{action: create, name: deploy-site, category: devops, content: "{SKILL_TEXT}"}}
          - name: review patches
            when: {{kind: review, user: "Skill fix: the skill deploy-site", iteration: 1}}
            reply:
              tool_calls:
                - name: skill_manage
                  arguments: {{action: patch, name: deploy-site, old_string: "./deploy.sh --prod",
                              new_string: "./deploy.sh --production"}}
          - name: review ends
            when: {{kind: review}}
            reply: {{text: "Saved."}}
          - name: five steps
            when: {{turn: 1, iteration: 1}}
            reply:
              tool_calls:
                - {{name: terminal, arguments: {{command: "echo build"}}}}
                - {{name: terminal, arguments: {{command: "echo test"}}}}
                - {{name: terminal, arguments: {{command: "echo package"}}}}
                - {{name: terminal, arguments: {{command: "echo upload"}}}}
                - {{name: terminal, arguments: {{command: "echo verify"}}}}
          - when: {{turn: 1}}
            reply: {{text: "Deployed."}}
          - name: load the skill
            when: {{turn: 2, iteration: 1}}
            reply: {{tool_calls: [{{name: skill_view, arguments: {{name: deploy-site}}}}]}}
          - name: follow it and fail
            when: {{turn: 2, iteration: 2}}
            reply:
              tool_calls: [{{name: terminal, arguments: {{command: "echo unknown flag --prod; exit 2"}}}}]
          - when: {{turn: 2}}
            reply: {{text: "The deploy script refused --prod."}}
        """
    )
    rig = make_rig(server, hermes_home, tmp_path)
    skill_file = rig.home.skills / "devops" / "deploy-site" / "SKILL.md"
    try:
        first = await rig.turn("deploy the site")
        await rig.settle()
        assert [n.nudge for n in of_type(first, NudgeFired)] == ["skill_create"]
        assert isinstance(first[-1], TurnFinished) and first[-1].tool_calls == 5
        assert first.index(of_type(first, NudgeFired)[0]) < len(first) - 1, "the nudge precedes TurnFinished"
        created = of_type(rig.background, SkillChanged)
        assert [(c.name, c.action, c.who) for c in created] == [("deploy-site", "create", "review")]
        assert "./deploy.sh --prod" in skill_file.read_text(encoding="utf-8")

        second = await rig.turn("deploy again")
        await rig.settle()
        sid = rig.agent.session_id
    finally:
        await rig.agent.close()
        server.stop()
    loaded = of_type(second, SkillLoaded)
    assert [(s.name, s.file_path) for s in loaded] == [("deploy-site", "")]
    nudges = of_type(second, NudgeFired)
    assert [n.nudge for n in nudges] == ["skill_patch"] and "deploy-site" in nudges[0].reason
    changes = of_type(rig.background, SkillChanged)
    assert [(c.action, c.who) for c in changes] == [("create", "review"), ("patch", "review")]
    assert all(c.session_id == sid for c in changes)
    text = skill_file.read_text(encoding="utf-8")
    assert "./deploy.sh --production" in text and "--prod\n" not in text
    statuses = [s.text for s in of_type(rig.background, Status)]
    assert any("saved: skill create deploy-site" in s for s in statuses)
    assert any("saved: skill patch deploy-site" in s for s in statuses)

    reviews = [r for r in server.chat_requests if r.rule.startswith("review")]
    assert reviews and all(sorted(r.tool_names) == sorted(REVIEW_TOOLS) for r in reviews)
    turn_prompts = {r.system_prompt for r in server.chat_requests}
    assert len(turn_prompts) == 1, "the review sends the session's own prompt, so it shares the cache"
    assert "deploy-site" not in next(iter(turn_prompts)), "a skill made mid-session waits for the next one"


async def test_the_memory_nudge_fires_on_the_tenth_turn_and_the_review_saves(
    hermes_home: Path, tmp_path: Path
) -> None:
    server = serve(
        """
        kinds:
          review: {user: "^\\\\[Background review\\\\]"}
        rules:
          - name: review saves
            when: {kind: review, user: "Memory: has the user", iteration: 1}
            reply:
              tool_calls:
                - {name: memory, arguments: {action: add, target: user, content: "User answers in haiku."}}
          - name: review ends
            when: {kind: review}
            reply: {text: "Nothing to save."}
          - reply: {text: "Turn {{turn}}."}
        """
    )
    rig = make_rig(server, hermes_home, tmp_path)
    fired: dict[int, list[str]] = {}
    try:
        for number in range(1, 12):
            events = await rig.turn(f"message {number}")
            fired[number] = [n.nudge for n in of_type(events, NudgeFired)]
            await rig.settle()
    finally:
        await rig.agent.close()
        server.stop()
    assert fired[10] == ["memory"]
    assert all(not kinds for number, kinds in fired.items() if number != 10)
    written = of_type(rig.background, MemoryWritten)
    assert [(w.target, w.who, w.action) for w in written] == [("user", "review", "add")]
    assert (rig.home.memories / "USER.md").read_text(encoding="utf-8") == "User answers in haiku."
    # (the session's end, after 11 turns, also asks for a memory flush: memory.flush_min_turns)
    chat = [
        r
        for r in server.chat_requests
        if not r.rule.startswith("review")
        and "This session is ending" not in json.dumps(r.body["messages"][-1])
    ]
    assert len(chat) == 11 and len({r.system_prompt for r in chat}) == 1
    assert "haiku" not in (chat[-1].system_prompt or "")


async def test_no_review_runs_when_it_is_switched_off(hermes_home: Path, tmp_path: Path) -> None:
    write_config(
        hermes_home,
        memory={"nudge_interval": 1},
        review={"enabled": False},
        sessions={"auto_title": False},  # titling is background work too
    )
    server = serve('rules:\n  - reply: {text: "ok"}\n')
    rig = make_rig(server, hermes_home, tmp_path)
    try:
        events = await rig.turn("hello")
        await rig.settle()
    finally:
        await rig.agent.close()
        server.stop()
    assert [n.nudge for n in of_type(events, NudgeFired)] == ["memory"]
    assert len(server.chat_requests) == 1 and not rig.background
