"""Demo files: a script (what the user types, what the narrator says, what must hold at the end)
and the scripted model that answers it, in one YAML file of two documents.

    name: my-demo                        # the first document: the script
    title: One line shown at the start
    config: {memory: {nudge_interval: 10}}   # the demo home's config.yaml
    project:                             # the working folder, laid out before the first step
      site/index.html: "<html>…"         #   a file's text,
      run.sh: {executable: true, text: "#!/bin/sh\n…"}        #   or a mapping with options,
      big.log: {lines: {count: 200, text: "line {n}"}, tail: "the end\n"}   # or generated lines
    steps:
      - caption: "What the narrator says"
      - say: "What the user types"       # one turn of the agent
      - pause: 2                         # seconds (the TUI only)
      - new_session: true                # close the session; the next `say` starts a new one
    checks:                              # checked on disk at the end (see `engine.demo.report`)
      - {file_contains: {path: memories/USER.md, text: "…"}}
    ---
    model: scripted                      # the second document: a model-server scenario
    rules: […]                           # (docs/scenarios.md)

Errors name the file and the line, like the model server's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

from engine import shipped_files
from engine.model_server.parsing import parse_scenario
from engine.model_server.scenario import Scenario, ScenarioError

DEMO_DIR = Path(__file__).parent / "scenarios"
DEFAULT_DEMO = "day-of-work"
MAX_DEMO_BYTES = 2_000_000
MAX_GENERATED_LINES = 100_000
STEP_KINDS = ("say", "caption", "pause", "new_session")
CHECK_KINDS = (
    "file_contains",
    "snapshot_frozen",
    "skill_exists",
    "skill_patched",
    "compression_link",
    "compressed_prompt_contains",
    "new_session_prompt_contains",
)
TOP_KEYS = {"name", "title", "description", "config", "project", "steps", "checks"}
PROJECT_PLACEHOLDER = "{project}"
PROJECT_DIR = "demo-project"  # the working folder inside the demo home
_SEPARATOR = re.compile(r"^---[ \t]*$", re.MULTILINE)


class DemoError(Exception):
    """A demo file that cannot be played; the message names the file and the line."""


@dataclass(frozen=True)
class Step:
    kind: str  # say | caption | pause | new_session
    text: str = ""
    seconds: float = 0.0
    line: int = 0


@dataclass(frozen=True)
class Check:
    kind: str
    value: Any
    line: int = 0

    def describe(self) -> str:
        value = self.value
        if self.kind == "file_contains":
            return f"{value['path'].replace(PROJECT_PLACEHOLDER, PROJECT_DIR)} contains {value['text']!r}"
        if self.kind == "snapshot_frozen":
            return f"{value!r} reached disk mid-session while that session's prompt kept its frozen snapshot"
        if self.kind == "skill_exists":
            return f"the skill {value} exists"
        if self.kind == "skill_patched":
            return f"the skill {value} was created, then patched"
        if self.kind == "compression_link":
            return "a session ended by compression has a child session"
        if self.kind == "compressed_prompt_contains":
            return f"the prompt rebuilt by compression contains {value!r}"
        return f"the new session's prompt contains {value!r} from its first turn"


@dataclass(frozen=True)
class ProjectFile:
    path: str  # relative, with forward slashes
    text: str
    executable: bool = False


@dataclass(frozen=True)
class DemoScript:
    name: str
    title: str
    description: str
    source: str
    config: dict[str, Any]
    project: tuple[ProjectFile, ...]
    steps: tuple[Step, ...]
    checks: tuple[Check, ...]
    model: Scenario

    @property
    def turns(self) -> int:
        return sum(1 for step in self.steps if step.kind == "say")


def builtin_demos() -> list[str]:
    """Names of the demos shipped with hws."""
    return sorted(path.stem for path in DEMO_DIR.glob("*.yaml"))


def resolve_demo_path(name_or_path: str | Path) -> Path:
    return shipped_files.resolve(name_or_path, DEMO_DIR, "demo", builtin_demos(), DemoError)


def load_demo(name_or_path: str | Path = DEFAULT_DEMO) -> DemoScript:
    """Read and check a demo file (or a shipped demo by name)."""
    path = resolve_demo_path(name_or_path)
    text = shipped_files.read_text(path, MAX_DEMO_BYTES, DemoError, "a demo file should be small")
    return parse_demo(text, source=str(path), name=path.stem)


def parse_demo(text: str, source: str = "<demo>", name: str = "demo") -> DemoScript:
    """Parse the two documents of a demo file; errors name `source` and the line."""
    script_text, model_text, model_line = _split(text, source)
    script_node = _compose(script_text, source)
    data = yaml.safe_load(script_text)
    if not isinstance(data, dict) or not isinstance(script_node, yaml.MappingNode):
        raise DemoError(f"{source} line 1: the script (the first document) must be a mapping with `steps:`.")
    lines = _key_lines(script_node)
    for key in data:
        if key not in TOP_KEYS:
            raise DemoError(
                f"{source} line {lines.get(str(key), 1)}: unknown key `{key}`; "
                f"a script has {', '.join(sorted(TOP_KEYS))}."
            )
    config = data.get("config") or {}
    if not isinstance(config, dict):
        raise DemoError(
            f"{source} line {lines.get('config', 1)}: `config` must be a mapping of config.yaml sections."
        )
    item_lines = _item_lines(script_node)
    project = _project(data.get("project") or {}, source, lines.get("project", 1))
    steps = _steps(data.get("steps"), source, lines.get("steps", 1), item_lines.get("steps", []))
    checks = _checks(data.get("checks") or [], source, lines.get("checks", 1), item_lines.get("checks", []))
    try:
        model = parse_scenario("\n" * model_line + model_text, source=source, name=name)
    except ScenarioError as exc:
        raise DemoError(str(exc)) from exc
    return DemoScript(
        name=str(data.get("name") or name),
        title=str(data.get("title") or data.get("name") or name),
        description=" ".join(str(data.get("description") or "").split()),
        source=source,
        config=config,
        project=project,
        steps=steps,
        checks=checks,
        model=model,
    )


def _split(text: str, source: str) -> tuple[str, str, int]:
    """The script's text, the model's text, and the number of lines before the model's."""
    first = _SEPARATOR.match(text)  # a leading `---` opens the first document
    found = _SEPARATOR.search(text, first.end() if first else 0)
    if found is None:
        raise DemoError(
            f"{source}: a demo file holds two YAML documents, the script and then the model, "
            "separated by a line `---`; the model is missing."
        )
    return text[: found.start()], text[found.end() :], text[: found.end()].count("\n")


