"""Downloads for the skills hub: HTTPS anywhere, plain HTTP only on this machine, size-capped, and
archives unpacked without ever leaving their folder (no absolute paths, no `..`, no links)."""

from __future__ import annotations

import io
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urljoin, urlparse

import httpx

from engine.skills.hub.model import SourceError, safe_relpath

LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})
MAX_REDIRECTS = 5


@dataclass(frozen=True)
class Limits:
    timeout: float = 30.0
    max_bytes: int = 20 * 2**20

    @classmethod
    def from_settings(cls, skills: object) -> Limits:
        return cls(float(skills.hub_fetch_timeout), int(skills.hub_fetch_max_mb) * 2**20)  # type: ignore[attr-defined]


def check_url(url: str) -> None:
    """HTTPS to any host; plain HTTP only to this machine (a test server, a local mirror)."""
    parsed = urlparse(url)
    if parsed.scheme == "https" and parsed.hostname:
        return
    if parsed.scheme == "http" and parsed.hostname in LOOPBACK:
        return
    raise SourceError(f"{url} is not an https:// address; the skills hub fetches over HTTPS only.")


def get_bytes(url: str, limits: Limits) -> bytes:
    """The body at `url`, following redirects that keep to the policy; refused past the size cap."""
    with httpx.Client(timeout=limits.timeout, follow_redirects=False) as client:
        for _hop in range(MAX_REDIRECTS + 1):
            check_url(url)
            try:
                with client.stream("GET", url) as response:
                    if response.is_redirect:
                        url = urljoin(url, response.headers.get("location", ""))
                        continue
                    if response.status_code != 200:
                        raise SourceError(f"{url} answered HTTP {response.status_code}.")
                    return _read_capped(response, url, limits.max_bytes)
            except httpx.HTTPError as exc:
                raise SourceError(f"{url} could not be fetched: {exc}.") from exc
    raise SourceError(f"{url} redirects more than {MAX_REDIRECTS} times.")


def _read_capped(response: httpx.Response, url: str, max_bytes: int) -> bytes:
    body = bytearray()
    for chunk in response.iter_bytes():
        body += chunk
        if len(body) > max_bytes:
            raise SourceError(
                f"{url} is larger than {max_bytes // 2**20} MiB (skills.hub_fetch_max_mb); not fetched."
            )
    return bytes(body)


def is_archive(url: str) -> bool:
    path = urlparse(url).path.lower()
    return path.endswith((".zip", ".tar.gz", ".tgz", ".tar"))


def unpack(data: bytes, url: str, target: Path, max_bytes: int) -> Path:
    """Unpack an archive's regular files into `target`; the folder holding SKILL.md is returned."""
    zipped = urlparse(url).path.lower().endswith(".zip")
    files = _zip_files(data, max_bytes) if zipped else _tar_files(data, max_bytes)
    total = 0
    for rel, content in files:
        total += len(content)
        if total > max_bytes:
            raise SourceError(f"{url} unpacks to more than {max_bytes // 2**20} MiB; not installed.")
        path = target / safe_relpath(rel)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
    if (target / "SKILL.md").is_file():
        return target
    tops = [p for p in target.iterdir() if p.is_dir()]
    if len(tops) == 1 and (tops[0] / "SKILL.md").is_file():
        return tops[0]
    raise SourceError(f"{url} holds no SKILL.md at its top (or in its one top folder); it is not a skill.")


def _zip_files(data: bytes, max_bytes: int) -> list[tuple[str, bytes]]:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            out = []
            for info in archive.infolist():
                is_link = (info.external_attr >> 16) & 0o170000 == 0o120000
                if info.is_dir() or is_link:
                    continue
                if info.file_size > max_bytes:
                    raise SourceError(f"{info.filename} in the archive is too large to unpack.")
                out.append((info.filename, archive.read(info)))
            return out
    except (zipfile.BadZipFile, OSError) as exc:
        raise SourceError(f"The archive is not a readable zip file: {exc}.") from exc


def _tar_files(data: bytes, max_bytes: int) -> list[tuple[str, bytes]]:
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:*") as archive:
            out = []
            for member in archive.getmembers():
                if not member.isreg():  # links, devices and FIFOs are never unpacked
                    continue
                if member.size > max_bytes:
                    raise SourceError(f"{member.name} in the archive is too large to unpack.")
                handle = archive.extractfile(member)
                if handle is not None:
                    out.append((member.name, handle.read()))
            return out
    except (tarfile.TarError, OSError) as exc:
        raise SourceError(f"The archive is not a readable tar file: {exc}.") from exc
