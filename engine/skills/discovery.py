"""Finding skills on disk: both layouts, external read-only folders, lenient loading, a stat-keyed cache.

A folder holding a SKILL.md is a skill; any other folder is a category (nested categories allowed).
So `skills/<category>/<name>/SKILL.md` (Hermes) and `skills/<name>/SKILL.md` (agentskills.io) are
both found by one walk. Parsed files are cached by (mtime_ns, size): a warm index build only stats.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.skills import frontmatter as fm
from engine.skills.needs import SkillNeeds, needs_from
from engine.storage.atomic import WriteError, atomic_write_text

SKILL_FILE = "SKILL.md"
CATEGORY_FILE = "DESCRIPTION.md"
SUPPORT_DIRS = ("references", "templates", "scripts", "assets")
IGNORED_DIRS = frozenset(
    {
        ".git",
        ".github",
        ".hub",
        ".archive",
        ".venv",
        "venv",
        "node_modules",
        "site-packages",
        "__pycache__",
        ".tox",
        ".nox",
        ".pytest_cache",
        ".mypy_cache",
        ".ruff_cache",
        ".curator_backups",
    }
)
NOT_SKILL_ROOTS = IGNORED_DIRS | frozenset(SUPPORT_DIRS)
PLATFORMS = {"macos": "darwin", "darwin": "darwin", "linux": "linux", "windows": "win32", "win32": "win32"}
HEAD_BYTES = 256 * 1024  # a frontmatter never needs more; huge bodies are not read for the index
CACHE_VERSION = 4  # bump when parsing changes what a record holds


@dataclass(frozen=True)
class SkillRoot:
    """One folder skills are read from: the home's own (writable) or an external one (read-only)."""

    path: Path
    source: str = "local"  # local | external

    @property
    def read_only(self) -> bool:
        return self.source != "local"


@dataclass(frozen=True)
class Skill:
    """One discovered skill, as the index and the tools see it."""

    name: str
    folder_name: str
    category: str
    description: str
    skill_dir: Path
    root: Path
    source: str
    tags: tuple[str, ...] = ()
    related_skills: tuple[str, ...] = ()
    platforms: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    mtime_ns: int = 0
    size: int = 0
    not_utf8: str = ""  # where SKILL.md stops being UTF-8 text ("line 3"); empty when it is text
    needs: SkillNeeds = field(
        default_factory=SkillNeeds
    )  # environment variables and config settings it declares

    @property
    def skill_md(self) -> Path:
        return self.skill_dir / SKILL_FILE

    @property
    def read_only(self) -> bool:
        return self.source != "local"

    @property
    def available_here(self) -> bool:
        """False when `platforms` names only other operating systems."""
        if not self.platforms:
            return True
        wanted = {PLATFORMS.get(p.lower(), p.lower()) for p in self.platforms}
        return any(sys.platform.startswith(w) for w in wanted)


class NotText(fm.FrontmatterError):
    """The SKILL.md is a binary file: nothing in it can be fixed as frontmatter."""


