"""Where a run's numbers come from: the versions that produced them, recorded with them.

Every results directory's ``config.json`` holds ``"provenance"``: distval's version and, when
distval runs from a git checkout, its commit (and whether the checkout had changes), and the
versions of Python, numpy, pyarrow, river, Ray and, when installed, capymoa and its MOA jar.
Nothing here starts a JVM or a Ray.

>>> p = provenance()
>>> sorted(p["packages"])[:3], p["python"].count(".")
(['capymoa', 'numpy', 'pyarrow'], 2)
"""

from __future__ import annotations

import platform
import subprocess
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any

__all__ = ["PACKAGES", "machine", "provenance"]

#: The packages whose versions a results directory records (None: not installed).
PACKAGES = ("numpy", "pyarrow", "river", "ray", "capymoa")


def _version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def _git(root: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(root), *args], capture_output=True, text=True, timeout=10
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def _commit() -> dict[str, Any] | None:
    """The git commit of the checkout distval runs from, if it runs from one."""
    root = Path(__file__).resolve().parents[2]
    if not (root / ".git").exists() or not (root / "distval" / "__init__.py").exists():
        return None
    commit = _git(root, "rev-parse", "HEAD")
    if not commit:
        return None
    status = _git(root, "status", "--porcelain", "--untracked-files=no", "--", "distval")
    return {"commit": commit, "modified": bool(status)}


def _moa_jar() -> str | None:
    try:
        from distval.learners.moa.jvm import moa_jar

        return moa_jar().name
    except Exception:  # no extra, no jar: nothing to record
        return None


@lru_cache(maxsize=1)
def _provenance() -> tuple[tuple[str, Any], ...]:
    out: dict[str, Any] = {
        "distval": _version("distval"),
        "git": _commit(),
        "python": platform.python_version(),
        "packages": {name: _version(name) for name in PACKAGES},
        "moa_jar": _moa_jar(),
    }
    return tuple(out.items())


@lru_cache(maxsize=1)
def machine() -> str:
    """The machine this process runs on, in words: its CPU model (Linux's
    ``/proc/cpuinfo``, else :func:`platform.processor`), its logical cores and its system.

    >>> "cores" in machine()
    True
    """
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    import os

    model = " ".join((model or platform.processor() or platform.machine() or "CPU").split())
    return f"{model}, {os.cpu_count() or '?'} cores, {platform.system()}"


def provenance() -> dict[str, Any]:
    """The versions behind this process's results (computed once per process)."""
    return {k: (dict(v) if isinstance(v, dict) else v) for k, v in _provenance()}
