"""`hws doctor`'s checks: the home, the database, the config and the model endpoint, each ok /
warning / error with the fix. Read-only: nothing here writes to the home.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from engine.config import Config, ConfigError, load_config
from engine.home import Home
from engine.memory.format import DELIMITER, FILES, parse_entries, serialize
from engine.sessions.text import SCHEMA_SQL, tolerant_text, undecodable_schema

OK, WARNING, ERROR = "ok", "warning", "error"
RANK = {OK: 0, WARNING: 1, ERROR: 2}
MIB = 1024 * 1024


@dataclass(frozen=True)
class Finding:
    area: str  # home | memory | skills | database | config | sandbox | mcp | endpoint
    level: str  # ok | warning | error
    message: str
    fix: str = ""

    def as_dict(self) -> dict[str, str]:
        return {"area": self.area, "level": self.level, "message": self.message, "fix": self.fix}


def worst(findings: list[Finding]) -> str:
    return max((f.level for f in findings), key=RANK.__getitem__, default=OK)


def run_checks(home: Home, *, endpoint: bool = True) -> list[Finding]:
    """Every check, in the order they are shown; the config is loaded once and shared."""
    findings = list(check_home(home))
    config, config_findings = check_config(home)
    effective = config or _defaults()
    findings += check_memory(home, effective)
    findings += check_skills(home, effective)
    findings += check_database(home, effective)
    findings += config_findings
    findings += check_sandbox(effective)
    findings += check_terminal_backend(home, effective)
    findings += check_guarded(home, config)
    if config is not None:
        from engine.cli.doctor_mcp import check_mcp

        findings += check_mcp(home, config, start=endpoint)
    if endpoint and config is not None and bool(config.doctor.check_endpoint):
        findings += check_model_endpoint(config)
    elif endpoint and config is not None:
        findings.append(Finding("endpoint", OK, "not checked (doctor.check_endpoint is off)"))
    return findings


def _defaults() -> Config:
    from engine.config import defaults

    return defaults()


# ── the home ─────────────────────────────────────────────────────────────────────────────────────


def check_home(home: Home) -> Iterator[Finding]:
    root = home.root
    if not root.is_dir():
        yield Finding(
            "home", ERROR, f"{root} is not a folder", "point HERMES_HOME at a folder, or run hws once"
        )
        return
    mode = stat.S_IMODE(root.stat().st_mode)
    if mode & 0o077:
        yield Finding(
            "home",
            WARNING,
            f"{root} is open to other users (mode {mode:o}): they can read your memories and sessions",
            f"chmod 700 {root}",
        )
    else:
        yield Finding("home", OK, f"{root}: a folder only you can open (mode {mode:o})")
    if not os.access(root, os.W_OK):
        yield Finding("home", ERROR, f"{root} is not writable: nothing can be saved", f"chmod u+w {root}")
    for sub in (home.memories, home.skills):
        if not sub.exists() and not sub.is_symlink():  # a home nothing has run in yet
            yield Finding("home", WARNING, f"{sub.name}/ does not exist yet", "run hws once to create it")
        elif not sub.is_dir():
            yield Finding("home", ERROR, f"{sub.name}/ is not a folder", f"move {sub} aside and run hws once")
        elif not os.access(sub, os.W_OK):
            yield Finding("home", ERROR, f"{sub.name}/ is not writable", f"chmod u+w {sub}")
    yield from _check_soul(home)
    if home.env_file.exists() and stat.S_IMODE(home.env_file.stat().st_mode) & 0o044:
        yield Finding(
            "home", ERROR, ".env is readable by other users and holds API keys", f"chmod 600 {home.env_file}"
        )
    config = home.config_file
    if config.exists() and stat.S_IMODE(config.stat().st_mode) & 0o044 and _literal_key_in(config):
        yield Finding(
            "home",
            WARNING,
            "config.yaml is readable by other users and holds an API key",
            f"chmod 600 {config}, or move the key to .env and write `api_key_env: NAME` instead",
        )
    logs_mb = _tree_size(home.logs) / MIB
    limit = _setting(home, "doctor.logs_warn_mb", 200)
    if logs_mb > limit:
        yield Finding(
            "home",
            WARNING,
            f"logs/ takes {logs_mb:,.0f} MiB (more than doctor.logs_warn_mb, {limit:,})",
            f"delete old files in {home.logs}",
        )


def _check_soul(home: Home) -> Iterator[Finding]:
    from engine.prompt.context_files import load_identity

    soul = home.soul
    if soul.is_symlink() and not home.inside(soul):
        yield Finding(
            "home", WARNING, "SOUL.md is a link to a file outside the home", "copy the file in instead"
        )
    if not soul.exists():
        yield Finding(
            "home", WARNING, "SOUL.md is missing: the built-in persona is used", "run hws once to seed it"
        )
        return
    identity = load_identity(home, int(_setting(home, "context_file_max_chars", 20_000)))
    if identity.blocked:
        yield Finding(
            "home",
            ERROR,
            f"SOUL.md looks like a prompt injection ({', '.join(identity.blocked)}): "
            "it is kept out of the prompt",
            f"read {soul} and remove what you did not write",
        )
    elif identity.note:
        yield Finding("home", WARNING, identity.note, f"fix {soul} (UTF-8 text, not empty)")
    else:
        cut = f", cut to {len(identity.text):,} in the prompt" if identity.truncated_from else ""
        yield Finding("home", OK, f"SOUL.md: {soul.stat().st_size:,} bytes{cut}")


def _literal_key_in(path: Path) -> bool:
    """True when config.yaml holds a key itself (not a `${VAR}` reference to the environment)."""
    import yaml

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return False
    sections = [data.get(name) for name in ("model", "auxiliary", "honcho")] if isinstance(data, dict) else []
    return any(
        isinstance(section, dict) and str(section.get("api_key") or "").strip()[:2] not in ("", "${")
        for section in sections
    )


def _setting(home: Home, dotted: str, default: float) -> float:
    try:
        return float(load_config(home.root).get(dotted))
    except (ConfigError, KeyError):
        return float(default)


def _tree_size(folder: Path) -> int:
    total = 0
    if folder.is_dir():
        for path in folder.rglob("*"):
            with contextlib.suppress(OSError):
                if path.is_file() and not path.is_symlink():
                    total += path.stat().st_size
    return total


# ── memory ───────────────────────────────────────────────────────────────────────────────────────


def check_memory(home: Home, config: Config) -> Iterator[Finding]:
    limits = {"memory": int(config.memory.memory_char_limit), "user": int(config.memory.user_char_limit)}
    for target, filename in FILES.items():
        path = home.memories / filename
        if not path.exists():
            yield Finding("memory", OK, f"{filename}: empty")
            continue
        try:
            raw = path.read_bytes().decode("utf-8")
        except UnicodeDecodeError as exc:
            yield Finding(
                "memory",
                ERROR,
                f"{filename} is not UTF-8 text (byte {exc.start}): the agent can neither read nor write it",
                f"re-save {path} as UTF-8",
            )
            continue
        except OSError as exc:
            yield Finding("memory", ERROR, f"{filename} cannot be read ({exc.strerror})", f"check {path}")
            continue
        entries = parse_entries(raw)
        size = len(serialize(entries))
        limit = limits[target]
        parts = [e.strip() for e in raw.split(DELIMITER) if e.strip()]  # as the memory tool reads it
        drift = bool(raw.strip()) and (raw.strip() != serialize(parts) or max(map(len, parts)) > limit)
        if drift:
            yield Finding(
                "memory",
                WARNING,
                f"{filename} has drifted: it holds text that is not a clean §-separated list of "
                "entries, so the memory tool refuses to write it",
                f"open {path} and make each entry a paragraph separated by a line with § alone "
                "(`hws memory show` shows what is read)",
            )
        if size > limit:
            yield Finding(
                "memory",
                ERROR,
                f"{filename} is over its limit ({size:,}/{limit:,} characters): new entries are refused",
                f"remove or merge entries (`hws memory remove --target {target} ...`), or raise "
                f"memory.{'memory' if target == 'memory' else 'user'}_char_limit",
            )
        elif not drift:
            count = f"{len(entries)} entr{'y' if len(entries) == 1 else 'ies'}"
            yield Finding("memory", OK, f"{filename}: {count}, {size:,}/{limit:,} characters")


# ── skills ───────────────────────────────────────────────────────────────────────────────────────


def check_skills(home: Home, config: Config) -> Iterator[Finding]:
    from engine.skills.discovery import SkillRoot, discover
    from engine.skills.guard import CAUTION, DANGEROUS, GuardLimits, scan_folder

    catalog = discover([SkillRoot(home.skills, "local")], int(config.skills.max_category_depth))
    for problem in catalog.skipped:
        if problem in catalog.not_text:
            yield Finding(
                "skills",
                ERROR,
                f"a skill is left out: {problem}",
                "replace it with a Markdown SKILL.md (UTF-8 text), or `hws skills restore NAME VERSION`",
            )
            continue
        yield Finding(
            "skills",
            ERROR,
            f"a skill does not parse and is left out: {problem}",
            "fix its frontmatter (--- name: … description: … ---), or `hws skills restore NAME VERSION`",
        )
    for warning in catalog.warnings:
        yield Finding("skills", WARNING, warning, "rename one of them")
    for skill in catalog.skills:
        warnings = list(skill.warnings)
        if skill.not_utf8:
            warnings = warnings[1:]  # the first says where the bytes stop being UTF-8: its own finding
            yield Finding(
                "skills",
                WARNING,
                f"{skill.name}: {skill.skill_md} is not UTF-8 text ({skill.not_utf8}); "
                "the bytes that cannot be read are replaced",
                "save it as UTF-8 (for a Latin-1 file: iconv -f latin1 -t utf-8)",
            )
        if warnings:
            yield Finding(
                "skills",
                WARNING,
                f"{skill.name}: {warnings[0]}"
                + (f" (and {len(warnings) - 1} more)" if len(warnings) > 1 else ""),
                f"fix the frontmatter of {skill.skill_md}",
            )
    limits = GuardLimits.from_config(config.skills)
    flagged = 0
    for skill in catalog.skills:
        report = scan_folder(skill.skill_dir, skill.name, "local", "agent-created", limits)
        verdict = report.verdict
        if verdict in (DANGEROUS, CAUTION):
            flagged += 1
            top = report.sorted_findings()[0]
            where = f"{top.file}:{top.line}" if top.line else top.file
            yield Finding(
                "skills",
                ERROR if verdict == DANGEROUS else WARNING,
                f"the guard finds {skill.name} {verdict}: {top.category} at {where} "
                f"({top.description or top.rule})",
                f"`hws skills scan {skill.skill_dir}` shows every finding; edit the skill or delete it",
            )
    if catalog.skills and not flagged and not catalog.skipped and not any(s.warnings for s in catalog.skills):
        yield Finding("skills", OK, f"{len(catalog.skills)} skills parse, and the guard finds each safe")
    elif not catalog.skills and not catalog.skipped:
        yield Finding("skills", OK, "no skills yet")


# ── the database ─────────────────────────────────────────────────────────────────────────────────


def check_database(home: Home, config: Config) -> Iterator[Finding]:
    from engine.sessions.schema import NEWEST_KNOWN_VERSION, OLDEST_KNOWN_VERSION

    path = home.state_db
    if not path.exists():
        yield Finding("database", OK, "state.db does not exist yet (it is made by the first session)")
        return
    size_mb = sum(p.stat().st_size for p in (path, Path(f"{path}-wal")) if p.exists()) / MIB
    try:
        connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=2)
        connection.text_factory = tolerant_text
    except sqlite3.Error as exc:
        yield Finding(
            "database", ERROR, f"state.db cannot be opened ({exc})", f"move {path} aside; a new one is made"
        )
        return
    try:
        try:
            rows = connection.execute("PRAGMA integrity_check").fetchall()
        except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
            yield Finding(
                "database",
                ERROR,
                f"state.db is not a readable SQLite database ({exc})",
                f"move {path} aside (keep it: `sqlite3 {path} .recover` may save its sessions); "
                "hws starts a new one",
            )
            return
        problems = [r[0] for r in rows if r[0] != "ok"] + _schema_text_problems(connection)
        if problems:
            yield Finding(
                "database",
                ERROR,
                f"state.db fails SQLite's integrity check: {problems[0]}"
                + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""),
                f"copy it aside, then `sqlite3 {path} .recover | sqlite3 recovered.db` and put "
                "recovered.db in its place",
            )
        else:
            yield Finding("database", OK, f"state.db passes SQLite's integrity check ({size_mb:,.1f} MiB)")
        yield from _schema_findings(connection, OLDEST_KNOWN_VERSION, NEWEST_KNOWN_VERSION)
    finally:
        connection.close()
    limit = int(config.doctor.state_db_warn_mb)
    if size_mb > limit:
        yield Finding(
            "database",
            WARNING,
            f"state.db takes {size_mb:,.0f} MiB (more than doctor.state_db_warn_mb, {limit:,})",
            "prune old sessions (sessions.auto_prune with sessions.retention_days), "
            "then `sqlite3 state.db VACUUM`",
        )


def _schema_text_problems(connection: sqlite3.Connection) -> list[str]:
    connection.text_factory = bytes
    try:
        return undecodable_schema(connection.execute(SCHEMA_SQL).fetchall())
    finally:
        connection.text_factory = tolerant_text


def _schema_findings(connection: sqlite3.Connection, oldest: int, newest: int) -> Iterator[Finding]:
    tables = {r[0] for r in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    missing = [t for t in ("sessions", "messages") if t not in tables]
    if missing:
        yield Finding(
            "database",
            ERROR,
            f"state.db lacks the {', '.join(missing)} table(s): it is not a Hermes session database",
            "move it aside; hws makes a new one",
        )
        return
    version = None
    if "schema_version" in tables:
        row = connection.execute("SELECT version FROM schema_version").fetchone()
        version = int(row[0]) if row and row[0] is not None else None
    if version is None:
        yield Finding(
            "database", WARNING, "state.db has no schema version", "open it once with hws to repair it"
        )
    elif version > newest:
        yield Finding(
            "database",
            WARNING,
            f"state.db has schema {version}, newer than this hws knows ({newest}): it is opened read-only",
            "update hws",
        )
    elif version < oldest:
        yield Finding(
            "database",
            ERROR,
            f"state.db has schema {version}, older than any hws reads ({oldest})",
            "move it aside",
        )
    else:
        sessions = connection.execute("SELECT COUNT(*) FROM sessions").fetchone()[0]
        yield Finding("database", OK, f"schema {version}, {sessions:,} sessions")


# ── the terminal's sandbox ───────────────────────────────────────────────────────────────────────


def check_sandbox(config: Config) -> list[Finding]:
    from engine.tools.sandbox import doctor_line, sandbox_status

    ok, message, fix = doctor_line(sandbox_status(config))
    return [Finding("sandbox", OK if ok else WARNING, message, fix)]


def check_terminal_backend(home: Home, config: Config) -> list[Finding]:
    """Where terminal commands run: an ssh host reached and a shell started, a docker image present."""
    from pathlib import Path

    from engine.tools.backends.check import doctor_line as backend_line

    ok, message, fix = backend_line(home, config, Path.cwd())
    return [Finding("terminal", OK if ok else WARNING, message, fix)]


# ── the config and the model ─────────────────────────────────────────────────────────────────────


def check_config(home: Home) -> tuple[Config | None, list[Finding]]:
    try:
        config = load_config(home.root)
    except ConfigError as exc:
        return None, [Finding("config", ERROR, str(exc), "fix the file at that line, or move it aside")]
    findings = [Finding("config", WARNING, w, "fix or delete that line") for w in config.warnings]
    if config.hermes_only:
        findings.append(hermes_only_finding(config.hermes_only))
    if not config.model_name:
        findings.append(
            Finding("config", WARNING, "no model is configured: the agent cannot answer", "run `hws setup`")
        )
        return config, findings
    from engine.llm.settings import PLACEHOLDER_KEY, SettingsError, model_settings

    try:
        settings = model_settings(config)
    except SettingsError as exc:
        findings.append(Finding("config", ERROR, str(exc), "run `hws setup`"))
        return config, findings
    if settings.api_key == PLACEHOLDER_KEY and not settings.is_local:
        wanted = str(config.model.api_key_env) or "the provider's *_API_KEY"
        findings.append(
            Finding(
                "config",
                ERROR,
                f"no API key is found for {settings.host} "
                f"({wanted} is not set in the environment or in .env)",
                f"export {wanted}, or put it in {home.env_file} (`hws setup` can do it)",
            )
        )
    else:
        findings.append(Finding("config", OK, f"model {settings.model} at {settings.base_url}"))
    return config, findings


HERMES_NAMES_SHOWN = 20  # names of Hermes-only settings doctor spells out before "and N more"


def hermes_only_finding(names: list[str]) -> Finding:
    """One line for all of Hermes Agent's own settings in config.yaml that hws reads past."""
    shown = ", ".join(names[:HERMES_NAMES_SHOWN])
    more = f" and {len(names) - HERMES_NAMES_SHOWN} more" if len(names) > HERMES_NAMES_SHOWN else ""
    count = f"{len(names)} setting{'s' if len(names) != 1 else ''}"
    return Finding(
        "config",
        OK,
        f"{count} of Hermes Agent that hws does not use, kept for Hermes: {shown}{more}",
    )