@dataclass
class Catalog:
    """Every skill found, name clashes resolved (local wins), with the reasons any file was skipped."""

    skills: list[Skill] = field(default_factory=list)
    shadowed: list[Skill] = field(default_factory=list)
    categories: dict[str, str] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)
    not_text: list[str] = field(default_factory=list)  # those of `skipped` that are binary files
    warnings: list[str] = field(default_factory=list)
    manifest: dict[str, tuple[int, int]] = field(default_factory=dict)
    _by_name: dict[str, Skill] = field(default_factory=dict, repr=False)
    _by_folder: dict[str, list[Skill]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        for skill in self.skills:
            self._by_name.setdefault(skill.name, skill)
            self._by_folder.setdefault(skill.folder_name, []).append(skill)

    def get(self, name: str) -> Skill | None:
        """A skill by its name, or by its folder name when that is unambiguous."""
        found = self._by_name.get(name)
        if found is not None:
            return found
        by_folder = self._by_folder.get(name, [])
        return by_folder[0] if len(by_folder) == 1 else None

    def names(self) -> list[str]:
        return [s.name for s in self.skills]

    def skill_warnings(self) -> dict[str, tuple[str, ...]]:
        return {s.name: s.warnings for s in self.skills if s.warnings}


# -- the stat-keyed parse cache --------------------------------------------------------------------


class ParseCache:
    """Parsed SKILL.md / DESCRIPTION.md files keyed by path, valid while (mtime_ns, size) are unchanged."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.entries: dict[str, dict[str, Any]] = {}
        self.dirty = False
        self.hits = 0
        self.misses = 0
        self.last: tuple[tuple[object, ...], Catalog] | None = None  # the catalog of the last walk
        if path is not None:
            self._load()

    def _load(self) -> None:
        assert self.path is not None
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return  # a missing or damaged cache only costs one cold build
        if isinstance(data, dict) and data.get("version") == CACHE_VERSION:
            entries = data.get("entries")
            if isinstance(entries, dict):
                self.entries = entries

    def lookup(self, key: str, stamp: tuple[int, int]) -> dict[str, Any] | None:
        entry = self.entries.get(key)
        if entry is not None and tuple(entry.get("stamp", ())) == stamp:
            self.hits += 1
            return entry
        self.misses += 1
        return None

    def store(self, key: str, stamp: tuple[int, int], record: dict[str, Any]) -> dict[str, Any]:
        record["stamp"] = list(stamp)
        self.entries[key] = record
        self.dirty = True
        return record

    def prune(self, live: set[str]) -> None:
        stale = [k for k in self.entries if k not in live]
        for key in stale:
            del self.entries[key]
        self.dirty = self.dirty or bool(stale)

    def save(self) -> None:
        if self.path is None or not self.dirty:
            return
        with contextlib.suppress(OSError, WriteError):  # a read-only home still gets its index
            self.path.parent.mkdir(parents=True, exist_ok=True)
            payload = {"version": CACHE_VERSION, "entries": self.entries}
            atomic_write_text(self.path, json.dumps(payload, ensure_ascii=False, default=str))
            self.dirty = False


_CACHES: dict[Path, ParseCache] = {}


def shared_cache(path: Path) -> ParseCache:
    """One cache object per cache file per process, so warm builds skip re-reading the JSON too."""
    cache = _CACHES.get(path)
    if cache is None:
        cache = _CACHES[path] = ParseCache(path)
    return cache


# -- walking ---------------------------------------------------------------------------------------


@dataclass
class _Found:
    root: SkillRoot
    skill_dir: str
    category: str
    stamp: tuple[int, int]


def _stamp_of(path: str) -> tuple[int, int] | None:
    """(mtime_ns, size) of a regular file (following a symlink), or None."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size) if stat.S_ISREG(st.st_mode) else None


def _walk(
    root: SkillRoot,
    max_depth: int,
    seen: set[tuple[int, int]],
    categories: list[tuple[str, Path, tuple[int, int]]],
) -> Iterator[_Found]:
    """Depth-first, in name order; one stat per skill folder, one scandir per category folder.

    Only symlinked folders can lead back to where the walk has been, so only they cost a stat to
    check against the (device, inode) pairs already visited.
    """
    try:
        top = os.stat(root.path)
    except OSError:
        return
    seen.add((top.st_dev, top.st_ino))
    stack: list[tuple[str, str, int]] = [(str(root.path), "", 0)]
    while stack:
        folder, category, depth = stack.pop()
        stamp = _stamp_of(os.path.join(folder, SKILL_FILE))
        if stamp is not None:
            yield _Found(root, folder, category.rpartition("/")[0] if depth else "", stamp)
            continue
        if category:
            cat_stamp = _stamp_of(os.path.join(folder, CATEGORY_FILE))
            if cat_stamp is not None:
                categories.append((category, Path(folder) / CATEGORY_FILE, cat_stamp))
        if depth > max_depth:
            continue
        try:
            with os.scandir(folder) as listing:
                entries = sorted(listing, key=lambda e: e.name)
        except OSError:
            continue
        children = []
        for entry in entries:
            if entry.name in NOT_SKILL_ROOTS:
                continue
            with contextlib.suppress(OSError):
                if not entry.is_dir():
                    continue
                if entry.is_symlink():
                    target = os.stat(entry.path)
                    key = (target.st_dev, target.st_ino)
                else:
                    key = (top.st_dev, entry.inode())
                if key in seen:  # a symlink loop, or a folder reached twice
                    continue
                seen.add(key)
                sub = f"{category}/{entry.name}" if category else entry.name
                children.append((entry.path, sub, depth + 1))
        stack.extend(reversed(children))


# -- parsing one skill -----------------------------------------------------------------------------


def read_head(path: Path) -> tuple[str, list[str]]:
    """The start of a text file, decoded leniently: bad bytes become U+FFFD with a warning."""
    with open(path, "rb") as handle:
        data = handle.read(HEAD_BYTES)
    warnings: list[str] = []
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start >= len(data) - 3 and len(data) == HEAD_BYTES:  # a character cut by the read limit
            text = data[: exc.start].decode("utf-8", errors="replace")
        else:
            line = data[: exc.start].count(b"\n") + 1
            warnings.append(f"line {line}: not valid UTF-8; undecodable bytes were replaced")
            text = data.decode("utf-8", errors="replace")
    return text, warnings


def _str_list(value: Any) -> list[str]:
    if isinstance(value, str):
        return [v.strip() for v in value.replace(",", " ").split() if v.strip()]
    if isinstance(value, list):
        return [str(v) for v in value if isinstance(v, (str, int, float))]
    return []


def _usable_name(name: object) -> bool:
    """A name safe to print in the index and to look up: one short line, no path characters."""
    if not isinstance(name, str):
        return False
    name = name.strip()
    return (
        0 < len(name) <= fm.MAX_NAME_CHARS * 2
        and name.isprintable()
        and not any(ch.isspace() or ch in "/\\<>" for ch in name)
        and name not in (".", "..")
    )


def parse_skill_file(path: Path, folder_name: str) -> dict[str, Any]:
    """Read one SKILL.md into a cacheable record; raises FrontmatterError or OSError when hopeless."""
    text, warnings = read_head(path)
    if "\x00" in text[:8192]:
        raise NotText("is not a text file (it holds NUL bytes), so it cannot be a skill", 1)
    not_utf8 = warnings[0].partition(":")[0] if warnings else ""  # read_head warns only of bad bytes
    parsed = fm.parse_lenient(text)
    meta = parsed.meta
    warnings += parsed.warnings + (fm.spec_warnings(meta, folder_name) if parsed.has_frontmatter else [])
    name = meta.get("name")
    if not _usable_name(name):
        if isinstance(name, str) and name.strip():
            warnings.append(f"name {name[:80]!r} cannot be used as a skill name; the folder name is used")
        name = folder_name
        if not _usable_name(name):  # control characters, say: never printed to a terminal or the prompt
            raise fm.FrontmatterError(
                f"has no usable name: neither `name:` nor the folder name {folder_name[:80]!r} can be one", 1
            )
    description = meta.get("description")
    if isinstance(description, (int, float)) and not isinstance(description, bool):
        description = str(description)
    if not isinstance(description, str) or not description.strip():
        description = fm.first_body_line(parsed.body)
    hermes = meta.get("metadata", {})
    hermes = hermes.get("hermes", {}) if isinstance(hermes, dict) else {}
    hermes = hermes if isinstance(hermes, dict) else {}
    return {
        "name": name.strip(),
        "description": "".join(ch for ch in fm.one_line(description) if ch.isprintable()),
        "tags": _str_list(hermes.get("tags", meta.get("tags"))),
        "related_skills": _str_list(hermes.get("related_skills", meta.get("related_skills"))),
        "platforms": _str_list(meta.get("platforms")),
        "warnings": warnings,
        "not_utf8": not_utf8,
        "needs": needs_from(meta).as_record(),
    }


def parse_category_file(path: Path) -> str:
    text, _ = read_head(path)
    try:
        parsed = fm.parse_lenient(text)
    except fm.FrontmatterError:
        return ""
    description = parsed.meta.get("description")
    if isinstance(description, str) and description.strip():
        return fm.one_line(description)
    return fm.first_body_line(parsed.body)


# -- the catalog -----------------------------------------------------------------------------------


def discover(roots: list[SkillRoot], max_depth: int = 4, cache: ParseCache | None = None) -> Catalog:
    """Walk every root, parse (or reuse) each SKILL.md, and resolve name clashes: earlier roots win.

    When no file changed since the cache's last catalog, that catalog is returned as it is.
    """
    cache = cache or ParseCache(None)
    seen: set[tuple[int, int]] = set()
    warnings: list[str] = []
    category_files: list[tuple[str, Path, tuple[int, int]]] = []
    found: list[_Found] = []
    for root in roots:
        if not root.path.is_dir():
            if root.source != "local":
                warnings.append(f"external skills folder {root.path} does not exist; it was skipped")
            continue
        found += _walk(root, max_depth, seen, category_files)
    manifest = {os.path.join(item.skill_dir, SKILL_FILE): item.stamp for item in found}
    manifest.update((str(path), stamp) for _category, path, stamp in category_files)
    signature = (tuple((str(r.path), r.source) for r in roots), max_depth, tuple(warnings))
    if cache.last is not None and cache.last[0] == signature and cache.last[1].manifest == manifest:
        return cache.last[1]
    skills: list[Skill] = []
    shadowed: list[Skill] = []
    skipped: list[str] = []
    not_text: list[str] = []
    by_name: dict[str, Skill] = {}
    for item in found:
        key = os.path.join(item.skill_dir, SKILL_FILE)
        record = cache.lookup(key, item.stamp)
        if record is None:
            path = Path(key)
            try:
                record = parse_skill_file(path, os.path.basename(item.skill_dir))
            except NotText as exc:
                record = {"error": f"{path} {exc.reason}; skipped", "not_text": True}
            except fm.FrontmatterError as exc:
                record = {"error": f"{path} line {exc.line}: {exc.reason}; skipped"}
            except OSError as exc:
                record = {"error": f"{path}: cannot be read ({exc.strerror or exc}); skipped"}
            record = cache.store(key, item.stamp, record)
        if "error" in record:
            skipped.append(record["error"])
            if record.get("not_text"):
                not_text.append(record["error"])
            continue
        skill = _skill_from(record, item)
        winner = by_name.get(skill.name)
        if winner is not None:
            shadowed.append(skill)
            warnings.append(
                f"skill '{skill.name}' at {skill.skill_dir} is shadowed by the one at {winner.skill_dir}"
            )
            continue
        by_name[skill.name] = skill
        skills.append(skill)
    categories: dict[str, str] = {}
    for category, path, stamp in category_files:
        record = cache.lookup(str(path), stamp)
        if record is None:
            try:
                record = cache.store(str(path), stamp, {"description": parse_category_file(path)})
            except OSError:
                continue
        categories.setdefault(category, str(record.get("description", "")))
    cache.prune(set(manifest))
    cache.save()
    skills.sort(key=lambda s: (s.category, s.name))
    catalog = Catalog(skills, shadowed, categories, skipped, not_text, warnings, manifest)
    cache.last = (signature, catalog)
    return catalog


def _skill_from(record: dict[str, Any], item: _Found) -> Skill:
    return Skill(
        name=record["name"],
        folder_name=os.path.basename(item.skill_dir),
        category=item.category,
        description=record.get("description", ""),
        skill_dir=Path(item.skill_dir),
        root=item.root.path,
        source=item.root.source,
        tags=tuple(record.get("tags", ())),
        related_skills=tuple(record.get("related_skills", ())),
        platforms=tuple(record.get("platforms", ())),
        warnings=tuple(record.get("warnings", ())),
        mtime_ns=item.stamp[0],
        size=item.stamp[1],
        not_utf8=str(record.get("not_utf8", "")),
        needs=SkillNeeds.from_record(record.get("needs")),
    )
