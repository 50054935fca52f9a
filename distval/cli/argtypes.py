"""Argument helpers shared by the command-line modules (argparse only: cheap to import).

Plain numbers use argparse's own ``int`` and ``float``, whose errors are already one line.
"""

from __future__ import annotations

import argparse
import math
import os
import sys

__all__ = ["positive_integer", "progress_wanted", "seconds"]


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
