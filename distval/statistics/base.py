"""Significance tests for comparing stream classifiers across folds.

See [Methods: tests across folds](methods.md#tests-across-folds).

Two learners evaluated on the same k folds give k paired values (higher = better); three or
more learners give a (folds x learners) table. The tests follow bifet2015 §4 and, for the
instance-level McNemar test, gama2013 §4.1:

=================================== ============================= =========================
function                            unit of comparison            scipy routine
=================================== ============================= =========================
:func:`sign_test`                   fold (wins of A over B)       ``binomtest``
:func:`wilcoxon`                    fold (signed ranks of a - b)  ``wilcoxon``
:func:`mcnemar`                     instance (discordant pairs)   ``chi2.sf``
:func:`friedman`                    fold (ranks of >= 3 learners) ``friedmanchisquare``
:func:`nemenyi_critical_difference` post-hoc for :func:`friedman` ``studentized_range.ppf``
=================================== ============================= =========================

Every function returns a frozen result with the statistic, the p-value and the decision at
``alpha``. Degenerate inputs (every fold tied, no discordant pair) are not an error: they
give statistic 0, p-value 1 and no rejection, without warnings, because a stream evaluator
meets them routinely at its first reports.

The functions are meant to be called every few thousand rows for every learner pair, so the
scipy calls whose result depends only on a few small numbers (binomial p-values, Wilcoxon
signed-rank patterns, studentized range quantiles) are memoised.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from distval.errors import DistvalError

__all__ = ["FriedmanResult", "PairedTestResult", "as_numbers"]


def scipy_stats() -> Any:
    """``scipy.stats``, imported on first use: it is about 0.7 s of start-up, and a run
    with one learner never computes a test."""
    from scipy import stats

    return stats


# --------------------------------------------------------------------------------------------
# Results


@dataclass(frozen=True, slots=True)
class PairedTestResult:
    """Outcome of a two-learner significance test.

    Attributes
    ----------
    test : str
        ``"sign"``, ``"wilcoxon"`` or ``"mcnemar"``.
    statistic : float
        Test statistic: wins of A (sign test), min(R+, R-) (Wilcoxon), the chi-square
        statistic (McNemar).
    pvalue : float
        Two-sided p-value.
    alpha : float
        Significance level of the decision.
    reject : bool
        Whether the null hypothesis (both learners perform equally) is rejected at ``alpha``.
    n : int
        Effective sample size: non-tied folds (sign test, Wilcoxon) or discordant pairs,
        rounded to the nearest integer when the counts are faded (McNemar).

    Examples
    --------
    >>> res = PairedTestResult("sign", 8.0, 0.109375, 0.05, False, 10)
    >>> res.to_dict()["pvalue"]
    0.109375
    """

    test: str
    statistic: float
    pvalue: float
    alpha: float
    reject: bool
    n: int

    def to_dict(self) -> dict[str, Any]:
        """Plain-Python dictionary of the fields (JSON-serialisable).

        Examples
        --------
        >>> sorted(PairedTestResult("mcnemar", 0.0, 1.0, 0.05, False, 0).to_dict())
        ['alpha', 'n', 'pvalue', 'reject', 'statistic', 'test']
        """
        return {
            "test": self.test,
            "statistic": float(self.statistic),
            "pvalue": float(self.pvalue),
            "alpha": float(self.alpha),
            "reject": bool(self.reject),
            "n": int(self.n),
        }


@dataclass(frozen=True, slots=True)
class FriedmanResult:
    """Outcome of the Friedman test with the Nemenyi post-hoc comparison.

    Attributes
    ----------
    statistic : float
        Friedman chi-square statistic (corrected for ties).
    pvalue : float
        p-value from the chi-square distribution with ``n_learners - 1`` degrees of freedom.
    alpha : float
        Significance level of the decision and of the critical difference.
    reject : bool
        Whether the hypothesis that all learners perform equally is rejected at ``alpha``.
    average_ranks : tuple of float
        Average rank of each learner over the blocks; rank 1 is the best (highest value)
        and tied learners share the mean of the ranks they span.
    critical_difference : float
        Nemenyi critical difference for this number of learners and blocks.
    different : tuple of (int, int)
        Learner index pairs ``(i, j)``, ``i < j``, whose average ranks differ by at least
        the critical difference. Always filled in; by the usual protocol (Demšar 2006,
        cited in bifet2015 §4) it should only be read when ``reject`` is true.

    Examples
    --------
    >>> res = FriedmanResult(6.0, 0.0498, 0.05, True, (1.0, 2.0, 3.0), 1.48, ((0, 2),))
    >>> res.to_dict()["different"]
    [[0, 2]]
    """

    statistic: float
    pvalue: float
    alpha: float
    reject: bool
    average_ranks: tuple[float, ...]
    critical_difference: float
    different: tuple[tuple[int, int], ...]

    def to_dict(self) -> dict[str, Any]:
        """Plain-Python dictionary of the fields, tuples as lists (JSON-serialisable).

        Examples
        --------
        >>> FriedmanResult(0.0, 1.0, 0.05, False, (2.0, 2.0, 2.0), 1.0, ()).to_dict()["reject"]
        False
        """
        return {
            "statistic": float(self.statistic),
            "pvalue": float(self.pvalue),
            "alpha": float(self.alpha),
            "reject": bool(self.reject),
            "average_ranks": [float(r) for r in self.average_ranks],
            "critical_difference": float(self.critical_difference),
            "different": [[int(i), int(j)] for i, j in self.different],
        }


# --------------------------------------------------------------------------------------------
# Input checks


def as_numbers(x: Any, name: str, ndim: int, shape: str) -> np.ndarray:
    """``x`` as a float64 array of ``ndim`` dimensions (``shape`` says which in the message),
    else one :class:`DistvalError` line.

    >>> as_numbers([[1, 2]], "values", 2, "(streams, learners)").shape
    (1, 2)
    >>> as_numbers([1, 2], "values", 2, "(streams, learners)")
    Traceback (most recent call last):
    ...
    distval.errors.DistvalError: `values` must be (streams, learners), got shape (2,)
    """
    kind = "a sequence of numbers" if ndim == 1 else "a table of numbers"
    try:
        arr = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError):
        raise DistvalError(f"`{name}` must be {kind}, got {x!r}") from None
    if arr.ndim != ndim:
        raise DistvalError(f"`{name}` must be {shape}, got shape {arr.shape}")
    return arr


def _check_vector(x: Any, name: str) -> np.ndarray:
    arr = as_numbers(x, name, 1, "one-dimensional")
    if arr.size == 0:
        raise DistvalError(f"`{name}` must contain at least one value")
    if not np.isfinite(arr).all():
        bad = int(np.flatnonzero(~np.isfinite(arr))[0])
        raise DistvalError(f"`{name}` must contain only finite values, got {arr[bad]} at {bad}")
    return arr


def check_pair(a: Any, b: Any) -> tuple[np.ndarray, np.ndarray]:
    a_arr = _check_vector(a, "a")
    b_arr = _check_vector(b, "b")
    if a_arr.size != b_arr.size:
        raise DistvalError(
            f"`a` and `b` must have the same length, got {a_arr.size} and {b_arr.size}"
        )
    return a_arr, b_arr


def check_count(x: Any, name: str) -> float:
    try:
        value = float(x)
    except (TypeError, ValueError):
        raise DistvalError(f"`{name}` must be a non-negative number, got {x!r}") from None
    if isinstance(x, bool) or not math.isfinite(value) or value < 0.0:
        raise DistvalError(f"`{name}` must be a non-negative finite number, got {x!r}")
    return value


def check_int(x: Any, name: str, minimum: int) -> int:
    if isinstance(x, bool) or not isinstance(x, (int, np.integer)) or x < minimum:
        raise DistvalError(f"`{name}` must be an integer >= {minimum}, got {x!r}")
    return int(x)


def null_result(test: str, alpha: float) -> PairedTestResult:
    """Result for a comparison without any informative pair: nothing to reject."""
    return PairedTestResult(test, 0.0, 1.0, alpha, False, 0)
