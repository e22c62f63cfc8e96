"""Feeding the side panes: workers read the stores and the agent, and post what each pane shows.

A mixin of `HwsApp`. `refresh_panes("memory", "budget", ...)` starts one reading per pane; every
reading carries a sequence number so a slow old one never overwrites a newer one. Undo, a journal
entry's diff and opening a skill run here too: the panes only ask (with Messages).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import work

from tui import messages
from tui.read_panes import Readers, started_prompt

if TYPE_CHECKING:
    from engine.config import Config
    from engine.home import Home
    from tui.agent_port import AgentPort

PANE_NAMES = ("memory", "budget", "skills", "lineage")


class PaneFeeds:
    """Pane readings (mixed into `HwsApp`)."""

    home: Home
    config: Config
    workdir: Path
    agent: AgentPort | None
    session_id: str
    tui: Any

    if TYPE_CHECKING:
        main_screen: Any
        history: Any

        def post_message(self, message: Any) -> bool: ...
        def notify(self, message: str, **kwargs: Any) -> None: ...
        def push_screen(self, screen: Any, callback: Any = None) -> Any: ...
        def call_from_thread(self, callback: Any, *args: Any) -> Any: ...
        def reload_catalogs(self) -> None: ...
        def skill_changed_on_disk(self, name: str) -> None: ...

    def init_feeds(self) -> None:
        self.readers = Readers(self.home, self.config, self.workdir, self.wall_clock)
        self._reading_seq: dict[str, int] = dict.fromkeys(PANE_NAMES, 0)

    def _next(self, pane: str) -> int:
        self._reading_seq[pane] += 1
        return self._reading_seq[pane]

    def refresh_panes(self, *names: str) -> None:
        """Read again what these panes show (all of them when none is named)."""
        for name in names or PANE_NAMES:
            seq = self._next(name)
            if name == "memory":
                self._read_memory(seq)
            elif name == "budget":
                self._read_budget(seq)
            elif name == "skills":
                self._read_skills(seq)
            elif name == "lineage":
                self._read_lineage(seq)

    def _post_view(self, pane: str, view: object, seq: int) -> None:
        main = self.main_screen
        if main is not None:
            main.post_message(messages.ViewLoaded(pane, view, seq))

    def _warn(self, what: str, exc: BaseException) -> None:
        main = self.main_screen
        if main is not None:
            main.post_message(messages.Notice(f"Could not read {what}: {exc}", "warning", "!"))

    @work(thread=True, group="read-memory", exit_on_error=False, description="read the memory files")
    def _read_memory(self, seq: int) -> None:
        try:
            view = self.readers.memory_view(self.agent, int(self.tui.journal_rows))
        except Exception as exc:
            self._warn("the memory files", exc)
            return
        self._post_view("memory", view, seq)

    @work(group="read-budget", exit_on_error=False, description="measure the context window")
    async def _read_budget(self, seq: int) -> None:
        agent = self.agent
        window = int(self.config.model.context_length or self.tui.default_context_window)
        if started_prompt(agent) is not None and hasattr(agent, "context_window"):
            try:
                window = int(await agent.context_window())  # type: ignore[union-attr]
            except Exception:
                pass
        elif hasattr(agent, "known_context_window"):  # no session yet: what the endpoint already said
            window = agent.known_context_window() or window  # type: ignore[union-attr]
        try:
            view = await asyncio.to_thread(self.readers.budget_view, agent, window)
        except Exception as exc:
            self._warn("the prompt layers", exc)
            return
        self._post_view("budget", view, seq)

    @work(thread=True, group="read-skills", exit_on_error=False, description="read the skills")
    def _read_skills(self, seq: int) -> None:
        try:
            view = self.readers.skills_view(self.agent)
        except Exception as exc:
            self._warn("the skills", exc)
            return
        self._post_view("skills", view, seq)
        limit = int(self.tui.guard_scan_skills)
        if limit:
            first = [r.name for r in sorted(view.rows, key=lambda r: -r.tier)]
            verdicts = self.readers.skill_verdicts(first, limit)
            self._post_view("verdicts", verdicts, seq)

    @work(group="read-lineage", exit_on_error=False, description="read the session lineage")
    async def _read_lineage(self, seq: int) -> None:
        if not self.session_id:
            return
        try:
            chain = await self.history.lineage(self.session_id)
        except Exception:
            chain = (self.session_id,)
        self._post_view("lineage", chain, seq)

    def reading_is_current(self, pane: str, seq: int) -> bool:
        key = "skills" if pane == "verdicts" else pane
        return seq == 0 or seq >= self._reading_seq.get(key, 0)

    # What the panes ask for.

    def reload_pane(self, pane: str) -> None:
        """A pane's `reload_from_disk()` (the file watcher, or a user) asks for a fresh reading."""
        self.refresh_panes(pane)  # (a changed skill's verdict is stale by its folder's stamp)

    @work(thread=True, group="memory-undo", exit_on_error=False, description="undo a memory write")
    def undo_memory_entry(self, entry_id: str) -> None:
        result = self.readers.undo_memory(entry_id)
        main = self.main_screen
        if result.get("success"):
            main.post_message(messages.Notice(f"memory: {result.get('message', 'undone')}", "success", "↶"))
        else:
            main.post_message(messages.Notice(f"Not undone: {result.get('error')}", "warning", "!"))
        self.call_from_thread(self.refresh_panes, "memory")

    @work(thread=True, group="memory-undo", exit_on_error=False, description="undo the last write")
    def undo_last_write(self) -> None:
        sentence = self.readers.undo_last_write()
        level = "success" if sentence.startswith("Undid") else "warning"
        self.main_screen.post_message(messages.Notice(sentence, level, "↶"))
        self.call_from_thread(self.refresh_panes, "memory", "skills")

    @work(thread=True, group="pending", exit_on_error=False, description="approve or reject a pending write")
    def decide_pending(self, subsystem: str, pending_id: str, decision: str) -> None:
        """Approve or reject a write `*.write_approval` held back; the transcript says what came of it."""
        result = self.readers.decide_pending(subsystem, pending_id, decision)
        main = self.main_screen
        if result.get("success"):
            icon = "✓" if decision == "approve" else "✗"
            main.post_message(messages.Notice(f"{subsystem}: {result.get('message')}", "success", icon))
        else:
            verb = "approved" if decision == "approve" else "rejected"
            main.post_message(messages.Notice(f"Not {verb}: {result.get('error')}", "warning", "!"))
        self.call_from_thread(self.refresh_panes, "memory" if subsystem == "memory" else "skills")
        if subsystem == "skills" and result.get("success") and decision == "approve":
            self.call_from_thread(self.reload_catalogs)
            if result.get("name"):  # the next-session bar: a new session would read the skill as it is now
                self.call_from_thread(self.skill_changed_on_disk, str(result["name"]))

    @work(thread=True, group="show-text", exit_on_error=False, description="read a pending write's diff")
    def show_pending_diff(self, subsystem: str, pending_id: str) -> None:
        title, text = self.readers.pending_diff(subsystem, pending_id)
        self.call_from_thread(self._push_text, title, text, "diff")

    @work(thread=True, group="show-text", exit_on_error=False, description="read a journal diff")
    def show_journal_diff(self, entry_id: str) -> None:
        try:
            text = self.readers.journal_diff(entry_id) or "(this write changed nothing)"
        except Exception as exc:
            text = str(exc)
        self.call_from_thread(self._push_text, f"journal {entry_id}", text, "diff")

    @work(thread=True, group="show-text", exit_on_error=False, description="read a skill")
    def open_skill(self, name: str, path: str, warnings: tuple[str, ...] = ()) -> None:
        text = self.readers.skill_text(path) if path else f"Skill {name} has no file on disk."
        self.call_from_thread(
            self._push_text, f"skill {name} · {path}", text, "markdown", name if path else "", warnings
        )

    def _push_text(
        self, title: str, text: str, kind: str, edit_name: str = "", problems: tuple[str, ...] = ()
    ) -> None:
        from tui.screens.text_view import TextScreen

        self.push_screen(TextScreen(title, text, kind, edit_name, problems))
