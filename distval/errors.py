"""The one exception type that carries a message meant for the user."""

from __future__ import annotations

__all__ = [
    "DistvalError",
    "DistvalWarning",
    "LowPowerWarning",
    "MissingValuesWarning",
    "RayUnavailable",
    "check_open_unit",
    "check_positive_int",
]


class DistvalError(Exception):
    """Bad input or an impossible request, worded for the person who made it.

    The command line prints the message alone (no traceback) and exits with status 2.

    >>> str(DistvalError("`n_folds` must be at least 2, got 1"))
    '`n_folds` must be at least 2, got 1'
    """


class RayUnavailable(DistvalError):
    """Ray could not be started or joined (in time, on a loaded machine)."""


class DistvalWarning(UserWarning):
    """A run that goes ahead but may not give what its user expects."""


class LowPowerWarning(DistvalWarning):
    """A test that cannot reject at the run's alpha with its number of folds, whatever the
    learners do (e.g. the exact sign and Wilcoxon tests with 5 folds: p >= 0.0625)."""


class MissingValuesWarning(DistvalWarning):
    """A stream with feature cells read as missing values (an empty field, a marker such as
    ``?``): said once per stream, with how many and how the learners treat them."""


def check_positive_int(value: object, name: str) -> int:
    """``value`` as an int if it is a whole number >= 1, else a :class:`DistvalError` naming it.

    >>> check_positive_int(3, "window")
    3
    >>> check_positive_int(0, "window")
    Traceback (most recent call last):
    ...
    distval.errors.DistvalError: `window` must be a positive integer, got 0
    """
    import numbers

    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise DistvalError(f"`{name}` must be a positive integer, got {value!r}")
    return int(value)


def check_open_unit(value: object, name: str) -> float:
    """``value`` as a float if it lies strictly between 0 and 1, else a :class:`DistvalError`.

    >>> check_open_unit(0.05, "alpha")
    0.05
    >>> check_open_unit(1.5, "alpha")
    Traceback (most recent call last):
    ...
    distval.errors.DistvalError: `alpha` must be in (0, 1), got 1.5
    """
    if type(value) is float and 0.0 < value < 1.0:  # the common case, without ABC checks
        return value
    import numbers

    # `value <= 0 or not value < 1` is `not 0 < value < 1` (NaN fails both ways), written with
    # the two comparisons typeshed's numbers.Real declares (__le__, __lt__; not __gt__).
    if (
        isinstance(value, bool)
        or not isinstance(value, numbers.Real)
        or value <= 0.0
        or not value < 1.0
    ):
        raise DistvalError(f"`{name}` must be in (0, 1), got {value!r}")
    return float(value)
