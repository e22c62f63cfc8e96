"""The skills pane: the index with each skill's tier this session, its token cost and guard verdict.

○ indexed (Tier 1: a line in the system prompt), ● loaded (Tier 2: its SKILL.md was read), ◐ files
opened (Tier 3). A skill the agent created or patched this session carries ✚ / ✎; a guard verdict
other than safe shows as ⚠ caution or ✗ dangerous (✗ blocked, with the reason, when the guard keeps
the skill from the model), and parse warnings as !. The lines above the list
say how full the Tier 1 budget is and what it cut. Enter opens the highlighted skill (read-only).
With `skills.write_approval` on, the agent's skill writes wait at the top with their diff until
ctrl+a approves or ctrl+x rejects one (enter shows the whole diff).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static
from textual.widgets.option_list import Option

from engine.text.printable import printable
from widgets.gauge import format_tokens
from widgets.pane import Pane, PaneLog
from widgets.pending_list import PendingList, PendingRow

if TYPE_CHECKING:
    from engine import events

TIER_MARK = {0: ("·", "dim"), 1: ("○", "dim"), 2: ("●", "$primary"), 3: ("◐", "$accent")}
TIER_WORD = {0: "not indexed", 1: "indexed", 2: "loaded", 3: "files"}
CHANGE_MARK = {
    "create": ("✚ created", "bold $success"),
    "patch": ("✎ patched", "bold $accent"),
    "edit": ("✎ edited", "bold $accent"),
    "write_file": ("✎ file added", "$accent"),
    "remove_file": ("✎ file removed", "$accent"),
    "delete": ("✗ deleted", "bold $error"),
    "restore": ("↶ restored", "$accent"),
    "external": ("⟲ edited outside hws", "$warning"),
}
VERDICT_MARK = {"caution": ("⚠ caution", "$warning"), "dangerous": ("✗ dangerous", "bold $error")}
SHOWN_NOTE = {
    "cut": "desc cut",
    "name": "name only",
    "hidden": "folded",
    "excluded": "excluded",
    "new": "new: next session",
    "deleted": "deleted",
}


@dataclass(frozen=True)
class SkillRow:
    """One skill this session: where it stands (tier), what it costs, what the guard thinks of it."""

    name: str
    category: str = ""
    description: str = ""
    tier: int = 1  # 0 not in the index, 1 indexed, 2 loaded, 3 files opened
    shown: str = "full"  # how the index shows it: full | cut | name | hidden | excluded
    index_tokens: int = 0
    loaded_tokens: int = 0
    files: tuple[tuple[str, int], ...] = ()
    warnings: tuple[str, ...] = ()
    path: str = ""
    read_only: bool = False
    verdict: str = ""  # "" not scanned yet, safe, caution, dangerous
    findings: int = 0
    needs: str = ""  # settings it declares and the home lacks: `GITHUB_TOKEN, skills.config.wiki.path`

    @property
    def tokens(self) -> int:
        return self.index_tokens + self.loaded_tokens + sum(t for _f, t in self.files)


@dataclass(frozen=True)
class SkillsView:
    rows: tuple[SkillRow, ...] = ()
    index_tokens: int = 0
    budget: int = 0
    summary: str = ""
    cut: tuple[str, ...] = ()  # skills whose index line lost something to the budget
    excluded: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()  # skipped files, shadowed names
    session_started: bool = False
    pending: tuple[PendingRow, ...] = ()  # writes waiting for approval (skills.write_approval), oldest first


class SkillsPane(Pane):
    """F4: the skills this session knows, loads and changes."""

    pane_key = "F4"
    pane_title = "Skills"

    DEFAULT_CSS = """
    SkillsPane > #skills-intro {
        height: auto;
        max-height: 5;
        padding: 0 1;
        color: $text-muted;
        background: $surface;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "ctrl+a",
            "approve_pending",
            "approve",
            id="skills_approve",
            tooltip="Approve the highlighted skill write waiting for approval (skills.write_approval)",
        ),
        Binding(
            "ctrl+x",
            "reject_pending",
            "reject",
            id="skills_reject",
            tooltip="Reject the highlighted skill write waiting for approval; nothing is written",
        ),
    ]

    class ReloadRequested(Message):
        """The pane wants the index, the tiers and the verdicts read again."""

    class OpenRequested(Message):
        """Enter on a skill: show it."""

        def __init__(self, name: str, path: str, warnings: tuple[str, ...] = ()) -> None:
            super().__init__()
            self.name = name
            self.path = path
            self.warnings = warnings  # what reading it found wrong (bad frontmatter), said in the view

    def __init__(self, id: str | None = None) -> None:
        super().__init__(id=id)
        self.view = SkillsView()
        self.changed: dict[str, str] = {}
        self.verdicts: dict[str, tuple[str, int, str]] = {}
        self.loads: dict[str, tuple[int, dict[str, int]]] = {}  # this session's loads, from the events
        self.edited_outside: set[str] = set()  # skill folders changed by hand (an editor) this session
        self._summarise()

    def compose_body(self) -> ComposeResult:
        yield Static(id="skills-intro", classes="pane-body")
        yield PendingList(
            "skills",
            "ctrl+a approve · ctrl+x reject · enter diff",
            id="skills-pending",
            classes="pane-body",
        )
        yield PaneLog(max_entries=100_000, newest_first=True, id="skills-list", classes="pane-body")

    @property
    def entries(self) -> PaneLog:
        return self.query_one("#skills-list", PaneLog)

    @property
    def pending(self) -> PendingList:
        return self.query_one(PendingList)

    def focus_target(self) -> Widget:
        if self.collapsed:
            return self
        return self.pending.entries if self.view.pending else self.entries

    # What the app calls.

    def reload_from_disk(self) -> None:
        """Re-read the skills folder, the index and the session's tiers (the file watcher calls this)."""
        self.post_message(self.ReloadRequested())

    def show(self, view: SkillsView) -> None:
        self.view = self._with_loads(view)
        self._summarise()
        if self.is_mounted:
            self.pending.show(view.pending)
        self._draw()

    def _with_loads(self, view: SkillsView) -> SkillsView:
        """A reading never shows a skill at a lower tier than the session's events already did."""
        if not self.loads:
            return view
        rows = {row.name: row for row in view.rows}
        for name, (loaded, files) in self.loads.items():
            row = rows.get(name) or SkillRow(name, tier=0, shown="")
            tier = 3 if files else 2
            if row.tier < tier or (tier == 3 and not row.files):
                merged_files = dict(row.files)
                merged_files.update(files)
                rows[name] = replace(
                    row,
                    tier=max(row.tier, tier),
                    loaded_tokens=max(row.loaded_tokens, loaded),
                    files=tuple(merged_files.items()),
                )
        return replace(view, rows=tuple(rows.values()))

    def set_verdicts(self, verdicts: dict[str, tuple[str, int, str]]) -> None:
        self.verdicts.update(verdicts)
        self._draw()

    def skill_changed(self, event: events.SkillChanged) -> None:
        self.changed[event.name] = event.action
        self._summarise()
        self._draw()

    def changed_outside(self, skill_dirs: list[str]) -> None:
        """Files of these skill folders were changed by hand (any file: the body as well as the
        frontmatter), which the next load or session reads: marked until the next session."""
        self.edited_outside.update(skill_dirs)
        self._summarise()
        self._draw()

    def _change(self, row: SkillRow) -> str:
        """What happened to a skill this session: the agent's change, else a hand edit, else ""."""
        if row.name in self.changed:
            return self.changed[row.name]
        folder = os.path.abspath(os.path.dirname(row.path)) if row.path else ""
        return "external" if folder in self.edited_outside else ""

    def skill_loaded(self, event: events.SkillLoaded) -> None:
        """Mark the tier at once; the reading that follows brings the exact costs."""
        loaded, files = self.loads.get(event.name, (0, {}))
        if event.file_path:
            files = {**files, event.file_path: files.get(event.file_path, 0) + event.tokens}
        else:
            loaded += event.tokens
        self.loads[event.name] = (loaded, files)
        self.view = self._with_loads(self.view)
        self._summarise()
        self._draw()

    def reset_session(self) -> None:
        self.changed.clear()
        self.loads.clear()
        self.edited_outside.clear()
        self._summarise()
        self._draw()

    # Drawing.

    def _counts(self) -> tuple[int, int, int]:
        rows = self.view.rows
        indexed = sum(1 for r in rows if r.tier >= 1)
        loaded = sum(1 for r in rows if r.tier >= 2)
        files = sum(len(r.files) for r in rows)
        return indexed, loaded, files

    def _summarise(self) -> None:
        indexed, loaded, files = self._counts()
        parts: list[Content | str] = []
        if self.view.pending:
            parts += [Content.styled(f"⏸ {len(self.view.pending)} pending", "bold $warning"), " · "]
        parts.append(f"{indexed} indexed · {loaded} loaded · {files} file{'s' if files != 1 else ''}")
        # The agent's changes (a deleted skill has no row any more) and the skills edited by hand.
        changed = set(self.changed) | {row.name for row in self.view.rows if self._change(row)}
        if changed:
            parts.append(f" · {len(changed)} changed")
        self.summary = Content.assemble(*parts)
        self.brief = f"{loaded}/{indexed}"

    def _intro(self) -> Content:
        view = self.view
        lines: list[Content] = []
        if view.budget:
            share = view.index_tokens / view.budget if view.budget else 0.0
            lines.append(
                Content.assemble(
                    ("Tier 1 ", "bold"),
                    f"{format_tokens(view.index_tokens)} / {format_tokens(view.budget)} tokens ",
                    f"({share * 100:.0f}%)",
                )
            )
            # Its own line: beside the budget it wrapped in the middle ("· enter" / "opens").
            lines.append(Content.styled("○ indexed ● loaded ◐ files · enter opens", "dim"))
        if view.cut:
            names = ", ".join(view.cut[:6]) + (f" +{len(view.cut) - 6}" if len(view.cut) > 6 else "")
            lines.append(Content.assemble(("budget cut ", "$warning"), f"{len(view.cut)}: {names}"))
        if view.excluded:
            lines.append(
                Content.styled(f"excluded (disabled or other platform): {len(view.excluded)}", "dim")
            )
        if view.problems:
            lines.append(
                Content.assemble(
                    ("! ", "$warning"),
                    view.problems[0],
                    (f"  (+{len(view.problems) - 1})" if len(view.problems) > 1 else "", "dim"),
                )
            )
        if not view.rows:
            lines.append(
                Content.styled("No skills yet: the agent saves one after a hard task.", "dim italic")
            )
        return Content("\n").join(lines)

    def _option(self, row: SkillRow) -> Option:
        mark, style = TIER_MARK.get(row.tier, ("·", "dim"))
        name = printable(f"{row.category}/{row.name}" if row.category else row.name)
        parts: list[Content | str | tuple[str, str]] = [
            (f"{mark} ", style),
            (name, "bold" if row.tier > 1 else ""),
        ]
        where = TIER_WORD.get(row.tier, "")
        if row.tier == 3 and row.files:
            shown = ", ".join(printable(f) for f, _t in row.files[:2])
            where = "file: " + shown + ("…" if len(row.files) > 2 else "")
        parts += ["  ", (where, style), "  ", (format_tokens(row.tokens), "dim")]
        note = SHOWN_NOTE.get(row.shown)
        if note:
            parts += ["  ", (note, "$warning" if row.shown in ("cut", "hidden") else "dim")]
        change = self._change(row)
        if change:
            text, change_style = CHANGE_MARK.get(change, (change, "bold"))
            parts += ["  ", (text, change_style)]
        verdict, findings, blocked = self.verdicts.get(row.name, (row.verdict, row.findings, ""))
        if blocked:
            parts += ["  ", (f"✗ blocked: {blocked}", "bold $error")]
        elif verdict in VERDICT_MARK:
            text, verdict_style = VERDICT_MARK[verdict]
            parts += ["  ", (f"{text} ({findings})", verdict_style)]
        if row.needs:
            parts += ["  ", (f"⚙ needs {printable(row.needs)}", "$warning")]
        if row.warnings:
            parts += [
                "  ",
                (f"! {len(row.warnings)} warning{'s' if len(row.warnings) != 1 else ''}", "$warning"),
            ]
        return Option(Content.assemble(*parts), id=row.name)

    def ordered_rows(self) -> list[SkillRow]:
        """Changed skills first, then deepest tier, then by category and name."""
        return sorted(self.view.rows, key=lambda r: (not self._change(r), -r.tier, r.category, r.name))

    def _draw(self) -> None:
        if not self.is_mounted:
            return
        self.query_one("#skills-intro", Static).update(self._intro())
        log = self.entries
        highlighted = log.highlighted
        kept = log.get_option_at_index(highlighted).id if highlighted is not None else None
        log.clear_options()
        log.add_options(self._option(row) for row in self.ordered_rows())
        if kept is not None:
            try:
                log.highlighted = log.get_option_index(kept)
            except Exception:
                log.highlighted = 0 if log.option_count else None

    def on_mount(self) -> None:
        super().on_mount()
        self._draw()

    def row(self, name: str) -> SkillRow | None:
        return next((r for r in self.view.rows if r.name == name), None)

    def action_approve_pending(self) -> None:
        if not self.pending.decide("approve"):
            self.notify("No skill write waits for approval.")

    def action_reject_pending(self) -> None:
        if not self.pending.decide("reject"):
            self.notify("No skill write waits for approval.")

    def on_option_list_option_selected(self, event: PaneLog.OptionSelected) -> None:
        event.stop()
        row = self.row(event.option.id or "")
        if row is not None:
            self.post_message(self.OpenRequested(row.name, row.path, row.warnings))
