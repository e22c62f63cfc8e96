"""Content-addressed storage for the journal: each distinct content once, named by its sha256.

Small contents (memory files, most skills) are appended to one pack file, `blobs.pack`, so that
recording a write creates no new file (file creation is what makes a write slow on a busy disk).
Large ones get a file of their own under `blobs/`. A pack record is `<sha256> <length>\\n<bytes>\\n`.
Writers hold the journal's lock; readers need none: they only trust complete records whose bytes
hash to their name. A record torn by a crash is cut off by the next writer.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from pathlib import Path

PACK_FILE = "blobs.pack"
BLOB_DIR = "blobs"
PACK_MAX_BYTES = 65_536  # larger contents get their own file, so a prune never copies them around
HEADER_MAX = 100  # a header is 64 hex digits, a space, a length and a newline


class BlobStore:
    """The blobs of one journal folder; one instance keeps the pack open and indexed."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.pack_path = folder / PACK_FILE
        self.blob_dir = folder / BLOB_DIR
        self._fd: int | None = None
        self._inode = 0
        self._index: dict[str, tuple[int, int]] = {}  # hash -> (offset of the bytes, length)
        self._indexed_to = 0
        self._files: set[str] = set()  # large blobs known to be complete

    def close(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._fd)
        self._fd = None

    # ── the pack ─────────────────────────────────────────────────────────────────────────────────
    def _pack_fd(self, create: bool, check_replaced: bool = True) -> int | None:
        """The open pack, reopened (and re-indexed) when a prune replaced it."""
        if self._fd is not None and not check_replaced:
            return self._fd
        try:
            inode = os.stat(self.pack_path).st_ino
        except FileNotFoundError:
            inode = 0
        if self._fd is not None and inode == self._inode:
            return self._fd
        self.close()
        self._index.clear()
        self._indexed_to = 0
        if inode == 0 and not create:
            return None
        self._fd = os.open(self.pack_path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
        self._inode = os.fstat(self._fd).st_ino
        return self._fd

    def _catch_up(self, fd: int) -> int:
        """Index records appended since we last looked (by anyone); return where complete records end."""
        size = os.fstat(fd).st_size
        position = self._indexed_to
        while position < size:
            header = os.pread(fd, HEADER_MAX, position)
            newline = header.find(b"\n")
            try:
                name, length_text = header[:newline].split(b" ")
                length = int(length_text)
            except ValueError:
                break  # not a header: a torn or foreign tail
            start = position + newline + 1
            if newline < 0 or start + length + 1 > size:
                break  # torn by a crash mid-append
            self._index[name.decode("ascii")] = (start, length)
            position = start + length + 1
        self._indexed_to = position
        return position

    # ── writing (the caller holds the journal lock) ──────────────────────────────────────────────
    def store(self, content_hash: str, data: bytes, check_replaced: bool = True) -> None:
        """Keep `data` under its hash unless it is already there (`check_replaced=False`: the caller
        knows no prune happened since the pack was opened)."""
        if len(data) > PACK_MAX_BYTES:
            self._store_file(content_hash, data)
            return
        fd = self._pack_fd(create=True, check_replaced=check_replaced)
        assert fd is not None
        end = self._catch_up(fd)
        if content_hash in self._index:
            return
        if end < os.fstat(fd).st_size:
            os.ftruncate(fd, end)  # drop a record torn by a crash before appending after it
        record = f"{content_hash} {len(data)}\n".encode("ascii") + data + b"\n"
        os.write(fd, record)
        header_length = len(record) - len(data) - 1
        self._index[content_hash] = (end + header_length, len(data))
        self._indexed_to = end + len(record)

    def _store_file(self, content_hash: str, data: bytes) -> None:
        if content_hash in self._files:
            return
        path = self.blob_dir / content_hash
        if self._read_file(content_hash) is None:
            self.blob_dir.mkdir(mode=0o700, exist_ok=True)
            tmp = path.with_name(f".{content_hash}.{os.getpid()}.tmp")
            try:
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
                try:
                    os.write(fd, data)
                finally:
                    os.close(fd)
                os.replace(tmp, path)
            finally:
                with contextlib.suppress(OSError):
                    tmp.unlink()
        self._files.add(content_hash)

    def retain(self, keep: set[str]) -> None:
        """Drop every blob not in `keep` (a journal prune; the caller holds the lock)."""
        fd = self._pack_fd(create=False)
        if fd is not None:
            self._catch_up(fd)
            kept = bytearray()
            for content_hash, (start, length) in self._index.items():
                if content_hash in keep:
                    kept += f"{content_hash} {length}\n".encode("ascii") + os.pread(fd, length, start) + b"\n"
            from engine.storage.atomic import atomic_write_bytes

            atomic_write_bytes(self.pack_path, bytes(kept), 0o600)
            self._pack_fd(create=False)  # reopen the new pack
        if self.blob_dir.is_dir():
            for blob in self.blob_dir.iterdir():
                if blob.name not in keep and not blob.name.startswith("."):
                    with contextlib.suppress(OSError):
                        blob.unlink()
                        self._files.discard(blob.name)

    # ── reading ──────────────────────────────────────────────────────────────────────────────────
    def get(self, content_hash: str) -> bytes | None:
        """The bytes stored under this hash, checked against it; None when missing or damaged."""
        fd = self._pack_fd(create=False)
        if fd is not None:
            self._catch_up(fd)
            found = self._index.get(content_hash)
            if found is not None:
                data = os.pread(fd, found[1], found[0])
                if hashlib.sha256(data).hexdigest() == content_hash:
                    return data
        return self._read_file(content_hash)

    def _read_file(self, content_hash: str) -> bytes | None:
        try:
            data = (self.blob_dir / content_hash).read_bytes()
        except OSError:
            return None
        return data if hashlib.sha256(data).hexdigest() == content_hash else None

    def known(self) -> set[str]:
        """Every hash currently stored (for tests and pruning)."""
        fd = self._pack_fd(create=False)
        if fd is not None:
            self._catch_up(fd)
        files = (
            {p.name for p in self.blob_dir.iterdir() if not p.name.startswith(".")}
            if self.blob_dir.is_dir()
            else set()
        )
        return set(self._index) | files