def _compose(text: str, source: str) -> yaml.Node | None:
    try:
        return yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as exc:
        line = exc.problem_mark.line + 1 if exc.problem_mark else 0
        raise DemoError(
            f"{source} line {line}: {exc.problem or 'invalid YAML'}; fix the YAML there."
        ) from exc
    except yaml.YAMLError as exc:
        raise DemoError(f"{source}: invalid YAML ({exc}).") from exc


def _key_lines(node: yaml.MappingNode) -> dict[str, int]:
    return {str(key.value): key.start_mark.line + 1 for key, _value in node.value}


def _item_lines(node: yaml.MappingNode) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for key, value in node.value:
        if isinstance(value, yaml.SequenceNode):
            out[str(key.value)] = [item.start_mark.line + 1 for item in value.value]
    return out


def _project(raw: Any, source: str, line: int) -> tuple[ProjectFile, ...]:
    if not isinstance(raw, dict):
        raise DemoError(f"{source} line {line}: `project` must map file paths to their text.")
    files = []
    for rel, spec in raw.items():
        rel = str(rel)
        pure = PurePosixPath(rel)
        if pure.is_absolute() or ".." in pure.parts or not pure.parts:
            raise DemoError(
                f"{source} line {line}: project file {rel!r} must be a relative path inside the project."
            )
        if isinstance(spec, str):
            files.append(ProjectFile(rel, spec))
            continue
        if not isinstance(spec, dict):
            raise DemoError(f"{source} line {line}: project file {rel!r} must be text or a mapping.")
        text = str(spec.get("text") or "")
        generated = spec.get("lines")
        if generated is not None:
            text += _generated_lines(generated, rel, source, line)
        text += str(spec.get("tail") or "")
        files.append(ProjectFile(rel, text, bool(spec.get("executable", False))))
    return tuple(files)


