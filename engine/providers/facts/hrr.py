"""Phase-encoded holographic reduced representations, bit-compatible with Hermes' fact store.

A concept is a vector of angles in [0, 2π). Binding adds angles, unbinding subtracts them, bundling
takes the circular mean, and similarity is the mean cosine of the differences. An atom's angles come
from SHA-256 of `"{word}:{block}"` read as little-endian uint16 values, so the same word gives the same
vector in every process and in Hermes; vectors are stored as raw float64 bytes (8 KB at 1024 angles).

numpy is optional: without it `AVAILABLE` is False and the store ranks with FTS5 alone.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import math
from functools import lru_cache
from typing import TYPE_CHECKING, Any

# numpy is imported on first use, not with this module: opening a session never pays for it.
AVAILABLE = importlib.util.find_spec("numpy") is not None  # False: the FTS5 path, no vectors

if TYPE_CHECKING:
    Vector = Any  # numpy.ndarray of float64 angles

TAU = 2.0 * math.pi
ROLE_CONTENT = "__hrr_role_content__"
ROLE_ENTITY = "__hrr_role_entity__"
EMPTY_TEXT = "__hrr_empty__"
_TOKEN_EDGES = ".,!?;:\"'()[]{}"
_ANGLES_PER_DIGEST = 16  # 32 bytes of SHA-256 read as uint16 values


@lru_cache(maxsize=1)
def numpy() -> Any:
    """The numpy module, imported the first time a vector is needed."""
    return importlib.import_module("numpy")


@lru_cache(maxsize=65536)
def atom(word: str, dim: int) -> Vector:
    """The fixed vector of one word; cached, so a query's words are hashed once per process."""
    np = numpy()
    blocks = -(-dim // _ANGLES_PER_DIGEST)
    raw = b"".join(hashlib.sha256(f"{word}:{i}".encode()).digest() for i in range(blocks))
    angles = np.frombuffer(raw, dtype="<u2")[:dim].astype(np.float64) * (TAU / 65536.0)
    angles.setflags(write=False)
    return angles


@lru_cache(maxsize=65536)
def _unit(word: str, dim: int) -> Vector:
    """The atom as unit complex numbers, the form bundling sums (cached: texts reuse their words)."""
    np = numpy()
    units = np.exp(1j * atom(word, dim))
    units.setflags(write=False)
    return units


def bind(a: Vector, b: Vector) -> Vector:
    return (a + b) % TAU


def unbind(memory: Vector, key: Vector) -> Vector:
    return (memory - key) % TAU


def bundle(vectors: list[Vector]) -> Vector:
    """The circular mean of several vectors: similar to each of them."""
    np = numpy()
    total = np.exp(1j * np.asarray(vectors)).sum(axis=0)
    return np.angle(total) % TAU


def similarity(a: Vector, b: Vector) -> float:
    """Mean cosine of the angle differences: 1 identical, about 0 unrelated."""
    np = numpy()
    return float(np.mean(np.cos(a - b)))


def similarities(matrix: Vector, b: Vector) -> Vector:
    """`similarity` of every row of `matrix` with `b`, in one pass."""
    np = numpy()
    return np.cos(matrix - b).mean(axis=1)


def words(text: str) -> list[str]:
    """The words an encoding reads: lower case, split on spaces, outer punctuation stripped."""
    return [w for w in (token.strip(_TOKEN_EDGES) for token in text.lower().split()) if w]


def encode_text(text: str, dim: int) -> Vector:
    """A bag of words: the bundle of its words' atoms."""
    np = numpy()
    found = words(text)
    if not found:
        return atom(EMPTY_TEXT, dim)
    total = np.asarray([_unit(w, dim) for w in found]).sum(axis=0)
    return np.angle(total) % TAU


def encode_fact(content: str, entities: list[str], dim: int) -> Vector:
    """The content bound to the content role, each entity bound to the entity role, all bundled."""
    parts = [bind(encode_text(content, dim), atom(ROLE_CONTENT, dim))]
    entity_role = atom(ROLE_ENTITY, dim)
    parts += [bind(atom(name.lower(), dim), entity_role) for name in entities]
    return bundle(parts)


def to_bytes(vector: Vector) -> bytes:
    np = numpy()
    return bytes(np.ascontiguousarray(vector, dtype=np.float64).tobytes())


def from_bytes(data: bytes) -> Vector:
    np = numpy()
    return np.frombuffer(data, dtype=np.float64)


def stack(blobs: list[bytes], dim: int) -> Vector:
    """Vectors stored as bytes, as one matrix (rows of another width are skipped by the caller)."""
    np = numpy()
    return np.frombuffer(b"".join(blobs), dtype=np.float64).reshape(len(blobs), dim)
