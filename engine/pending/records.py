"""Writes waiting for the person's approval, in Hermes Agent's layout: `pending/{memory,skills}/<id>.json`.

With `memory.write_approval` or `skills.write_approval` on, the agent's writes are not made but
staged here (engine/pending/approval.py decides and applies). A record is Hermes' own shape, so either
program can list, approve or reject what the other staged:

    {"id": "1f2e3d4c", "subsystem": "memory", "action": "add", "summary": "add to user profile: …",
     "origin": "foreground" | "background_review", "created_at": 1767268800.0,
     "payload": {the tool's arguments, replayed on approval}}

hws adds `session_id` and `base`: the content hash of each file the write touches, as it was when
the write was staged (relative to the home; `absent` for none), so an approval that would overwrite a
change made since is refused instead; and for memory `removes`, the entries the write takes out.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.home import Home
from engine.storage.atomic import WriteError, atomic_write_bytes
from engine.storage.journal import OUTSIDE_AGENT

SUBSYSTEMS = ("memory", "skills")
FOLDER = "pending"
FOREGROUND, BACKGROUND = "foreground", "background_review"
ORIGIN_OF = {"agent": FOREGROUND, "review": BACKGROUND}  # the store's writer -> Hermes' origin
MAX_RECORD_BYTES = 8_000_000  # a record larger than this is not read (a skill is at most ~1 MB)


def origin_of(who: str) -> str:
    """Hermes' origin of a gated writer: another agent's write through MCP is a foreground one."""
    return ORIGIN_OF.get(who, FOREGROUND)


def is_gated_writer(who: str) -> bool:
    """Whether the write-approval gate holds this writer's writes: the agent's, the review's, and other
    agents' through MCP; never the person's own (`user`, `undo`, `external`)."""
    return who in ORIGIN_OF or who.startswith(OUTSIDE_AGENT)


class StagedError(Exception):
    """A staged write that cannot be found or read; the message is a sentence for the person."""


@dataclass(frozen=True)
class StagedWrite:
    """One write waiting for approval."""

    id: str
    subsystem: str
    action: str
    summary: str
    origin: str
    created_at: float
    payload: dict[str, Any]
    session_id: str = ""
    base: dict[str, str] | None = None  # None: staged by Hermes, which keeps no base
    removes: tuple[str, ...] | None = None
    writer: str = ""  # hws: another agent's writer name (`mcp:claude-code`); Hermes keeps only `origin`
    path: Path | None = field(default=None, compare=False)

    @property
    def who(self) -> str:
        """The writer the approved write is journaled as: the outside agent that staged it, `review` for
        the background review, else `agent`."""
        if self.writer.startswith(OUTSIDE_AGENT):
            return self.writer
        return "review" if self.origin == BACKGROUND else "agent"

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": self.id,
            "subsystem": self.subsystem,
            "action": self.action,
            "summary": self.summary,
            "origin": self.origin,
            "created_at": self.created_at,
            "payload": self.payload,
        }
        if self.session_id:
            data["session_id"] = self.session_id
        if self.base is not None:
            data["base"] = self.base
        if self.removes is not None:
            data["removes"] = list(self.removes)
        if self.writer:
            data["writer"] = self.writer
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any], path: Path | None = None) -> StagedWrite:
        payload = data.get("payload")
        if not isinstance(payload, dict):
            raise StagedError(f"{path or 'the record'} has no payload to apply.")
        base = data.get("base")
        removes = data.get("removes")
        return cls(
            id=str(data.get("id") or (path.stem if path else "")),
            subsystem=str(data.get("subsystem") or (path.parent.name if path else "")),
            action=str(data.get("action") or payload.get("action") or ""),
            summary=str(data.get("summary") or ""),
            origin=str(data.get("origin") or FOREGROUND),
            created_at=float(data.get("created_at") or 0.0),
            payload=payload,
            session_id=str(data.get("session_id") or ""),
            base={str(k): str(v) for k, v in base.items()} if isinstance(base, dict) else None,
            removes=tuple(str(r) for r in removes) if isinstance(removes, list) else None,
            writer=str(data.get("writer") or ""),
            path=path,
        )


class StagedWrites:
    """The pending records of one home."""

    def __init__(self, home: Home) -> None:
        self.home = home
        self.problems: list[str] = []  # records that could not be read by the last `list`

    def folder(self, subsystem: str) -> Path:
        if subsystem not in SUBSYSTEMS:
            raise ValueError(f"unknown subsystem {subsystem!r}")
        return self.home.root / FOLDER / subsystem

    def stage(
        self,
        subsystem: str,
        payload: dict[str, Any],
        *,
        summary: str,
        origin: str,
        session_id: str = "",
        base: dict[str, str] | None = None,
        removes: tuple[str, ...] | None = None,
        writer: str = "",
    ) -> StagedWrite:
        """Write a new record (atomically, readable by the person only); WriteError if it cannot be."""
        folder = self.folder(subsystem)
        try:
            for level in (folder.parent, folder):
                if not level.is_dir():
                    level.mkdir(mode=0o700, exist_ok=True)
        except OSError as exc:
            raise WriteError(f"Cannot create {folder}: {exc.strerror}.") from exc
        while True:
            record_id = uuid.uuid4().hex[:8]
            if not (folder / f"{record_id}.json").exists():
                break
        record = StagedWrite(
            id=record_id,
            subsystem=subsystem,
            action=str(payload.get("action") or ""),
            summary=" ".join(summary.split()),
            origin=origin,
            created_at=time.time(),
            payload=payload,
            session_id=session_id,
            base=base,
            removes=removes,
            writer=writer if writer.startswith(OUTSIDE_AGENT) else "",
            path=folder / f"{record_id}.json",
        )
        data = json.dumps(record.as_dict(), ensure_ascii=False, indent=2).encode("utf-8")
        atomic_write_bytes(folder / f"{record_id}.json", data, 0o600)
        return record

    def list(self, subsystem: str) -> list[StagedWrite]:
        """Every readable record, oldest first; `problems` says which could not be read."""
        self.problems = []
        folder = self.folder(subsystem)
        try:
            paths = sorted(p for p in folder.glob("*.json") if p.is_file())
        except OSError:
            return []
        found = []
        for path in paths:
            try:
                found.append(self._read(path))
            except StagedError as exc:
                self.problems.append(str(exc))
        return sorted(found, key=lambda r: (r.created_at, r.id))

    def find(self, subsystem: str, wanted: str) -> StagedWrite:
        """The record with this id (or a unique prefix of one); StagedError with a sentence if none."""
        wanted = wanted.strip()
        records = self.list(subsystem)
        exact = [r for r in records if r.id == wanted]
        matches = exact or [r for r in records if wanted and r.id.startswith(wanted)]
        if len(matches) == 1:
            return matches[0]
        if not matches:
            waiting = ", ".join(r.id for r in records[:8]) or "none"
            raise StagedError(
                f"No pending {subsystem} write has the id {wanted!r} (waiting: {waiting}); "
                f"`/{subsystem} pending` lists them."
            )
        raise StagedError(f"{wanted!r} is the start of {len(matches)} pending ids; give more of it.")

    def discard(self, record: StagedWrite) -> bool:
        """Remove a record (approved or rejected); False when it was already gone."""
        path = record.path or self.folder(record.subsystem) / f"{record.id}.json"
        try:
            path.unlink()
        except FileNotFoundError:
            return False
        with contextlib.suppress(OSError):
            fd = os.open(path.parent, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        return True

    def count(self, subsystem: str) -> int:
        with contextlib.suppress(OSError):
            return sum(1 for _ in self.folder(subsystem).glob("*.json"))
        return 0

    def _read(self, path: Path) -> StagedWrite:
        try:
            if path.stat().st_size > MAX_RECORD_BYTES:
                raise StagedError(f"{path} is larger than a pending write can be; it is not read.")
            data = json.loads(path.read_bytes().decode("utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise StagedError(f"{path} cannot be read as a pending write ({exc}).") from exc
        if not isinstance(data, dict):
            raise StagedError(f"{path} is not a pending write (not a JSON object).")
        return StagedWrite.from_dict(data, path)