def _generated_lines(spec: Any, rel: str, source: str, line: int) -> str:
    """`lines: {count, text, cycle}`: `text` formatted with `n` (1-based) and each cycled value."""
    if not isinstance(spec, dict) or not isinstance(spec.get("text"), str):
        raise DemoError(f"{source} line {line}: `lines` of {rel!r} needs `count` and a `text` template.")
    count = spec.get("count", 0)
    if not isinstance(count, int) or not 0 <= count <= MAX_GENERATED_LINES:
        raise DemoError(
            f"{source} line {line}: `lines.count` of {rel!r} must be a whole number up to "
            f"{MAX_GENERATED_LINES:,}."
        )
    cycle = spec.get("cycle") or {}
    if not isinstance(cycle, dict) or not all(isinstance(v, list) and v for v in cycle.values()):
        raise DemoError(f"{source} line {line}: `lines.cycle` of {rel!r} maps names to non-empty lists.")
    out = []
    for n in range(1, count + 1):
        values = {str(k): v[(n - 1) % len(v)] for k, v in cycle.items()}
        try:
            out.append(spec["text"].format(n=n, **values))
        except (KeyError, IndexError, ValueError) as exc:
            raise DemoError(
                f"{source} line {line}: the `lines.text` template of {rel!r} cannot be filled ({exc}); "
                "it may use {n} and the names in `cycle`."
            ) from exc
    return "\n".join(out) + ("\n" if out else "")


def _steps(raw: Any, source: str, line: int, item_lines: list[int]) -> tuple[Step, ...]:
    if not isinstance(raw, list) or not raw:
        raise DemoError(f"{source} line {line}: `steps` must be a non-empty list (say, caption, pause …).")
    steps = []
    for index, item in enumerate(raw):
        at = item_lines[index] if index < len(item_lines) else line
        if not isinstance(item, dict) or len(item) != 1:
            raise DemoError(
                f"{source} line {at}: each step is one of {', '.join(STEP_KINDS)} "
                '(e.g. `- say: "hello"`), not {item!r}.'
            )
        kind, value = next(iter(item.items()))
        if kind not in STEP_KINDS:
            raise DemoError(f"{source} line {at}: unknown step `{kind}`; steps are {', '.join(STEP_KINDS)}.")
        if kind in ("say", "caption"):
            if not isinstance(value, str) or not value.strip():
                raise DemoError(f"{source} line {at}: `{kind}` needs the text to show.")
            steps.append(Step(kind, value.strip(), line=at))
        elif kind == "pause":
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise DemoError(f"{source} line {at}: `pause` takes a number of seconds.")
            steps.append(Step(kind, seconds=float(value), line=at))
        else:
            steps.append(Step(kind, str(value) if isinstance(value, str) else "", line=at))
    if not any(step.kind == "say" for step in steps):
        raise DemoError(f"{source} line {line}: a demo needs at least one `say` step.")
    return tuple(steps)


def _checks(raw: Any, source: str, line: int, item_lines: list[int]) -> tuple[Check, ...]:
    if not isinstance(raw, list):
        raise DemoError(f"{source} line {line}: `checks` must be a list.")
    checks = []
    for index, item in enumerate(raw):
        at = item_lines[index] if index < len(item_lines) else line
        if not isinstance(item, dict) or len(item) != 1:
            raise DemoError(
                f"{source} line {at}: each check is one mapping such as `{{skill_exists: NAME}}`."
            )
        kind, value = next(iter(item.items()))
        if kind not in CHECK_KINDS:
            raise DemoError(
                f"{source} line {at}: unknown check `{kind}`; checks are {', '.join(CHECK_KINDS)}."
            )
        if kind == "file_contains":
            if not (isinstance(value, dict) and isinstance(value.get("path"), str) and "text" in value):
                raise DemoError(f"{source} line {at}: `file_contains` needs `path` and `text`.")
            value = {"path": value["path"], "text": str(value["text"])}
        elif kind == "compression_link":
            value = bool(value)
        elif not isinstance(value, str) or not value:
            raise DemoError(f"{source} line {at}: `{kind}` needs a text or a name.")
        checks.append(Check(kind, value, at))
    return tuple(checks)
