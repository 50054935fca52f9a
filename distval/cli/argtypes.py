"""Argument helpers shared by the command-line modules (argparse only: cheap to import).

Plain numbers use argparse's own ``int`` and ``float``, whose errors are already one line.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from typing import Any

from distval.errors import DistvalError

__all__ = ["add_private", "positive_integer", "progress_wanted", "ray_address", "seconds"]


def positive_integer(text: str) -> int:
    """An int >= 1, or argparse's one-line error.

    >>> positive_integer("3")
    3
    """
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def seconds(text: str) -> float:
    """A number of seconds (negative and infinite ones included), not NaN; or argparse's
    one-line error.

    >>> seconds("2.5"), seconds("-1")
    (2.5, -1.0)
    """
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if math.isnan(value):
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}")
    return value


def progress_wanted(args: argparse.Namespace) -> bool:
    """The one progress-bar decision of every command: a bar on a terminal unless
    ``--no-progress``; ``DISTVAL_PROGRESS=1`` forces one (e.g. under a job runner)."""
    if os.environ.get("DISTVAL_PROGRESS"):
        return True
    return not getattr(args, "no_progress", False) and sys.stderr.isatty()


def add_private(group: Any, **kwargs: Any) -> None:
    """``--private``, the one definition every command that can use Ray shares (``run``,
    its ``--permute``, ``suite``, ``reproduce``); ``kwargs`` (a default) go to argparse.

    >>> p = argparse.ArgumentParser()
    >>> add_private(p)
    >>> p.parse_args(["--private"]).private
    True
    """
    kwargs.setdefault("default", False)
    group.add_argument(
        "--private", action="store_true",
        help="with Ray: start a private local Ray (loopback only, its own token) even where "
        "one is running", **kwargs,
    )


def ray_address(address: str | None, private: bool) -> str | None:
    """The address a command gives Ray: ``"local"`` (a Ray of its own: Ray's word, and
    :data:`distval.ray_backend.session.PRIVATE`) with ``--private``, else ``--address``
    (None: the Ray that Ray's own rules find, else a private one).

    >>> ray_address(None, True), ray_address("auto", False), ray_address(None, False)
    ('local', 'auto', None)
    >>> ray_address("auto", True)
    Traceback (most recent call last):
    distval.errors.DistvalError: --private starts a Ray of the command's own; drop --address
    """
    if private and address:
        raise DistvalError("--private starts a Ray of the command's own; drop --address")
    return "local" if private else address
