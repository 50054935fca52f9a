"""distval's one way to compile a kernel: numba's ``njit`` with its on-disk cache in the
user's cache directory, never inside the installed package.

numba's default cache goes next to the source, in the package's ``__pycache__``: files a
wheel's RECORD does not list, which ``pip uninstall`` leaves behind, and whose leftover
``site-packages/distval/`` then shadows a later editable install as a namespace package.
:func:`njit` therefore points numba at :func:`cache_dir` while it decorates a function
(numba picks a function's cache directory when the decorator runs), and restores numba's
setting afterwards, so other packages' caches are left where numba puts them. A
``NUMBA_CACHE_DIR`` set by the user wins: numba then puts every cache there already.

>>> from distval.metrics.kernels import count_batch  # one of the kernels compiled by njit
>>> cache_dir() in Path(count_batch._cache._cache_path).parents
True
"""

from __future__ import annotations

import getpass
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import numba
from numba.core import config

__all__ = ["cache_dir", "njit"]

F = TypeVar("F", bound=Callable[..., Any])


def cache_dir() -> Path:
    """Where distval's compiled kernels are cached: ``$XDG_CACHE_HOME/distval/numba``
    (default ``~/.cache/distval/numba``; numba adds one folder per source directory), or
    the temporary directory's ``distval-numba-<user>`` where that cannot be created."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    path = Path(base) / "distval" / "numba"
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError:
        path = Path(tempfile.gettempdir()) / f"distval-numba-{getpass.getuser()}"
    return path


def njit(**options: Any) -> Callable[[F], F]:
    """``numba.njit(cache=True, **options)``, cached under :func:`cache_dir`."""

    def decorate(func: F) -> F:
        before = getattr(config, "CACHE_DIR", "")  # numba's config is set by assignment
        if not before:
            setattr(config, "CACHE_DIR", str(cache_dir()))  # noqa: B010
        try:
            compiled: F = numba.njit(cache=True, **options)(func)
        finally:
            setattr(config, "CACHE_DIR", before)  # noqa: B010
        return compiled

    return decorate
