"""The write-approval gate in the workstation, as a person uses it (real agent, real scripted server, Pilot).

With `memory.write_approval` and `skills.write_approval` on, the agent's writes wait in the memory and
skills panes with their diff; the pane's keys approve (ctrl+a) or reject (ctrl+x), enter shows the
whole diff, and `/memory` and `/skills` do the same by id. Nothing reaches the files unapproved.
"""

from __future__ import annotations

from typing import Any

import yaml
from textual.message import Message

from tests.support.tui_support import (
    agent_started,
    make_scripted_app,
    pause_until,
    say,
    turn_done,
)
from widgets.transcript_blocks import NoticeBlock

SKILL = (
    "---\nname: deploy-site\ndescription: Deploy the static site with rsync.\n---\n"
    "# Deploy\n\n1. Build.\n2. Sync.\n"
)
SCENARIO = yaml.safe_dump(
    {
        "name": "gate",
        "model": "scripted",
        "defaults": {"chunk_size": 50, "chunk_delay": 0},
        "rules": [
            {
                "when": {"user": "^remember (.+)", "after_tool": False},
                "reply": {
                    "tool_calls": [
                        {
                            "name": "memory",
                            "arguments": {"action": "add", "target": "user", "content": "{{match.1}}"},
                        }
                    ]
                },
            },
            {
                "when": {"user": "^make the skill", "after_tool": False},
                "reply": {
                    "tool_calls": [
                        {
                            "name": "skill_manage",
                            "arguments": {
                                "action": "create",
                                "name": "deploy-site",
                                "category": "ops",
                                "content": SKILL,
                            },
                        }
                    ]
                },
            },
            {"when": {"after_tool": True}, "reply": {"text": "It waits for your approval."}},
            {"reply": {"text": "ok"}},
        ],
    }
)
CONFIG = (
    "memory:\n  write_approval: true\n  flush_min_turns: 0\nskills:\n  write_approval: true\n"
    "review:\n  enabled: false\n"
)


def notices(app: Any) -> list[str]:
    return [str(block.render()) for block in app.main_screen.transcript.query(NoticeBlock)]


async def test_a_memory_write_waits_in_the_pane_and_ctrl_a_approves_it(scripted: Any) -> None:
    app = make_scripted_app(scripted, CONFIG)
    user_md = app.home.memories / "USER.md"
    seen: list[Message] = []
    async with app.run_test(size=(160, 48), message_hook=seen.append) as pilot:
        await agent_started(pilot, app)
        main = app.main_screen
        await say(pilot, app, "remember Prefers tabs over spaces.")
        await turn_done(pilot, app, seen, 1)
        assert app.main_screen.transcript.last_reply == "It waits for your approval."
        assert await pause_until(pilot, lambda: len(main.memory.view.pending) == 1)
        (row,) = main.memory.view.pending
        assert row.summary == "add to user profile: Prefers tabs over spaces."
        assert "+Prefers tabs over spaces." in row.diff
        assert not user_md.exists()
        assert any(f"waits for your approval ({row.pending_id})" in n for n in notices(app)), notices(app)
        shown = str(main.memory.pending.entries.get_option_at_index(0).prompt)
        assert "+Prefers tabs over spaces." in shown  # the diff is in the pane, not only behind a key
        assert "⏸ 1 pending" in str(main.memory.summary)

        await pilot.press("f2")
        await pilot.press("ctrl+a")
        assert await pause_until(pilot, lambda: user_md.exists() and not main.memory.view.pending)
        assert user_md.read_text(encoding="utf-8") == "Prefers tabs over spaces."
        assert await pause_until(pilot, lambda: any(f"Approved {row.pending_id}" in n for n in notices(app)))

        await say(pilot, app, "remember Likes long commit messages.")
        await turn_done(pilot, app, seen, 2)
        assert await pause_until(pilot, lambda: len(main.memory.view.pending) == 1)
        await pilot.press("f2")
        await pilot.press("ctrl+x")
        assert await pause_until(pilot, lambda: not main.memory.view.pending)
        assert user_md.read_text(encoding="utf-8") == "Prefers tabs over spaces."
        assert not list((app.home.root / "pending" / "memory").glob("*.json"))


async def test_slash_commands_list_diff_approve_and_reject_skill_writes(scripted: Any) -> None:
    from tui.screens.text_view import TextScreen

    app = make_scripted_app(scripted, CONFIG)
    skill_md = app.home.skills / "ops" / "deploy-site" / "SKILL.md"
    seen: list[Message] = []
    async with app.run_test(size=(160, 48), message_hook=seen.append) as pilot:
        await agent_started(pilot, app)
        main = app.main_screen
        await say(pilot, app, "make the skill")
        await turn_done(pilot, app, seen, 1)
        assert await pause_until(pilot, lambda: len(main.skills.view.pending) == 1)
        (row,) = main.skills.view.pending
        assert row.summary.startswith("create 'deploy-site'")
        assert not skill_md.exists()

        await say(pilot, app, "/skills pending")
        assert await pause_until(pilot, lambda: any("1 skills write waiting" in n for n in notices(app)))
        assert any(row.pending_id in n for n in notices(app) if "waiting" in n)

        await say(pilot, app, f"/skills diff {row.pending_id}")
        assert await pause_until(pilot, lambda: isinstance(app.screen, TextScreen))
        body = app.screen.query_one("#text-body").text
        assert "+++ b/skills/ops/deploy-site/SKILL.md" in body and "+2. Sync." in body
        await pilot.press("escape")
        assert await pause_until(pilot, lambda: not isinstance(app.screen, TextScreen))

        await say(pilot, app, f"/skills approve {row.pending_id}")
        assert await pause_until(pilot, lambda: skill_md.exists() and not main.skills.view.pending)
        assert skill_md.read_text(encoding="utf-8") == SKILL
        assert await pause_until(pilot, lambda: any(r.name == "deploy-site" for r in main.skills.view.rows))

        await say(pilot, app, "remember Deploys on Fridays.")
        await turn_done(pilot, app, seen, 2)
        assert await pause_until(pilot, lambda: len(main.memory.view.pending) == 1)
        pending_id = main.memory.view.pending[0].pending_id
        await say(pilot, app, f"/memory reject {pending_id}")
        assert await pause_until(pilot, lambda: not main.memory.view.pending)
        assert not (app.home.memories / "USER.md").exists()
        await say(pilot, app, "/memory approve nosuchid")
        assert await pause_until(
            pilot, lambda: any("Not approved: No pending memory write has the id" in n for n in notices(app))
        )


async def test_a_write_rejected_from_another_terminal_leaves_the_pane(scripted: Any) -> None:
    """`hws memory reject ID` in a shell beside the workstation: the watcher sees pending/ change."""
    import asyncio

    from tests.support.fault_support import hws

    app = make_scripted_app(scripted, CONFIG)
    seen: list[Message] = []
    async with app.run_test(size=(160, 48), message_hook=seen.append) as pilot:
        await agent_started(pilot, app)
        main = app.main_screen
        await say(pilot, app, "remember Prefers tabs over spaces.")
        await turn_done(pilot, app, seen, 1)
        assert await pause_until(pilot, lambda: len(main.memory.view.pending) == 1)
        pending_id = main.memory.view.pending[0].pending_id
        done = await asyncio.to_thread(hws, "memory", "reject", pending_id, home=app.home.root)
        assert done.returncode == 0, done.stderr
        assert await pause_until(pilot, lambda: not main.memory.view.pending, rounds=2000)
        assert not (app.home.memories / "USER.md").exists()
