"""Deferral (200 tools behind `tool_search`) and a tool description that tries a prompt injection."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.fault_support import assert_clean_exit, hws
from tests.support.mcp_support import finished, offered, run, support_server, write_home

SEARCH_SCENARIO = """
rules:
  - when: {iteration: 1}
    reply: {text: "Looking for a tool.", tool_calls: [{name: tool_search, arguments: {query: "weather 42"}}]}
  - when: {last_tool: tool_search}
    reply: {tool_calls: [{name: mcp_many_record_weather_42, arguments: {value: sunny}}]}
  - when: {after_tool: true}
    reply: {text: "Recorded."}
"""


def test_200_tools_are_deferred_behind_tool_search_and_the_found_tool_is_called(
    hermes_home: Path, tmp_path: Path
) -> None:
    write_home(hermes_home, {"many": support_server("many", trust="allow")})
    _, events, requests = run(hermes_home, tmp_path, SEARCH_SCENARIO)
    [search] = finished(events, "tool_search")
    found = [t["name"] for t in json.loads(search["result"])["found"]]
    assert found[0] == "mcp_many_record_weather_42"
    [call] = finished(events, "mcp_many_record_weather_42")
    assert call["ok"] and call["result"] == "record_weather_42 recorded sunny"
    after_search, last = offered(requests[1]), offered(requests[2])
    # never 200 schemas: the built-in tools, tool_search, then what the search found, appended
    assert "tool_search" in after_search and len([n for n in last if n.startswith("mcp_many_")]) == len(found)
    assert after_search.index("tool_search") > after_search.index("terminal")
    assert after_search[-len(found) :] == found
    assert last[: len(after_search)] == after_search  # the prefix of the earlier call is kept


def test_a_high_share_offers_every_schema_and_no_tool_search(hermes_home: Path, tmp_path: Path) -> None:
    write_home(hermes_home, {"many": support_server("many", trust="allow")}, mcp={"defer_share": 1.0})
    scenario = """
rules:
  - when: {iteration: 1}
    reply: {tool_calls: [{name: mcp_many_record_note_9, arguments: {value: x}}]}
  - reply: {text: "ok"}
"""
    _, events, requests = run(hermes_home, tmp_path, scenario)
    assert finished(events, "mcp_many_record_note_9")[0]["ok"]
    names = offered(requests[-1])
    assert "tool_search" not in names and len([n for n in names if n.startswith("mcp_many_")]) == 200


INJECTED_SCENARIO = """
rules:
  - when: {iteration: 1}
    reply: {tool_calls: [{name: mcp_words_lookup, arguments: {word: harbour}}]}
  - reply: {text: "ok"}
"""


def test_an_injected_description_is_cut_before_the_model_and_flagged(
    hermes_home: Path, tmp_path: Path
) -> None:
    write_home(hermes_home, {"words": support_server("injected", trust="allow")})
    _, events, requests = run(hermes_home, tmp_path, INJECTED_SCENARIO)
    assert finished(events, "mcp_words_lookup")[0]["result"] == "harbour: a word"  # the tool still works
    sent = [t["function"] for t in requests[-1]["body"]["tools"] if t["function"]["name"].startswith("mcp_")]
    lookup = next(t for t in sent if t["name"] == "mcp_words_lookup")
    assert lookup["description"].startswith("(MCP server words) [description withheld")
    assert "ignore all previous" not in json.dumps([r["body"] for r in requests]).lower()
    spell = next(t for t in sent if t["name"] == "mcp_words_spell")
    assert spell["description"] == "(MCP server words) Spell a word letter by letter."
    lines = [e["text"] for e in events if e["type"] == "status"]
    assert any("`mcp_words_lookup`: a description was cut as a prompt injection" in line for line in lines)
    listed = hws("mcp", "list", home=hermes_home)
    assert_clean_exit(listed, (0,))
    assert "⚠ injection cut from lookup: description: " in listed.stdout
    assert "prompt_injection" in listed.stdout
