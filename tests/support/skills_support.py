"""Helpers the skills tests share: writing skills to disk and opening a library on the test home."""

from __future__ import annotations

import shutil
from pathlib import Path

from engine.config import defaults, load_config
from engine.home import Home
from engine.skills.library import SkillLibrary

FIXTURES = Path(__file__).parent / "fixtures" / "skills"
PUBLIC = FIXTURES / "public"
MALICIOUS = FIXTURES / "malicious"


def skill_text(
    name: str, description: str = "Does a thing. Use when a thing is needed.", body: str = ""
) -> str:
    return (
        f"---\nname: {name}\ndescription: {description}\n---\n\n# {name}\n\n{body or 'Step one. Step two.'}\n"
    )


def write_skill(root: Path, rel: str, text: str | None = None, **files: str) -> Path:
    """Write `root/rel/SKILL.md` (named after the last folder of `rel`) plus any support files."""
    folder = root / rel
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(text if text is not None else skill_text(folder.name), encoding="utf-8")
    for name, content in files.items():
        path = folder / name.replace("__", "/")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
    return folder


def open_library(config_yaml: str = "") -> SkillLibrary:
    home = Home.resolve().ensure()
    if config_yaml:
        home.config_file.write_text(config_yaml, encoding="utf-8")
        return SkillLibrary(home, load_config(home.root))
    return SkillLibrary(home, defaults())


def copy_public(skills_dir: Path) -> None:
    """Install the public-style fixture skills into a home, layouts and all."""
    for child in PUBLIC.iterdir():
        shutil.copytree(child, skills_dir / child.name, symlinks=True)
