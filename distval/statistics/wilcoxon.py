"""The Wilcoxon signed-rank test across folds (bifet2015 §4): exact for small untied samples,
scipy's otherwise.

See [Methods: tests across folds](methods.md#tests-across-folds).
"""

from __future__ import annotations

import math
import warnings
from functools import lru_cache
from typing import Any

import numpy as np

from distval.errors import check_open_unit
from distval.statistics.base import PairedTestResult, check_pair, null_result, scipy_stats
from distval.statistics.ranks import signed_ranks

__all__ = ["wilcoxon", "wilcoxon_ranked"]


# --------------------------------------------------------------------------------------------
# Wilcoxon signed-rank test


@lru_cache(maxsize=16)
def _sign_flips(n: int) -> np.ndarray:
    """All 2**n sign patterns as a (2**n, n) 0/1 matrix."""
    return ((np.arange(2**n)[:, None] >> np.arange(n)) & 1).astype(np.float64)


def _flip_pvalue(signed_ranks: np.ndarray) -> tuple[float, float]:
    """Exact two-sided p-value over all sign flips: the distribution scipy's permutation
    method enumerates for tied ranks (same p-value, as the tests check), as one matrix
    product instead of one rank computation per permutation."""
    ranks = np.abs(signed_ranks)
    observed = float(ranks[signed_ranks > 0].sum())
    null = _sign_flips(len(ranks)) @ ranks
    gamma = abs(1e-14 * observed)
    p = 2.0 * min(np.mean(null <= observed + gamma), np.mean(null >= observed - gamma))
    return min(observed, float(ranks.sum()) - observed), min(1.0, float(p))


@lru_cache(maxsize=8192)
def _wilcoxon_signed_ranks(signed_ranks: tuple[float, ...]) -> tuple[float, float]:
    ranks = np.asarray(signed_ranks)
    magnitudes = np.abs(ranks)
    n = len(ranks)
    tied = len(np.unique(magnitudes)) < n
    if n <= 13 and tied:
        return _flip_pvalue(ranks)
    if n <= 50 and not tied:  # scipy's exact case: a function of n and R+ only
        return _exact_untied(n, round(float(magnitudes[ranks > 0].sum())))
    return _scipy_wilcoxon(ranks)


@lru_cache(maxsize=4096)
def _exact_untied(n: int, r_plus: int) -> tuple[float, float]:
    """scipy's exact result for the ranks 1..n with positive rank sum ``r_plus``.

    Without ties the exact null distribution depends on n only and the statistic on R+
    only, so every sign pattern with the same (n, R+) has the same answer: one scipy call
    serves them all (the 2**n patterns of 10 folds have 56 sums). The signs here are chosen
    greedily from the largest rank, which reaches every sum 0..n(n+1)/2.

    >>> _exact_untied(10, 52) == _scipy_wilcoxon(np.array([-1.0, -2, 3, 4, 5, 6, 7, 8, 9, 10]))
    True
    """
    signs = np.full(n, -1.0)
    left = r_plus
    for r in range(n, 0, -1):
        if r <= left:
            signs[r - 1] = 1.0
            left -= r
    return _scipy_wilcoxon(signs * np.arange(1.0, n + 1.0))


def _scipy_wilcoxon(signed_ranks: np.ndarray) -> tuple[float, float]:
    """``scipy.stats.wilcoxon`` (two-sided, ``method="auto"``): (statistic, p-value)."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        res = scipy_stats().wilcoxon(signed_ranks, alternative="two-sided", method="auto")
    return float(res.statistic), float(res.pvalue)


# Repeat kept: its numpydoc parameters read as sign.py's: alike in prose only.
def wilcoxon(a: Any, b: Any, *, alpha: float = 0.05) -> PairedTestResult:
    """Wilcoxon signed-rank test on the paired differences ``a - b`` (bifet2015 §4, Table 1).

    Zero differences are dropped (Wilcoxon's own treatment); the absolute values of the
    rest are ranked (ties get mid-ranks) and the statistic is the smaller of the positive
    and negative rank sums. The p-value is two-sided and comes from
    ``scipy.stats.wilcoxon`` with ``method="auto"``: the exact null distribution for up to
    50 differences without ties, an exact permutation distribution for up to 13 differences
    with ties, the normal approximation otherwise.

    Parameters
    ----------
    a, b : array_like
        Per-fold values of learners A and B (same length >= 1, finite, higher = better).
    alpha : float, optional
        Significance level in (0, 1).

    Returns
    -------
    PairedTestResult
        ``test="wilcoxon"``, ``statistic`` = min(R+, R-), ``n`` = non-zero differences.
        With no non-zero difference: statistic 0, p-value 1, no rejection.

    Notes
    -----
    The test depends on the differences only through their signed mid-ranks, so scipy is
    called on those (the mid-ranks of ``scipy.stats.rankdata``), sorted; the result is memoised
    on them. This gives the same statistic and p-value as calling scipy on the differences
    with the zeros removed, and makes repeated calls cheap, which matters because the
    permutation distribution used when there are ties is costly to compute.

    Examples
    --------
    Table 1 of bifet2015: A wins 8 of 10 folds, the rank sums are 52 and 3.

    >>> a = [77.98, 72.26, 76.95, 77.94, 72.23, 76.90, 77.93, 72.37, 76.93, 77.97]
    >>> b = [77.91, 72.27, 76.97, 76.57, 71.63, 75.48, 75.75, 71.33, 74.54, 77.94]
    >>> res = wilcoxon(a, b)
    >>> res.statistic, round(res.pvalue, 4), res.reject
    (3.0, 0.0098, True)
    """
    a_arr, b_arr = check_pair(a, b)
    return wilcoxon_ranked(signed_ranks(a_arr - b_arr), alpha=alpha)


def wilcoxon_ranked(ranks: np.ndarray, *, alpha: float = 0.05) -> PairedTestResult:
    """:func:`wilcoxon` on the :func:`signed_ranks` of the differences.

    >>> wilcoxon_ranked(signed_ranks(np.array([0.5, -0.2, 0.3]))).statistic
    1.0
    """
    alpha = check_open_unit(alpha, "alpha")
    n = int(ranks.size)
    if n == 0:
        return null_result("wilcoxon", alpha)
    statistic, pvalue = _wilcoxon_signed_ranks(tuple(ranks.tolist()))
    if not math.isfinite(pvalue):  # defensive: never report nan as a decision
        return PairedTestResult("wilcoxon", statistic, 1.0, alpha, False, n)
    return PairedTestResult("wilcoxon", statistic, pvalue, alpha, pvalue <= alpha, n)
