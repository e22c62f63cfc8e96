"""Where a demo runs: a home of its own (never the user's), its project folder, and its model server.

The demo home is a temporary folder unless `--keep PATH` names one; the project the agent works
on lies inside it (`demo-project/`), so keeping the home keeps everything the demo made.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import stat
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from engine.config import Config, ConfigError, load_config
from engine.demo.script import PROJECT_DIR, DemoError, DemoScript
from engine.home import Home, HomeError, resolve_home_path
from engine.storage.atomic import atomic_write_text

if TYPE_CHECKING:
    from engine.llm.client import LLMClient
    from engine.model_server.server import ScriptedModelServer

CONFIG_HEADER = (
    "# The demo's settings (hws demo). The demo's model ran only while the demo did: run `hws setup`\n"
    "# (or `hws --home THIS_FOLDER`) to pick your own model and keep working with what it learned.\n"
)


@dataclass
class DemoWorkspace:
    """A prepared demo home: its paths, its config, and the originals of the project's files."""

    script: DemoScript
    home: Home
    project: Path
    config: Config
    temporary: bool
    originals: dict[str, str] = field(default_factory=dict)
    server: ScriptedModelServer | None = None

    @classmethod
    def create(cls, script: DemoScript, keep: str | os.PathLike[str] | None = None) -> DemoWorkspace:
        """A fresh demo home: a temporary folder, or `keep` (which must be new or empty)."""
        if keep is None:
            root = Path(tempfile.mkdtemp(prefix="hws-demo-"))
            temporary = True
        else:
            root = Path(keep).expanduser().absolute()
            _refuse_users_home(root)
            if root.exists() and (not root.is_dir() or any(root.iterdir())):
                raise DemoError(
                    f"{root} already exists and is not an empty folder; give --keep a new folder so the "
                    "demo cannot mix with anything of yours."
                )
            temporary = False
        try:
            home = Home(root).ensure()
            atomic_write_text(
                home.config_file, CONFIG_HEADER + yaml.safe_dump(script.config, sort_keys=False)
            )
            config = load_config(home.root)
        except (HomeError, ConfigError) as exc:
            raise DemoError(f"The demo home could not be prepared: {exc}") from exc
        project = root / PROJECT_DIR
        workspace = cls(script, home, project, config, temporary)
        workspace._lay_out_project()
        return workspace

    def _lay_out_project(self) -> None:
        self.project.mkdir(parents=True, exist_ok=True)
        for item in self.script.project:
            path = self.project / item.path
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(item.text, encoding="utf-8")
            if item.executable:
                path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
            self.originals[item.path] = item.text

    def start_server(self, chunk_delay: float | None = None) -> ScriptedModelServer:
        """Start the demo's scripted model on 127.0.0.1; `chunk_delay` overrides its pace (0: instant)."""
        from engine.model_server.server import ScriptedModelServer

        scenario = self.script.model
        if chunk_delay is not None:
            scenario = dataclasses.replace(scenario, style={**scenario.style, "chunk_delay": chunk_delay})
        self.server = ScriptedModelServer(scenario).start()
        return self.server

    def client(self) -> LLMClient:
        """A model client for the demo's server (the main and the auxiliary model are the same)."""
        from engine.llm.direct import DirectLLMClient
        from engine.llm.settings import ModelSettings

        assert self.server is not None, "start_server() first"
        agent = self.config.agent
        settings = ModelSettings(
            base_url=self.server.base_url,
            model=self.script.model.model,
            max_retries=int(agent.api_max_retries),
            retry_base_delay=float(agent.retry_base_delay),
            retry_max_delay=float(agent.retry_max_delay),
        )
        return DirectLLMClient(settings, home_root=self.home.root)

    def agent_options(self) -> dict[str, Any]:
        """What every demo agent shares: this home's project as its folder and the demo's model."""
        return {"cwd": self.project, "source": "demo"}

    def stop_server(self) -> None:
        if self.server is not None:
            self.server.stop()
            self.server = None

    def remove(self) -> None:
        """Delete a temporary demo home (a kept one stays)."""
        self.stop_server()
        if self.temporary:
            shutil.rmtree(self.home.root, ignore_errors=True)


def _refuse_users_home(root: Path) -> None:
    """`--keep` must never point at the user's own home (`$HERMES_HOME` or ~/.hermes)."""
    protected = {resolve_home_path(None).expanduser(), Path.home() / ".hermes", Path.home()}
    resolved = root.resolve()
    for path in protected:
        try:
            if resolved == path.resolve():
                raise DemoError(
                    f"{root} is your own home; the demo only runs in a folder of its own (give --keep a "
                    "new folder)."
                )
        except OSError:
            continue
