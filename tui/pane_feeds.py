"""Feeding the side panes: workers read the stores and the agent, and post what each pane shows.

`PaneFeeds.refresh("memory", "budget", ...)` starts one reading per pane, as the app's worker; every
reading carries a check that says whether a newer one has begun since, so a slow old reading never
overwrites a newer one. Undo, a journal entry's diff and opening a skill run here too: the panes only
ask (with Messages, which the app hands over).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from textual.message import Message

from tui import messages
from tui.read_panes import Readers, started_prompt
from tui.staleness import PANE_NAMES

if TYPE_CHECKING:
    from tui.app import HwsApp


class PaneFeeds:
    """The side panes' readings and the pane requests that read or write the stores."""

    def __init__(self, app: HwsApp) -> None:
        self.app = app
        self.readers = Readers(app.home, app.config, app.workdir, app.wall_clock)
        self._reading_seq: dict[str, int] = dict.fromkeys(PANE_NAMES, 0)

    def _next(self, pane: str) -> int:
        self._reading_seq[pane] += 1
        return self._reading_seq[pane]

    def _is_current(self, pane: str, seq: int) -> Callable[[], bool]:
        return lambda: seq >= self._reading_seq.get(pane, 0)

    def _run(self, work: Callable[[], object], name: str, group: str, description: str, thread: bool) -> None:
        self.app.run_worker(
            work, name=name, group=group, description=description, exit_on_error=False, thread=thread
        )

    def refresh(self, *names: str) -> None:
        """Read again what these panes show (all of them when none is named)."""
        for name in names or PANE_NAMES:
            seq = self._next(name)
            if name == "memory":
                self._run(
                    partial(self._read_memory, seq),
                    "_read_memory",
                    "read-memory",
                    "read the memory files",
                    True,
                )
            elif name == "budget":
                self._run(
                    partial(self._read_budget, seq),
                    "_read_budget",
                    "read-budget",
                    "measure the context window",
                    False,
                )
            elif name == "skills":
                self._run(
                    partial(self._read_skills, seq), "_read_skills", "read-skills", "read the skills", True
                )
            elif name == "lineage":
                self._run(
                    partial(self._read_lineage, seq),
                    "_read_lineage",
                    "read-lineage",
                    "read the session lineage",
                    False,
                )

    def _post(self, message: Message) -> None:
        main = self.app.main_screen
        if main is not None:
            main.post_message(message)

    def _warn(self, what: str, exc: BaseException) -> None:
        self._post(messages.Notice(f"Could not read {what}: {exc}", "warning", "!"))

    def _read_memory(self, seq: int) -> None:
        try:
            view = self.readers.memory_view(self.app.agent, int(self.app.tui.journal_rows))
        except Exception as exc:
            self._warn("the memory files", exc)
            return
        self._post(messages.MemoryRead(view, self._is_current("memory", seq)))

    async def _read_budget(self, seq: int) -> None:
        agent = self.app.agent
        window = int(self.app.config.model.context_length or self.app.tui.default_context_window)
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
        self._post(messages.BudgetRead(view, self._is_current("budget", seq)))

    def _read_skills(self, seq: int) -> None:
        try:
            view = self.readers.skills_view(self.app.agent)
        except Exception as exc:
            self._warn("the skills", exc)
            return
        self._post(messages.SkillsRead(view, self._is_current("skills", seq)))
        limit = int(self.app.tui.guard_scan_skills)
        if limit:
            first = [r.name for r in sorted(view.rows, key=lambda r: -r.tier)]
            verdicts = self.readers.skill_verdicts(first, limit)
            self._post(messages.VerdictsRead(verdicts, self._is_current("skills", seq)))

    async def _read_lineage(self, seq: int) -> None:
        session_id = self.app.session_id
        if not session_id:
            return
        reader = self.app.history_feeds.reader
        try:
            chain = await reader.lineage(session_id)
            branch_of, branches = await reader.branches(chain)
        except Exception:
            chain, branch_of, branches = (session_id,), "", ()
        current = self._is_current("lineage", seq)
        self._post(messages.LineageRead(tuple(chain), current, branch_of, branches))

    # What the panes ask for.

    def undo_memory_entry(self, entry_id: str) -> None:
        self._run(
            partial(self._undo_memory_entry, entry_id),
            "undo_memory_entry",
            "memory-undo",
            "undo a memory write",
            True,
        )

    def _undo_memory_entry(self, entry_id: str) -> None:
        result = self.readers.undo_memory(entry_id)
        if result.get("success"):
            self._post(messages.Notice(f"memory: {result.get('message', 'undone')}", "success", "↶"))
        else:
            self._post(messages.Notice(f"Not undone: {result.get('error')}", "warning", "!"))
        self.app.call_from_thread(self.refresh, "memory")

    def undo_last_write(self) -> None:
        self._run(self._undo_last_write, "undo_last_write", "memory-undo", "undo the last write", True)

    def _undo_last_write(self) -> None:
        sentence = self.readers.undo_last_write()
        level = "success" if sentence.startswith("Undid") else "warning"
        self._post(messages.Notice(sentence, level, "↶"))
        self.app.call_from_thread(self.refresh, "memory", "skills")

    def decide_pending(self, subsystem: str, pending_id: str, decision: str) -> None:
        """Approve or reject a write `*.write_approval` held back; the transcript says what came of it."""
        work = partial(self._decide_pending, subsystem, pending_id, decision)
        self._run(work, "decide_pending", "pending", "approve or reject a pending write", True)

    def _decide_pending(self, subsystem: str, pending_id: str, decision: str) -> None:
        result = self.readers.decide_pending(subsystem, pending_id, decision)
        if result.get("success"):
            icon = "✓" if decision == "approve" else "✗"
            self._post(messages.Notice(f"{subsystem}: {result.get('message')}", "success", icon))
        else:
            verb = "approved" if decision == "approve" else "rejected"
            self._post(messages.Notice(f"Not {verb}: {result.get('error')}", "warning", "!"))
        app = self.app
        app.call_from_thread(self.refresh, "memory" if subsystem == "memory" else "skills")
        if subsystem == "skills" and result.get("success") and decision == "approve":
            app.call_from_thread(app.reload_catalogs)
            if result.get("name"):  # the next-session bar: a new session would read the skill as it is now
                app.call_from_thread(app.live_files.skill_changed_on_disk, str(result["name"]))

    def list_pending(self, subsystem: str) -> None:
        self._run(
            partial(self._list_pending, subsystem), "list_pending", "pending", "list the pending writes", True
        )

    def _list_pending(self, subsystem: str) -> None:
        rows = self.readers.pending_rows(subsystem)
        if not rows:
            self._post(messages.Notice(f"No {subsystem} write waits for your approval.", "info", "i"))
            return
        lines = [f"{len(rows)} {subsystem} write{'s' if len(rows) != 1 else ''} waiting for your approval:"]
        for row in rows:
            problem = f" — ! {row.problem}" if row.problem else ""
            lines.append(f"  {row.pending_id}  {row.who}: {row.summary}{problem}")
        lines.append(f"/{subsystem} approve ID, /{subsystem} reject ID, /{subsystem} diff ID.")
        self._post(messages.Notice("\n".join(lines), "info", "⏸"))

    def show_pending_diff(self, subsystem: str, pending_id: str) -> None:
        work = partial(self._show_pending_diff, subsystem, pending_id)
        self._run(work, "show_pending_diff", "show-text", "read a pending write's diff", True)

    def _show_pending_diff(self, subsystem: str, pending_id: str) -> None:
        title, text = self.readers.pending_diff(subsystem, pending_id)
        self.app.call_from_thread(self._push_text, title, text, "diff")

    def show_journal_diff(self, entry_id: str) -> None:
        self._run(
            partial(self._show_journal_diff, entry_id),
            "show_journal_diff",
            "show-text",
            "read a journal diff",
            True,
        )

    def _show_journal_diff(self, entry_id: str) -> None:
        try:
            text = self.readers.journal_diff(entry_id) or "(this write changed nothing)"
        except Exception as exc:
            text = str(exc)
        self.app.call_from_thread(self._push_text, f"journal {entry_id}", text, "diff")

    def open_skill(self, name: str, path: str, warnings: tuple[str, ...] = ()) -> None:
        self._run(
            partial(self._open_skill, name, path, warnings), "open_skill", "show-text", "read a skill", True
        )

    def _open_skill(self, name: str, path: str, warnings: tuple[str, ...]) -> None:
        text = self.readers.skill_text(path) if path else f"Skill {name} has no file on disk."
        self.app.call_from_thread(
            self._push_text, f"skill {name} · {path}", text, "markdown", name if path else "", warnings
        )

    def _push_text(
        self, title: str, text: str, kind: str, edit_name: str = "", problems: tuple[str, ...] = ()
    ) -> None:
        from tui.screens.text_view import TextScreen

        self.app.push_screen(TextScreen(title, text, kind, edit_name, problems))
