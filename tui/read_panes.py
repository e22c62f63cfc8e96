"""Reading what the side panes show, from the engine's stores and the running agent (in workers).

Each reader takes the home, the config and the agent (None before one exists; not started before
the first turn) and returns the plain view dataclass its pane draws. Nothing here touches a widget,
and everything may run in a thread: the files are read under the stores' own locks.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.skills.needs import missing_settings
from widgets.budget_pane import BudgetLayer, BudgetView, McpShare
from widgets.memory_pane import JournalRow, MemoryFile, MemoryView
from widgets.pending_list import PendingRow
from widgets.skills_pane import SkillRow, SkillsView

if TYPE_CHECKING:
    from engine.config import Config
    from engine.home import Home
    from engine.memory.store import Memory
    from engine.prompt.layers import SystemPrompt
    from engine.skills.gate import SkillGate

_UNDONE_MEMORY = re.compile(r"\bundo ([0-9a-f]{4,})\b")
_UNDONE_SKILL = re.compile(r"restored to before ([0-9a-f]{4,})\b")


@dataclass
class Readers:
    """The workstation's own handles on the stores (as the user), shared by the pane workers."""

    home: Home
    config: Config
    workdir: Path
    wall_clock: Callable[[], float] = time.time  # the date in the preview's session layer
    _memory: Memory | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _schema_tokens: dict[int, int] = field(default_factory=dict)
    _gate: SkillGate | None = None
    _mcp_cost: tuple[tuple[int, ...], Any] = ((), None)  # (what it was counted for, the hub's SchemaCost)

    @property
    def memory(self) -> Memory:
        """The memory stores as the user writes them (undo, hand edits), created on first use."""
        with self._lock:
            if self._memory is None:
                from engine.memory.store import Memory

                self._memory = Memory(self.home, self.config, who="user")
            return self._memory

    # Memory.

    def memory_view(self, agent: Any, journal_rows: int) -> MemoryView:
        from engine.memory.format import FILES, char_count

        memory = self.memory
        prompt = started_prompt(agent)
        files = []
        for target in ("memory", "user"):
            store = memory.store(target)
            enabled = target in memory.stores
            problem = "" if enabled else f"{FILES[target]} is off in config (memory.*_enabled)."
            unreadable = False
            try:
                state = store.state()
                disk = tuple(state.entries)
                if state.drift:
                    problem = (
                        f"{FILES[target]} has text the memory tool would not write back (a hand edit?); "
                        "the agent refuses to change it until it is a clean §-list."
                    )
            except Exception as exc:  # MemoryRefused (not UTF-8, a symlink out of the home), OSError
                disk, problem = (), str(getattr(exc, "result", {}).get("error") or exc)
                unreadable = True
            frozen = frozen_entries(prompt, target) if prompt is not None else None
            files.append(
                MemoryFile(
                    target=target,
                    filename=FILES[target],
                    limit=store.limit,
                    disk=disk,
                    disk_chars=char_count(list(disk)),
                    frozen=frozen,
                    frozen_chars=char_count(list(frozen)) if frozen is not None else 0,
                    problem=problem,
                    unreadable=unreadable,
                    modified_at=_modified_at(store.path),
                )
            )
        rows: tuple[JournalRow, ...] = ()
        journal_problem = ""
        try:
            entries = memory.history(limit=journal_rows)
            rows = tuple(
                JournalRow(e.id, e.at, e.who, e.action, e.target, e.summary) for e in reversed(entries)
            )
        except Exception as exc:  # JournalError: a sentence
            journal_problem = str(exc)
        return MemoryView(
            tuple(files), rows, prompt is not None, journal_problem, self.pending_rows("memory")
        )

    # Writes waiting for approval (memory.write_approval, skills.write_approval).

    def pending_rows(self, subsystem: str) -> tuple[PendingRow, ...]:
        """Pending writes of `memory` or `skills`, oldest first, with the diff approving each makes now."""
        from engine.pending.approval import pending

        items, _unreadable = pending(self.home, self.config, subsystem)
        return tuple(
            PendingRow(i.record.id, i.record.who, i.record.summary, i.diff, i.problem, i.unchanged)
            for i in items
        )

    def decide_pending(self, subsystem: str, pending_id: str, decision: str) -> dict[str, Any]:
        """Approve (through the store's own path) or reject one pending write."""
        from engine.pending.approval import approve, reject

        if decision == "approve":
            return approve(self.home, self.config, subsystem, pending_id)
        return reject(self.home, subsystem, pending_id)

    def pending_diff(self, subsystem: str, pending_id: str) -> tuple[str, str]:
        """(title, text) of the whole diff approving one pending write would make now."""
        from engine.pending.approval import review
        from engine.pending.records import StagedError, StagedWrites

        try:
            record = StagedWrites(self.home).find(subsystem, pending_id)
        except StagedError as exc:
            return f"pending {pending_id}", str(exc)
        item = review(self.home, self.config, record)
        head = f"! {item.problem}\n\n" if item.problem else ""
        body = item.diff or (
            "(already there: approving it changes nothing)" if item.unchanged else "(no change)"
        )
        return f"pending {subsystem} write {record.id} · {record.summary}", head + body

    def undo_memory(self, entry_id: str) -> dict[str, Any]:
        return self.memory.undo(entry_id)

    def journal_diff(self, entry_id: str) -> str:
        return self.memory.journal.diff(entry_id)

    def undo_last_write(self) -> str:
        """Undo the newest memory or skill write not undone yet; the sentence says what happened."""
        journal = self.memory.journal
        entries = [e for e in journal.entries() if e.kind in ("memory", "skill")]
        undone: set[str] = set()
        for entry in reversed(entries):
            if entry.who == "undo" or entry.action == "undo":
                undone.update(_UNDONE_MEMORY.findall(entry.summary))
                continue
            if entry.action == "restore":
                undone.update(_UNDONE_SKILL.findall(entry.summary))
                continue
            if any(entry.id.startswith(u) for u in undone):
                continue
            if entry.kind == "memory":
                result = self.memory.undo(entry.id)
                if result.get("success"):
                    return f"Undid {entry.action} on {entry.path} ({entry.who}, {entry.id}): {entry.summary}"
                return f"Could not undo {entry.id}: {result.get('error')}"
            return self._undo_skill(entry)
        return "Nothing to undo: no memory or skill write is left in the journal."

    def _undo_skill(self, entry: Any) -> str:
        from engine.skills.history import HistoryError
        from engine.skills.library import SkillLibrary
        from engine.skills.manage import SkillManager

        library = SkillLibrary(self.home, self.config)
        manager = SkillManager(library, "user")
        skill = library.catalog().get(entry.target)
        try:
            with manager.lock():
                result = manager.history.restore(
                    entry.target,
                    entry.id,
                    True,
                    "user",
                    skill.skill_dir if skill and not skill.read_only else None,
                )
        except HistoryError as exc:
            return f"Could not undo {entry.id}: {exc}"
        changed = len(result.written) + len(result.removed)
        if not changed:
            return f"Skill {entry.target} already matches its state before {entry.id}; nothing changed."
        return (
            f"Undid {entry.action} of skill {entry.target} ({entry.who}, {entry.id}): "
            f"{changed} file(s) restored."
        )

    # Budget.

    def budget_view(self, agent: Any, window: int) -> BudgetView:
        prompt = started_prompt(agent)
        preview = prompt is None
        conversation = messages = 0
        if prompt is None:
            prompt, tools = self.preview_prompt()
        else:
            tools = self.schema_tokens(agent.registry)
            history = list(getattr(agent, "history", []))
            messages = len(history)
            with contextlib.suppress(Exception):
                conversation = max(0, int(agent.estimated_tokens()) - prompt.tokens - tools)
        layers = tuple(BudgetLayer(ly.name, ly.tokens, ly.cached, ly.note) for ly in prompt.layers)
        compressor = getattr(agent, "compressor", None) if agent is not None else None
        threshold = 0
        if compressor is not None:
            with contextlib.suppress(Exception):
                threshold = int(compressor.threshold_tokens(window))
        elif bool(self.config.compression.enabled):
            threshold = int(float(self.config.compression.threshold) * window)
        where = terminal_label(self.config)
        mcp = self.mcp_share(agent)
        if mcp is not None and conversation:
            conversation = max(0, conversation - mcp.tokens)
        client = getattr(agent, "client", None) if agent is not None else None
        model = str(getattr(getattr(client, "settings", None), "model", "") or "")
        provider = str(getattr(client, "provider", "") or "")
        return BudgetView(
            window, layers, conversation, tools, threshold, preview, messages, where, mcp, model, provider
        )

    def mcp_share(self, agent: Any) -> McpShare | None:
        """The MCP servers' schemas as a layer of their own (None when config.yaml names no server)."""
        hub = getattr(agent, "mcp", None) if agent is not None else None
        if hub is None:
            return None
        key = (id(hub), id(hub.sent), len(hub.sent), len(hub.deferred), id(hub.servers))
        if self._mcp_cost[0] != key:
            self._mcp_cost = (key, hub.schema_cost())
        cost = self._mcp_cost[1]
        return McpShare(cost.tokens, cost.tools, cost.deferred, cost.servers)

    def schema_tokens(self, registry: Any) -> int:
        key = id(registry)
        if key not in self._schema_tokens:
            from engine.prompt.build import tool_schema_tokens

            self._schema_tokens[key] = tool_schema_tokens(registry.schemas())
        return self._schema_tokens[key]

    def preview_prompt(self) -> tuple[SystemPrompt, int]:
        """The prompt a session started now would get, and its tool schemas' tokens."""
        from engine.prompt.build import build_system_prompt
        from engine.skills.library import SkillLibrary
        from engine.tools.knowledge import agent_registry

        registry = agent_registry()
        names = registry.names
        prompt = build_system_prompt(
            self.home,
            self.config,
            tool_names=names,
            skills_index=SkillLibrary(self.home, self.config).index() if "skill_view" in names else None,
            snapshot=self.memory.load_snapshot() if "memory" in names else None,
            cwd=self.workdir,
            model=self.config.model_name,
            started=dt.datetime.fromtimestamp(self.wall_clock()),
        )
        return prompt, self.schema_tokens(registry)

    # Skills.

    def skills_view(self, agent: Any) -> SkillsView:
        from engine.skills.library import SkillLibrary

        skills = getattr(agent, "skills", None) if started_prompt(agent) is not None else None
        library = skills.library if skills is not None else SkillLibrary(self.home, self.config)
        catalog = library.catalog()
        shown_in_index: dict[str, tuple[str, int]] = {}
        tiers: dict[str, Any] = {}
        if skills is not None:
            for tier in skills.tiers.rows():
                tiers[tier.name] = tier
                if tier.index_shown:
                    shown_in_index[tier.name] = (tier.index_shown, tier.index_tokens)
            index_tokens = int(skills.tiers.index_tokens)
            excluded: tuple[str, ...] = ()
            summary = ""
        else:
            index = library.index(catalog=catalog)
            for entry in index.entries:
                shown_in_index[entry.name] = (entry.shown, entry.tokens)
            index_tokens = index.tokens
            excluded = tuple(index.excluded)
            summary = index.summary()
        rows = []
        known = set()
        for skill in catalog.skills:
            known.add(skill.name)
            shown, cost = shown_in_index.get(skill.name, ("", 0))
            tier = tiers.get(skill.name)
            if not shown:  # not in the index the model got: disabled, or written after it was built
                shown = (
                    "excluded" if skill.name in excluded else ("new" if skills is not None else "excluded")
                )
            level = 1 if shown in ("full", "cut", "name", "hidden") else 0
            if tier is not None and (tier.loads or tier.files):
                level = tier.tier
            rows.append(
                SkillRow(
                    name=skill.name,
                    category=skill.category,
                    description=skill.description,
                    tier=level,
                    shown=shown,
                    index_tokens=cost,
                    loaded_tokens=tier.loaded_tokens if tier is not None else 0,
                    files=tuple(tier.files.items()) if tier is not None else (),
                    warnings=tuple(skill.warnings),
                    path=str(skill.skill_md),
                    read_only=skill.read_only,
                    needs=missing_settings(skill.needs, self.config),
                )
            )
        for name, tier in tiers.items():  # loaded this session, gone from disk since
            if name not in known and (tier.loads or tier.files):
                rows.append(
                    SkillRow(
                        name,
                        tier=tier.tier,
                        shown="deleted",
                        loaded_tokens=tier.loaded_tokens,
                        files=tuple(tier.files.items()),
                    )
                )
        cut = tuple(r.name for r in rows if r.shown in ("cut", "name", "hidden"))
        problems = tuple(catalog.warnings) + tuple(catalog.skipped)
        return SkillsView(
            rows=tuple(rows),
            index_tokens=index_tokens,
            budget=int(self.config.skills.index_token_budget),
            summary=summary,
            cut=cut,
            excluded=excluded,
            problems=problems,
            session_started=skills is not None,
            pending=self.pending_rows("skills"),
        )

    def skill_verdicts(self, names_first: list[str], limit: int) -> dict[str, tuple[str, int, str]]:
        """Guard verdicts (verdict, findings, why it is blocked or "") of up to `limit` skills; kept ones
        are not scanned again."""
        from engine.skills.gate import SkillGate
        from engine.skills.guard import GuardLimits
        from engine.skills.library import SkillLibrary

        catalog = SkillLibrary(self.home, self.config).catalog()
        order = {name: i for i, name in enumerate(names_first)}
        skills = sorted(catalog.skills, key=lambda s: (order.get(s.name, len(order)), s.name))[:limit]
        if self._gate is None:
            self._gate = SkillGate(self.home, GuardLimits.from_config(self.config.skills))
        gate = self._gate
        found: dict[str, tuple[str, int, str]] = {}
        for skill in skills:
            verdict = gate.verdict(skill)
            found[skill.name] = (verdict.verdict, verdict.findings, verdict.reason)
        if len(skills) == len(catalog.skills):
            gate.cache.keep_only({str(skill.skill_dir) for skill in skills})
        gate.save()
        return found

    def skill_text(self, path: str) -> str:
        """A skill's SKILL.md for the read-only view (a sentence when it cannot be read)."""
        file = Path(path)
        if not file.is_file():
            return f"{path} is not there any more (deleted or moved)."
        try:
            data = file.read_bytes()
        except OSError as exc:
            return f"Cannot read {path}: {exc.strerror}."
        return data.decode("utf-8", errors="replace")


