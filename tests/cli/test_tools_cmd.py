"""`hws tools` lists exactly the tools the agent offers the model, as `hws run` sends them."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.support.fault_support import assert_clean_exit, hws, write_scenario

SCENARIO = """
name: offered
rules:
  - reply: {text: "OFFERED[{{tools}}]"}
"""


def offered_by_hws_run(home: Path, tmp_path: Path) -> list[str]:
    scenario = write_scenario(tmp_path, SCENARIO)
    done = hws("run", "--scenario", str(scenario), "which tools do you have?", home=home, cwd=tmp_path)
    assert_clean_exit(done, (0,))
    found = re.search(r"OFFERED\[(.*?)\]", done.stdout)
    assert found, done.stdout
    return [name.strip() for name in found.group(1).split(",") if name.strip()]


def test_hws_tools_lists_what_the_model_is_offered(tmp_path: Path, hermes_home: Path) -> None:
    offered = offered_by_hws_run(hermes_home, tmp_path)
    assert {"memory", "skill_manage", "session_search", "terminal"} <= set(offered)

    listed = hws("tools", home=hermes_home, cwd=tmp_path)
    assert_clean_exit(listed, (0,))
    rows = [line.split()[0] for line in listed.stdout.splitlines() if "tokens  " in line]
    assert rows == offered
    assert f"{len(offered)} tools," in listed.stdout

    schemas = hws("tools", "--json", home=hermes_home, cwd=tmp_path)
    assert_clean_exit(schemas, (0,))
    assert [s["function"]["name"] for s in json.loads(schemas.stdout)] == offered