def check_guarded(home: Home, config: Config | None) -> list[Finding]:
    """The settings the agent may never change, the yolo switch, and other names for the control files."""
    from engine.guarded_settings import GUARDED_SETTINGS

    findings = []
    if config is not None and bool(config.agent.yolo):
        findings.append(
            Finding(
                "config",
                WARNING,
                "agent.yolo is on: commands run without asking (only the questions that always ask remain)",
                f"set `agent: {{yolo: false}}` in {home.config_file} unless you mean it",
            )
        )
    for path in (home.config_file, home.env_file, home.root / "auth.json", home.soul):
        with contextlib.suppress(OSError):
            info = path.stat()
            if stat.S_ISREG(info.st_mode) and info.st_nlink > 1:
                findings.append(
                    Finding(
                        "home",
                        WARNING,
                        f"{path.name} has {info.st_nlink - 1} other name(s) (hard links): a program that "
                        "opens one of them reads or changes it without the home's protection",
                        f"find them with `find / -xdev -samefile {path}`; delete the ones you did not make",
                    )
                )
    names = ", ".join(s.patterns[0].removeprefix("**.") for s in GUARDED_SETTINGS[:5])
    findings.append(
        Finding(
            "config",
            OK,
            f"{len(GUARDED_SETTINGS)} groups of guarded settings ({names}, …) are never changed by the "
            "agent; a change on disk is announced before the next turn",
        )
    )
    return findings


def check_model_endpoint(config: Config, probe: Callable[[Config], object] | None = None) -> list[Finding]:
    if not config.model_name:
        return [Finding("endpoint", OK, "not checked: no model is configured (see above)")]
    from engine.cli.model_setup import check_endpoint

    result = check_endpoint(config)
    if result.ok:
        return [Finding("endpoint", OK, result.message)]
    return [
        Finding(
            "endpoint", ERROR, result.message, "start the server or fix model.base_url / the key; `hws setup`"
        )
    ]
