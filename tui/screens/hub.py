"""The skills hub screen (`/hub`, `hws skills browse`): search the taps, read a skill's text and files
with its source, trust and the guard's verdict, and install it with one key.

The screen runs no work: it asks (SearchRequested, ViewRequested, InstallRequested bubble to the app,
whose tui/hub_work.py runs each in a thread worker, since git and HTTP block) and draws the answers
(Found, Viewed, Installed) in its handlers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import DataTable, Input, Static

if TYPE_CHECKING:
    from engine.skills.hub.hub import Preview, SearchResult, SkillsHub
    from engine.skills.hub.model import HubSkill

TEXT_LINES = 40  # lines of SKILL.md shown in the detail


class HubScreen(ModalScreen[str | None]):
    """Dismissed with the last install's message (or None)."""

    CSS_PATH = "hub.tcss"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "close", id="close_hub"),
        Binding("slash", "search", "search", id="hub_search", show=False),
        Binding("i", "install", "install the skill", id="hub_install"),
    ]

    class SearchRequested(Message):
        def __init__(self, screen: HubScreen, text: str) -> None:
            super().__init__()
            self.screen = screen
            self.text = text

    class ViewRequested(Message):
        def __init__(self, screen: HubScreen, skill: HubSkill) -> None:
            super().__init__()
            self.screen = screen
            self.skill = skill

    class InstallRequested(Message):
        def __init__(self, screen: HubScreen, skill: HubSkill) -> None:
            super().__init__()
            self.screen = screen
            self.skill = skill

    class Found(Message):
        def __init__(self, result: SearchResult) -> None:
            super().__init__()
            self.result = result

    class Viewed(Message):
        def __init__(self, preview: Preview | None, problem: str = "") -> None:
            super().__init__()
            self.preview = preview
            self.problem = problem

    class Installed(Message):
        def __init__(self, message: str, installed: bool) -> None:
            super().__init__()
            self.message = message
            self.installed = installed

    def __init__(self, hub: SkillsHub) -> None:
        super().__init__()
        self.hub = hub
        self.skills: list[HubSkill] = []
        self.preview: Preview | None = None
        self.said: str | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="hub-frame"):
            yield Static(
                "Skills hub  ·  / search  ·  enter views  ·  i installs  ·  esc closes", id="hub-title"
            )
            yield Input(placeholder="search the taps: name, description, tags", id="hub-search")
            with Horizontal(id="hub-body"):
                yield DataTable(id="hub-table", cursor_type="row", zebra_stripes=True)
                with VerticalScroll(id="hub-detail-scroll"):
                    yield Static(id="hub-detail", markup=False)  # a fetched SKILL.md is text
            yield Static("Reading the taps…", id="hub-note", markup=False)

    def on_mount(self) -> None:
        table = self.query_one("#hub-table", DataTable)
        for label in ("skill", "trust", "source"):
            table.add_column(label, key=label)
        self.query_one("#hub-search", Input).focus()
        self.search("")

    # searching

    def search(self, text: str) -> None:
        self.post_message(self.SearchRequested(self, text))

    @on(Input.Submitted, "#hub-search")
    def _submitted(self, event: Input.Submitted) -> None:
        self.note("Searching…")
        self.search(event.value)
        self.query_one("#hub-table", DataTable).focus()

    @on(Found)
    def _found(self, message: Found) -> None:
        table = self.query_one("#hub-table", DataTable)
        table.clear()
        self.skills = message.result.skills
        for skill in self.skills:
            table.add_row(skill.name, skill.trust, skill.tap or skill.source, key=skill.identifier)
        count = f"{len(self.skills)} skill{'s' if len(self.skills) != 1 else ''}"
        problems = "  ·  ".join(message.result.problems)
        self.note(count + (f"  ·  {problems}" if problems else ""))
        self.show_listing()

    # viewing

    @property
    def highlighted(self) -> HubSkill | None:
        table = self.query_one("#hub-table", DataTable)
        if not self.skills or not 0 <= table.cursor_row < len(self.skills):
            return None
        return self.skills[table.cursor_row]

    @on(DataTable.RowHighlighted)
    def show_listing(self) -> None:
        skill = self.highlighted
        if skill is None:
            self.query_one("#hub-detail", Static).update("No skill: add a tap with `hws skills tap add`.")
            return
        if self.preview is not None and self.preview.skill.identifier == skill.identifier:
            return
        lines = [skill.name, skill.description, "", f"source  {skill.identifier}", f"trust   {skill.trust}"]
        if skill.tags:
            lines.append(f"tags    {', '.join(skill.tags)}")
        lines.append("\nenter reads it and runs the guard; i installs it.")
        self.query_one("#hub-detail", Static).update("\n".join(lines))

    @on(DataTable.RowSelected)
    def action_view(self) -> None:
        skill = self.highlighted
        if skill is not None:
            self.note(f"Fetching {skill.name} and running the guard…")
            self.post_message(self.ViewRequested(self, skill))

    @on(Viewed)
    def _viewed(self, message: Viewed) -> None:
        if message.preview is None:
            self.note(message.problem)
            return
        self.preview = preview = message.preview
        decision = preview.report.decision()
        lines = [
            f"{preview.skill.name}  ·  {preview.skill.trust}  ·  {preview.skill.identifier}",
            f"guard: {preview.report.verdict.upper()}  ·  {decision.label}: {decision.reason}",
            *[
                f"  {f.severity.upper()} {f.category} {f.file}:{f.line}"
                for f in preview.report.sorted_findings()
            ],
            f"files: {', '.join(preview.files)}",
            "",
            *preview.text.splitlines()[:TEXT_LINES],
        ]
        self.query_one("#hub-detail", Static).update("\n".join(lines))
        self.note(f"{preview.skill.name}: {preview.report.verdict}; i installs it.")

    # installing

    def action_install(self) -> None:
        skill = self.highlighted
        if skill is not None:
            self.note(f"Installing {skill.name} (quarantine → guard → trust policy)…")
            self.post_message(self.InstallRequested(self, skill))

    @on(Installed)
    def _installed(self, message: Installed) -> None:
        self.note(message.message)
        if message.installed:
            self.said = message.message

    def action_search(self) -> None:
        self.query_one("#hub-search", Input).focus()

    def action_close(self) -> None:
        self.dismiss(self.said)

    def note(self, text: str) -> None:
        self.query_one("#hub-note", Static).update(text)
