"""Argument types shared by the command-line modules (argparse only: cheap to import)."""

from __future__ import annotations

import argparse
import os
import sys

__all__ = ["integer", "number", "positive_integer", "progress_wanted"]


def integer(text: str) -> int:
    """An int, or argparse's one-line error.

    >>> integer("12")
    12
    """
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None


def positive_integer(text: str) -> int:
    """An int >= 1, or argparse's one-line error.

    >>> positive_integer("3")
    3
    """
    value = integer(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def number(text: str) -> float:
    """A float, or argparse's one-line error.

    >>> number("0.5")
    0.5
    """
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None


def progress_wanted(args: argparse.Namespace) -> bool:
    """The one progress-bar decision of every command: a bar on a terminal unless
    ``--no-progress``; ``DISTVAL_PROGRESS=1`` forces one (e.g. under a job runner)."""
    if os.environ.get("DISTVAL_PROGRESS"):
        return True
    return not getattr(args, "no_progress", False) and sys.stderr.isatty()
