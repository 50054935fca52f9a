"""What a run was evaluated on, in a few numbers: a stream's fingerprint, kept in every
checkpoint so that ``--resume`` goes on only on the same data.

A file is known by its size, its modification time and a SHA-256 of its content: the
whole file up to :data:`WHOLE_BYTES`, else its first and last :data:`BLOCK_BYTES` (a few
milliseconds for any size). A generator is known by its spec and seed (the rows it draws
follow from them). :func:`changed` says in words what differs, or None.

>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "s.csv"
>>> _ = path.write_text("x,y\\n1,a\\n2,b\\n")
>>> before = fingerprint(str(path), None)
>>> _ = path.write_text("x,y\\n1,a\\n")
>>> changed(before, fingerprint(str(path), None))
'its size changed (12 bytes, now 8)'
>>> changed(fingerprint("sea", 1), fingerprint("sea", 2))
'its seed changed (1, now 2)'

A result kept on disk for reuse (a suite's stream, a robustness copy, a grid's cell) stores
the fingerprint of what it read under :data:`STORED`; :func:`stale` says why it may not be
reused for the stream as it is now:

>>> stale({STORED: before}, fingerprint(str(path), None))
'its size changed (12 bytes, now 8)'
>>> stale({}, fingerprint(str(path), None)), stale({}, fingerprint("sea", 1))
('it does not record which file it read', None)
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from typing import Any

__all__ = ["BLOCK_BYTES", "STORED", "WHOLE_BYTES", "changed", "fingerprint", "stale",
           "stream_fingerprint"]

#: A file up to this size is hashed whole.
WHOLE_BYTES = 4 << 20
#: A larger file: its first and last blocks of this size are hashed.
BLOCK_BYTES = 1 << 20
#: The key under which a stored result keeps the fingerprint of the stream it read.
STORED = "stream_fingerprint"


def fingerprint(spec: str, seed: int | None, path: str | None = None) -> dict[str, Any]:
    """The fingerprint of the stream ``spec`` names: the file at ``path`` (or at ``spec``
    when it names one), else the generator ``spec`` with ``seed``."""
    if path is None and os.path.isfile(spec):
        path = spec
    if path is None:
        return {"kind": "generator", "spec": spec, "seed": seed}
    try:
        st = os.stat(path)
        digest = hashlib.sha256()
        with open(path, "rb") as f:
            if st.st_size <= WHOLE_BYTES:
                digest.update(f.read())
                whole = True
            else:
                digest.update(f.read(BLOCK_BYTES))
                f.seek(st.st_size - BLOCK_BYTES)
                digest.update(f.read(BLOCK_BYTES))
                whole = False
    except OSError as exc:
        return {"kind": "file", "path": path, "error": exc.strerror or str(exc)}
    return {"kind": "file", "path": path, "bytes": st.st_size, "mtime_ns": st.st_mtime_ns,
            "sha256": digest.hexdigest(), "whole": whole}


def stream_fingerprint(stream: object, spec: str, seed: int | None) -> dict[str, Any]:
    """The fingerprint of an opened ``stream`` (a file stream's own path, else ``spec``)."""
    path = getattr(stream, "path", None)
    return fingerprint(spec, seed, path if isinstance(path, str) else None)


def changed(before: dict[str, Any], now: dict[str, Any]) -> str | None:
    """What differs between two fingerprints of a stream, in words; None if nothing does.

    A file hashed whole is the same file whatever its modification time (a copy, a
    ``touch``); a larger one, hashed at both ends, must also keep its time, which then
    stands for the middle."""
    if before.get("kind") != now.get("kind"):
        return f"it was a {before.get('kind')}, now a {now.get('kind')}"
    if now.get("error"):
        return f"it cannot be read now ({now['error']})"
    keys: tuple[str, ...] = ("spec", "seed") if now["kind"] == "generator" else (
        "bytes", "sha256")
    if now.get("kind") == "file" and not now.get("whole"):
        keys += ("mtime_ns",)
    words = {"bytes": "size", "sha256": "content", "mtime_ns": "modification time"}
    for key in keys:
        if before.get(key) != now.get(key):
            if key == "bytes":
                return f"its size changed ({before.get(key)} bytes, now {now.get(key)})"
            if key in ("sha256", "mtime_ns"):
                return f"its {words[key]} changed"
            return f"its {key} changed ({before.get(key)}, now {now.get(key)})"
    return None


def stale(stored: Mapping[str, Any], now: dict[str, Any]) -> str | None:
    """Why a result stored with ``stored`` (a results directory's ``config.json``, a grid's
    cell) is not of the stream whose fingerprint is ``now``, in words; None when it is. A
    file stream's result that does not record its fingerprint (written by an older
    distval) is not trusted; a generator's is (its spec and seed are among the settings
    compared)."""
    before = stored.get(STORED)
    if isinstance(before, dict):
        return changed(before, now)
    if now.get("kind") == "file":
        return "it does not record which file it read"
    return None
