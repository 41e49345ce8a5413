"""What a point's result depends on, as content hashes: the model's files,
the target, the options and the compiler itself.

A point's key is the SHA-256 of all four, so a cached result is reused
exactly when nothing it depends on changed: an edited model file, another
grid value, a rebuilt Raptor each give new keys.
"""

from __future__ import annotations

import functools
import hashlib
import json
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from .. import zoo
from .points import Point
from .spec import ModelEntry

__all__ = ["model_digest", "point_key", "raptor_fingerprint"]

#: Bumped when the rows a point produces change meaning (new fields are fine).
ROW_FORMAT = 1


@functools.cache
def raptor_fingerprint() -> str:
    """The package version and a hash of the compiler as installed: its C++
    extension and every file of the Python package (a development build
    keeps its version number while its code changes)."""
    from .. import _raptor

    package = Path(__file__).resolve().parent.parent
    h = hashlib.sha256()
    _hash_file(h, Path(_raptor.__file__))
    for path in sorted(p for p in package.rglob("*") if p.is_file() and "__pycache__" not in p.parts
                       and p.suffix in (".py", ".json", ".mlir", ".td")):
        h.update(str(path.relative_to(package)).encode() + b"\0")
        _hash_file(h, path)
    try:
        release = version("raptor")
    except PackageNotFoundError:
        release = "unknown"
    return f"{release}+{h.hexdigest()[:16]}"


def model_digest(model: ModelEntry) -> str:
    """A hash of what the model argument reads: the file (and an .mlir
    file's weights beside it), or a zoo model's bundled graph and weights."""
    h = hashlib.sha256()
    if model.is_zoo:
        h.update(f"zoo:{model.source}\0".encode())
        _hash_file(h, zoo.graph_path(model.source))
        _hash_file(h, zoo.weights_file(model.source))
    else:
        path = Path(model.source)
        h.update(path.suffix.encode() + b"\0")
        _hash_file(h, path)
        if path.suffix == ".mlir":
            from .. import weights

            beside = weights.beside(path)
            if beside.is_file():
                _hash_file(h, beside)
    return h.hexdigest()


def point_key(point: Point, digest: str, fingerprint: str) -> str:
    """The point's content address (64 hex digits)."""
    identity = {"row_format": ROW_FORMAT, "model": digest, "target": point.target, "options": point.options,
                "raptor": fingerprint}
    return hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()


def _hash_file(h: "hashlib._Hash", path: Path) -> None:
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
