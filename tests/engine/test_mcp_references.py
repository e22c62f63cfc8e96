"""`@server:resource` attaches an MCP resource to the message; `/mcp:server:prompt` sends a server prompt.

Through `hws run` with a scripted model that repeats the message it got, and a real MCP server
(tests/support/mcp_servers.py `desk`) offering a resource and a prompt.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.mcp_support import run, support_server, write_home

ECHO = """
rules:
  - reply: {text: "Got: {{last_user}}"}
"""


def statuses(events: list[dict[str, Any]]) -> list[str]:
    return [e["text"] for e in events if e["type"] == "status"]


def last_user(request: dict[str, Any]) -> str:
    return next(m["content"] for m in reversed(request["body"]["messages"]) if m["role"] == "user")


def test_a_resource_reference_attaches_the_resource_and_says_so(hermes_home: Path, tmp_path: Path) -> None:
    write_home(hermes_home, {"desk": support_server("desk", trust="allow")})
    _, events, requests = run(hermes_home, tmp_path, ECHO, prompt="summarise @desk:today, briefly")
    sent = last_user(requests[0])
    assert sent.startswith("summarise @desk:today, briefly\n\n[resource desk:notes://today]\n")
    assert "Ship the release notes; call Ada about the invoice." in sent
    assert any(
        "Attached the resource `notes://today` of the MCP server `desk`" in s for s in statuses(events)
    )
    # by its URI too, and one not offered is said and left as typed
    _, events, requests = run(
        hermes_home, tmp_path, ECHO, prompt="read @desk:notes://today and @desk:nothing please"
    )
    sent = last_user(requests[0])
    assert sent.count("[resource desk:notes://today]") == 1
    assert "@desk:nothing please" in sent
    [missing] = [s for s in statuses(events) if "nothing" in s]
    assert "has no resource `nothing` (it offers: @desk:today)" in missing


def test_what_is_not_a_configured_server_is_left_alone(hermes_home: Path, tmp_path: Path) -> None:
    write_home(hermes_home, {"desk": support_server("desk", trust="allow")})
    text = "mail ada@desk:today and ask @other:today"
    _, events, requests = run(hermes_home, tmp_path, ECHO, prompt=text)
    assert last_user(requests[0]) == text
    assert not [s for s in statuses(events) if "resource" in s]


def test_a_server_prompt_as_a_slash_command_becomes_the_message(hermes_home: Path, tmp_path: Path) -> None:
    write_home(hermes_home, {"desk": support_server("desk", trust="allow")})
    _, events, requests = run(hermes_home, tmp_path, ECHO, prompt="/mcp:desk:review the deploy script")
    assert last_user(requests[0]) == "Review the deploy script carefully and list three risks."
    assert any("The MCP prompt `review` of `desk` is the message." in s for s in statuses(events))
    _, events, requests = run(hermes_home, tmp_path, ECHO, prompt="/mcp:desk:review topic=billing")
    assert last_user(requests[0]) == "Review billing carefully and list three risks."
    # a prompt that needs its argument, or one the server does not offer, is said and sent as typed
    _, events, requests = run(hermes_home, tmp_path, ECHO, prompt="/mcp:desk:review")
    assert last_user(requests[0]) == "/mcp:desk:review"
    assert any("needs topic: /mcp:desk:review topic=…" in s for s in statuses(events))
    _, events, _ = run(hermes_home, tmp_path, ECHO, prompt="/mcp:desk:nope")
    assert any("has no prompt `nope` (it offers: /mcp:desk:review)" in s for s in statuses(events))