def _modified_at(path: Path) -> float:
    """When a file last changed (0.0 when it is not there)."""
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def started_prompt(agent: Any) -> SystemPrompt | None:
    """The frozen prompt of the agent's session, or None when there is no session yet."""
    if agent is None:
        return None
    prompt = getattr(agent, "prompt", None)
    return prompt if prompt is not None and hasattr(prompt, "layers") else None


def frozen_entries(prompt: SystemPrompt, target: str) -> tuple[str, ...]:
    """The entries of one memory file as the model sees them in this session's prompt."""
    from engine.memory.format import DELIMITER
    from engine.memory.snapshot import HEADERS, SEPARATOR

    layer = prompt.layer(target)
    text = layer.text if layer is not None else prompt.text
    head = f"{SEPARATOR}\n{HEADERS[target]}"
    start = text.find(head)
    if start < 0:
        return ()
    body_start = text.find(f"\n{SEPARATOR}\n", start + len(head))
    if body_start < 0:
        return ()
    body = text[body_start + len(SEPARATOR) + 2 :]
    if layer is None:  # a stored prompt: the block ends where the next one (or the session line) starts
        ends = [i for i in (body.find(f"\n\n{SEPARATOR}"), body.find("\n\nConversation started:")) if i >= 0]
        body = body[: min(ends)] if ends else body
    return tuple(entry.strip() for entry in body.split(DELIMITER) if entry.strip())


def terminal_label(config: Any) -> str:
    """Where terminal commands run, for the budget pane (`local`, `ssh dev@box`, `docker python:3.12`)."""
    from engine.tools.backends.choice import backend_label, backend_name, backend_problem

    if backend_problem(config):
        return f"{backend_name(config)} (not usable: hws doctor says why)"
    return backend_label(config)
