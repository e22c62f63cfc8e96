"""What `hws mcp serve` offers another agent, as plain functions over the home's stores (no MCP here).

Every write goes through the store the agent's own tools use: the memory store (limits, secret and
threat scan, lock, journal) and the skill manager (the skills guard), with the writer named
`mcp:<client>` so the journal and the workstation's panes say which agent wrote. With
`memory.write_approval` (or `skills.write_approval`) on, the write is staged for the person instead.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.config import Config, ConfigError, load_config
from engine.home import Home
from engine.memory.format import FILES
from engine.memory.store import Memory
from engine.skills.invoke import invocation_message
from engine.skills.tools import SKILL_MANAGE_SCHEMA, SKILL_VIEW_SCHEMA, SKILLS_LIST_SCHEMA, SkillTools
from engine.storage.journal import OUTSIDE_AGENT
from engine.tools.knowledge import MEMORY_PARAMETERS

SCHEME = "hermes://"
MEMORY_URIS = {f"{SCHEME}memory/{name}": target for target, name in FILES.items()}
MEMORY_ABOUT = {
    "memory": "Facts about the user's environment (MEMORY.md), §-separated entries.",
    "user": "Who the user is: preferences, corrections, habits (USER.md), §-separated entries.",
}
SOUL_URI = f"{SCHEME}soul"
SKILL_URI = f"{SCHEME}skills/"
WRITE_TOOLS = ("memory", "skill_manage")
CLIENT_NAME_CHARS = 40  # characters of a client's name kept in the writer's name
UNNAMED_CLIENT = "unknown"

MEMORY_DESCRIPTION = (
    "Write the user's persistent memory, shared by every agent they use (Hermes Workstation keeps it). "
    "target=user: who the user is (preferences, corrections, habits); target=memory: facts about their "
    "environment (machines, projects, conventions). Short declarative entries; never task progress or "
    "procedures. action=add (content), replace (old_text, content) or remove (old_text); `operations` "
    "applies several at once. Read the current entries with memory_read first."
)
MEMORY_READ_SCHEMA: dict[str, Any] = {
    "name": "memory_read",
    "description": "Read the user's persistent memory: the entries of MEMORY.md (target=memory, facts about "
    "the environment) and USER.md (target=user, who the user is), with how full each is. Without a target, "
    "both.",
    "parameters": {
        "type": "object",
        "properties": {"target": {"type": "string", "enum": ["memory", "user"]}},
        "required": [],
    },
}


class KnowledgeError(Exception):
    """A resource or prompt that cannot be served; the message says why in one sentence."""


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    input_schema: dict[str, Any]


@dataclass(frozen=True)
class ResourceSpec:
    uri: str
    name: str
    description: str
    mime_type: str = "text/markdown"


@dataclass(frozen=True)
class PromptSpec:
    name: str
    description: str


def writer_name(client_name: str | None) -> str:
    """The journal's `who` for a client: `mcp:` and its initialize name, lower case, safe characters only."""
    name = re.sub(r"[^a-z0-9._-]+", "-", (client_name or "").strip().lower()).strip("-")
    return OUTSIDE_AGENT + (name[:CLIENT_NAME_CHARS] or UNNAMED_CLIENT)


