"""The one exception type that carries a message meant for the user."""

from __future__ import annotations

__all__ = ["DistvalError"]


class DistvalError(Exception):
    """Bad input or an impossible request, worded for the person who made it.

    The command line prints the message alone (no traceback) and exits with status 2.

    >>> str(DistvalError("`n_folds` must be at least 2, got 1"))
    '`n_folds` must be at least 2, got 1'
    """