class HomeKnowledge:
    """The tools, resources and prompts of one home, for any number of clients."""

    def __init__(self, home: Home, config: Config, *, read_only: bool = False) -> None:
        self.home = home
        self.config = config
        self.read_only = read_only
        self._memories: dict[str, Memory] = {}
        self._reader = SkillTools(home, config, who=writer_name("reader"))
        self._config_stamp = _stamp(home.config_file)

    def refresh(self) -> None:
        """Take up config.yaml again if it changed since it was read, so a setting the person changes in
        the workstation (`memory.write_approval`, `mcp_serve.allow_skill_writes`) holds at the next call;
        a file that no longer loads leaves the settings as they were."""
        stamp = _stamp(self.home.config_file)
        if stamp == self._config_stamp:
            return
        self._config_stamp = stamp
        try:
            self.config = load_config(self.home.root)
        except ConfigError:
            return
        self._memories.clear()
        self._reader = SkillTools(self.home, self.config, who=writer_name("reader"))

    # ── tools ────────────────────────────────────────────────────────────────────────────────────
    @property
    def skill_writes(self) -> bool:
        return not self.read_only and bool(self.config.mcp_serve.allow_skill_writes)

    def tools(self) -> list[ToolSpec]:
        """The tools offered: the readers always, `memory` unless read-only, `skill_manage` when allowed."""
        specs = []
        if not self.read_only:
            specs.append(ToolSpec("memory", MEMORY_DESCRIPTION, MEMORY_PARAMETERS))
        specs.append(_spec(MEMORY_READ_SCHEMA))
        specs += [_spec(SKILLS_LIST_SCHEMA), _spec(SKILL_VIEW_SCHEMA)]
        if self.skill_writes:
            specs.append(_spec(SKILL_MANAGE_SCHEMA))
        from engine.sessions.session_search import SESSION_SEARCH_SCHEMA

        specs.append(_spec(SESSION_SEARCH_SCHEMA))
        return specs

    async def call(self, tool: str, args: dict[str, Any], client_name: str | None) -> dict[str, Any]:
        """Run one tool call for a client; the result is the tool's dict (`success: False` on refusal)."""
        self.refresh()
        if tool not in {spec.name for spec in self.tools()}:
            return {"success": False, "error": self._not_offered(tool)}
        who = writer_name(client_name)
        if tool == "memory":
            memory = self._memory(who)
            memory.start_turn()  # each call stands alone: no turn gathers failed consolidations here
            return await asyncio.to_thread(memory.tool_call, args)
        if tool == "memory_read":
            return self.memory_read(args)
        if tool == "session_search":
            return await self.session_search(args)
        skills = SkillTools(self.home, self.config, who=who) if tool == "skill_manage" else self._reader
        return await asyncio.to_thread(skills.call, tool, args)

    def _not_offered(self, tool: str) -> str:
        if tool in WRITE_TOOLS and self.read_only:
            return f"'{tool}' is not served: this server is read-only (hws mcp serve --read-only)."
        if tool == "skill_manage":
            return "'skill_manage' is not served: skill writes are off (mcp_serve.allow_skill_writes)."
        return f"There is no tool named '{tool}' here."

    def _memory(self, who: str) -> Memory:
        if who not in self._memories:
            self._memories[who] = Memory(self.home, self.config, who=who)
        return self._memories[who]

    def memory_read(self, args: dict[str, Any]) -> dict[str, Any]:
        memory = self._memory(writer_name("reader"))
        target = args.get("target")
        if target is not None and target not in FILES:
            return {"success": False, "error": f"Invalid target '{target}'. Use 'memory' or 'user'."}
        chosen = [target] if target else list(FILES)
        result: dict[str, Any] = {"success": True}
        for name in chosen:
            if name not in memory.stores:
                result[name] = {"enabled": False, "entries": []}
                continue
            store = memory.stores[name]
            entries = store.entries()
            result[name] = {"file": store.filename, "entries": entries, "usage": store.usage(entries)}
        return result

    async def session_search(self, args: dict[str, Any]) -> dict[str, Any]:
        from engine.sessions.errors import StoreError
        from engine.sessions.session_search import session_search
        from engine.sessions.store import SessionStore

        if not self.home.state_db.exists() or self.home.state_db.stat().st_size == 0:
            return {"success": True, "results": [], "message": "No conversation is stored yet."}
        try:
            store = await SessionStore.open(self.home.state_db, settings=self.config.sessions, read_only=True)
        except StoreError as exc:
            return {"success": False, "error": str(exc)}
        try:
            return await session_search(store, args)
        finally:
            await store.close()

    # ── resources ────────────────────────────────────────────────────────────────────────────────
    def resources(self) -> list[ResourceSpec]:
        found = [
            ResourceSpec(uri, FILES[target], MEMORY_ABOUT[target]) for uri, target in MEMORY_URIS.items()
        ]
        found.append(ResourceSpec(SOUL_URI, "SOUL.md", "Who the agent is: its persona (SOUL.md)."))
        for skill in self._offered_skills():
            found.append(ResourceSpec(SKILL_URI + skill.name, skill.name, skill.description))
        return found

    def read(self, uri: str) -> str:
        """The text of one resource; KnowledgeError when there is none or it may not be read."""
        if uri in MEMORY_URIS:
            return self._memory(writer_name("reader")).store(MEMORY_URIS[uri]).read_raw()
        if uri == SOUL_URI:
            try:
                return self.home.soul.read_text(encoding="utf-8")
            except FileNotFoundError:
                return ""
            except (OSError, UnicodeDecodeError) as exc:
                raise KnowledgeError(f"SOUL.md cannot be read ({exc}).") from exc
        if uri.startswith(SKILL_URI):
            return str(self._view(uri[len(SKILL_URI) :])["content"])
        raise KnowledgeError(f"There is no resource {uri}; list them with resources/list.")

    # ── prompts ──────────────────────────────────────────────────────────────────────────────────
    def prompts(self) -> list[PromptSpec]:
        return [PromptSpec(skill.name, skill.description) for skill in self._offered_skills()]

    def prompt(self, name: str, instruction: str = "") -> str:
        """The skill as the user message that invokes it (Hermes' `/skill-name instruction`)."""
        if name not in {skill.name for skill in self._offered_skills()}:
            raise KnowledgeError(f"There is no skill prompt named '{name}'; list them with prompts/list.")
        return invocation_message(self._view(name), instruction)

    def _offered_skills(self) -> list[Any]:
        library = self._reader.library
        return library.visible(library.catalog())[0]

    def _view(self, name: str) -> dict[str, Any]:
        loaded = self._reader.skill_view({"name": name})
        if not loaded.get("success"):
            raise KnowledgeError(str(loaded.get("error") or f"The skill '{name}' cannot be read."))
        return loaded


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        info = path.stat()
    except OSError:
        return None
    return info.st_mtime_ns, info.st_size


def _spec(schema: dict[str, Any]) -> ToolSpec:
    return ToolSpec(schema["name"], schema["description"], schema["parameters"])
