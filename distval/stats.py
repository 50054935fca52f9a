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
import warnings
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from typing import Any

import numpy as np

from distval.errors import DistvalError, check_open_unit

__all__ = [
    "SIGN_TEST_METHODS",
    "FriedmanResult",
    "PairedTestResult",
    "folds_to_reach",
    "friedman",
    "mcnemar",
    "midranks",
    "nemenyi_critical_difference",
    "sign_test",
    "sign_test_critical_value",
    "signed_ranks",
    "smallest_pvalue",
    "wilcoxon",
    "wilcoxon_ranked",
]

SIGN_TEST_METHODS = ("exact", "critical")


def _scipy_stats() -> Any:
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


def _check_vector(x: Any, name: str) -> np.ndarray:
    try:
        arr = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError):
        raise DistvalError(f"`{name}` must be a sequence of numbers, got {x!r}") from None
    if arr.ndim != 1:
        raise DistvalError(f"`{name}` must be one-dimensional, got shape {arr.shape}")
    if arr.size == 0:
        raise DistvalError(f"`{name}` must contain at least one value")
    if not np.isfinite(arr).all():
        bad = int(np.flatnonzero(~np.isfinite(arr))[0])
        raise DistvalError(f"`{name}` must contain only finite values, got {arr[bad]} at {bad}")
    return arr


def _check_pair(a: Any, b: Any) -> tuple[np.ndarray, np.ndarray]:
    a_arr = _check_vector(a, "a")
    b_arr = _check_vector(b, "b")
    if a_arr.size != b_arr.size:
        raise DistvalError(
            f"`a` and `b` must have the same length, got {a_arr.size} and {b_arr.size}"
        )
    return a_arr, b_arr


def _check_count(x: Any, name: str) -> float:
    try:
        value = float(x)
    except (TypeError, ValueError):
        raise DistvalError(f"`{name}` must be a non-negative number, got {x!r}") from None
    if isinstance(x, bool) or not math.isfinite(value) or value < 0.0:
        raise DistvalError(f"`{name}` must be a non-negative finite number, got {x!r}")
    return value


def _check_int(x: Any, name: str, minimum: int) -> int:
    if isinstance(x, bool) or not isinstance(x, (int, np.integer)) or x < minimum:
        raise DistvalError(f"`{name}` must be an integer >= {minimum}, got {x!r}")
    return int(x)


def _null(test: str, alpha: float) -> PairedTestResult:
    """Result for a comparison without any informative pair: nothing to reject."""
    return PairedTestResult(test, 0.0, 1.0, alpha, False, 0)


# --------------------------------------------------------------------------------------------
# What a number of folds can show


def smallest_pvalue(test: str, n_folds: int) -> float:
    """The smallest two-sided p-value the exact ``"sign"`` or ``"wilcoxon"`` test can give on
    ``n_folds`` folds: every fold won by the same learner. Both exact null distributions put
    probability ``2 ** -n`` on that outcome at each end, so the floor is ``min(1, 2 ** (1 - n))``
    (no scipy import: this runs before every run starts; the tests check it against scipy's
    ``binomtest`` and ``wilcoxon``).

    >>> smallest_pvalue("sign", 5), smallest_pvalue("wilcoxon", 5)
    (0.0625, 0.0625)
    """
    n = _check_int(n_folds, "n_folds", 1)
    if test not in ("sign", "wilcoxon"):
        raise DistvalError(f"`test` must be 'sign' or 'wilcoxon', got {test!r}")
    return min(1.0, 2.0 ** (1 - n))


def folds_to_reach(test: str, alpha: float, *, limit: int = 64) -> int | None:
    """The fewest folds with which ``test`` can reject at ``alpha`` (None beyond ``limit``).

    >>> folds_to_reach("sign", 0.05), folds_to_reach("wilcoxon", 0.01)
    (6, 8)
    """
    alpha = check_open_unit(alpha, "alpha")
    return next((k for k in range(1, limit + 1) if smallest_pvalue(test, k) <= alpha), None)


# --------------------------------------------------------------------------------------------
# Sign test


@lru_cache(maxsize=4096)
def _binom_pvalue(wins: int, n: int) -> float:
    return float(_scipy_stats().binomtest(wins, n, 0.5, alternative="two-sided").pvalue)


@lru_cache(maxsize=4096)
def _critical_wins(n: int, alpha: float) -> int:
    z = float(_scipy_stats().norm.ppf(1.0 - alpha / 2.0))
    return math.floor(n / 2.0 + z * math.sqrt(n) / 2.0 + 0.5)


def sign_test_critical_value(n: int, *, alpha: float = 0.05) -> int:
    """Critical number of wins w_alpha of the sign test's normal-approximation rule.

    Under the null hypothesis the wins among ``n`` non-tied folds are Binomial(n, 1/2),
    roughly Normal(n/2, sqrt(n)/2), so a learner is declared better when it wins at least
    ``n/2 + z_{1-alpha/2} sqrt(n)/2`` folds (Demšar 2006, sign test). The threshold is rounded
    to the **nearest** integer (halves up).

    Parameters
    ----------
    n : int
        Number of non-tied folds, at least 1.
    alpha : float, optional
        Two-sided significance level in (0, 1).

    Returns
    -------
    int
        w_alpha; the rule rejects when ``max(wins, losses) >= w_alpha``.

    Notes
    -----
    bifet2015 §4 (Table 1 example) uses w_alpha = 8 for 10 folds at alpha = 0.05. The
    unrounded threshold is 5 + 1.95996 * sqrt(10) / 2 = 8.099, so reading "at least 8.099"
    literally (rounding up) gives 9, the same as the exact binomial test, and only rounding
    down or to the nearest integer reproduces the paper's 8. Nearest-integer rounding is used
    because, of those two, it never gives a more liberal threshold than rounding down and its
    actual size is the closer to ``alpha`` (e.g. 0.125 instead of 0.625 for n = 4,
    0.065 instead of 0.227 for n = 11).

    The rule is kept for reproducing the paper; it is anti-conservative (for n = 10 its
    size is 0.109, more than twice alpha) and meaningless for very small n (with n = 1 it
    always rejects). :func:`sign_test` uses the exact binomial test by default.

    Examples
    --------
    >>> sign_test_critical_value(10)
    8
    >>> sign_test_critical_value(10, alpha=0.01)
    9
    """
    n = _check_int(n, "n", 1)
    return _critical_wins(n, check_open_unit(alpha, "alpha"))


def sign_test(a: Any, b: Any, *, alpha: float = 0.05, method: str = "exact") -> PairedTestResult:
    """Sign test on paired per-fold values (bifet2015 §4, Table 1).

    Counts the folds where A beats B among the folds where they differ; folds with equal
    values are dropped. Under the null hypothesis the wins are Binomial(n, 1/2).

    Parameters
    ----------
    a, b : array_like
        Per-fold values of learners A and B (same length >= 1, finite, higher = better).
    alpha : float, optional
        Significance level in (0, 1).
    method : {"exact", "critical"}, optional
        ``"exact"``: reject when the two-sided exact binomial p-value
        (``scipy.stats.binomtest``, p = 1/2) is at most ``alpha``.
        ``"critical"``: reject when ``max(wins, losses) >= w_alpha`` with w_alpha from
        :func:`sign_test_critical_value`, the rule of the bifet2015 §4 example; the reported
        p-value is still the exact one.

    Returns
    -------
    PairedTestResult
        ``test="sign"``, ``statistic`` = wins of A, ``n`` = non-tied folds. With no
        non-tied fold: statistic 0, p-value 1, no rejection.

    Examples
    --------
    8 wins out of 10 folds: the exact test does not reject at 0.05, the paper's rule does.

    >>> a = [1, 1, 1, 1, 1, 1, 1, 1, 0, 0]
    >>> b = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1]
    >>> res = sign_test(a, b)
    >>> res.statistic, round(res.pvalue, 4), res.reject
    (8.0, 0.1094, False)
    >>> sign_test(a, b, method="critical").reject
    True
    """
    alpha = check_open_unit(alpha, "alpha")
    if method not in SIGN_TEST_METHODS:
        raise DistvalError(
            f"`method` must be one of {', '.join(map(repr, SIGN_TEST_METHODS))}, got {method!r}"
        )
    a_arr, b_arr = _check_pair(a, b)
    wins = int(np.count_nonzero(a_arr > b_arr))
    losses = int(np.count_nonzero(a_arr < b_arr))
    n = wins + losses
    if n == 0:
        return _null("sign", alpha)
    pvalue = _binom_pvalue(wins, n)
    if method == "critical":
        reject = max(wins, losses) >= _critical_wins(n, alpha)
    else:
        reject = pvalue <= alpha
    return PairedTestResult("sign", float(wins), pvalue, alpha, bool(reject), n)


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
        res = _scipy_stats().wilcoxon(signed_ranks, alternative="two-sided", method="auto")
    return float(res.statistic), float(res.pvalue)


def midranks(v: np.ndarray) -> np.ndarray:
    """Ranks from 1 with ties given their mean rank: ``scipy.stats.rankdata(v)`` (same
    values, for finite ``v``), without its overhead on the few values of a fold comparison.
    A value with ``below`` values smaller and ``upto`` values not larger holds the ranks
    ``below + 1 .. upto``, whose mean is ``(below + upto + 1) / 2``.

    >>> midranks(np.array([3.0, 1.0, 3.0])).tolist()
    [2.5, 1.0, 2.5]
    """
    s = np.sort(v)
    below, upto = s.searchsorted(v, "left"), s.searchsorted(v, "right")
    ranks: np.ndarray = (below + upto + 1) / 2.0
    return ranks


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
    a_arr, b_arr = _check_pair(a, b)
    return wilcoxon_ranked(signed_ranks(a_arr - b_arr), alpha=alpha)


def signed_ranks(d: np.ndarray) -> np.ndarray:
    """The signed mid-ranks of the absolute non-zero values of ``d``, sorted: what
    :func:`wilcoxon` tests (their sum is R+ - R-).

    >>> signed_ranks(np.array([0.5, 0.0, -0.2, 0.2])).tolist()
    [-1.5, 1.5, 3.0]
    """
    d = d[d != 0.0]
    ranks: np.ndarray = np.sign(d) * midranks(np.abs(d))
    ranks.sort()
    return ranks


def wilcoxon_ranked(ranks: np.ndarray, *, alpha: float = 0.05) -> PairedTestResult:
    """:func:`wilcoxon` on the :func:`signed_ranks` of the differences.

    >>> wilcoxon_ranked(signed_ranks(np.array([0.5, -0.2, 0.3]))).statistic
    1.0
    """
    alpha = check_open_unit(alpha, "alpha")
    n = int(ranks.size)
    if n == 0:
        return _null("wilcoxon", alpha)
    statistic, pvalue = _wilcoxon_signed_ranks(tuple(ranks.tolist()))
    if not math.isfinite(pvalue):  # defensive: never report nan as a decision
        return PairedTestResult("wilcoxon", statistic, 1.0, alpha, False, n)
    return PairedTestResult("wilcoxon", statistic, pvalue, alpha, pvalue <= alpha, n)


# --------------------------------------------------------------------------------------------
# McNemar


def mcnemar(
    n01: float, n10: float, *, alpha: float = 0.05, correction: bool = False
) -> PairedTestResult:
    """McNemar's test on the discordant instance pairs of two learners (gama2013 §4.1).

    Parameters
    ----------
    n01 : float
        Instances A got wrong and B got right.
    n10 : float
        Instances A got right and B got wrong. Both counts may be non-integer (counts over
        a sliding window are integers, counts with fading factors are not, gama2013 §4.2).
    alpha : float, optional
        Significance level in (0, 1).
    correction : bool, optional
        Apply Edwards' continuity correction: ``max(|n01 - n10| - 1, 0)**2 / (n01 + n10)``
        instead of ``(n01 - n10)**2 / (n01 + n10)``.

    Returns
    -------
    PairedTestResult
        ``test="mcnemar"``, ``statistic`` = the chi-square statistic (1 d.f.), p-value
        ``scipy.stats.chi2.sf(statistic, 1)`` (computed as ``scipy.special.chdtrc``),
        ``n`` = ``n01 + n10`` rounded to the nearest integer.
        With ``n01 + n10 == 0``: statistic 0, p-value 1, no rejection.

    Notes
    -----
    gama2013 §4.1 and bifet2015 §4 plot the *signed* statistic
    ``sign(n01 - n10) * statistic``; the sign only says which learner errs more and can be
    read from the counts. bifet2015 §4.1 (Tables 2 and 3) shows that on long streams this
    test rejects far too often for equally good learners, because its sample size grows
    with the stream; prefer the fold-level tests.

    Examples
    --------
    >>> res = mcnemar(10, 0)
    >>> res.statistic, res.reject
    (10.0, True)
    >>> mcnemar(10, 0, correction=True).statistic
    8.1
    """
    alpha = check_open_unit(alpha, "alpha")
    c01 = _check_count(n01, "n01")
    c10 = _check_count(n10, "n10")
    if not isinstance(correction, (bool, np.bool_)):
        raise DistvalError(f"`correction` must be True or False, got {correction!r}")
    total = c01 + c10
    if total == 0.0:
        return _null("mcnemar", alpha)
    diff = abs(c01 - c10)
    if correction:
        diff = max(diff - 1.0, 0.0)
    statistic = diff * diff / total
    from scipy.special import chdtrc

    pvalue = float(chdtrc(1.0, statistic))  # chi2.sf(statistic, 1), without overhead
    return PairedTestResult("mcnemar", statistic, pvalue, alpha, pvalue <= alpha, round(total))


# --------------------------------------------------------------------------------------------
# Friedman and Nemenyi


@lru_cache(maxsize=1024)
def _nemenyi_q(n_learners: int, alpha: float) -> float:
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        q = _scipy_stats().studentized_range.ppf(1.0 - alpha, n_learners, np.inf)
    return float(q) / math.sqrt(2.0)


def nemenyi_critical_difference(n_learners: int, n_blocks: int, *, alpha: float = 0.05) -> float:
    """Nemenyi critical difference between average ranks (bifet2015 §4; Demšar 2006).

    ``CD = q_alpha * sqrt(L (L + 1) / (6 N))`` for ``L`` learners ranked on ``N`` blocks,
    where ``q_alpha`` is the ``1 - alpha`` quantile of the studentized range of ``L``
    means with infinite degrees of freedom (``scipy.stats.studentized_range``) divided by
    sqrt(2).

    Parameters
    ----------
    n_learners : int
        Number of learners L, at least 2.
    n_blocks : int
        Number of blocks N (folds, or data sets), at least 1.
    alpha : float, optional
        Significance level in (0, 1).

    Returns
    -------
    float
        The critical difference; two learners differ when their average ranks differ by at
        least this much.

    Examples
    --------
    Three learners on ten folds (q_0.05 = 2.343):

    >>> round(nemenyi_critical_difference(3, 10), 3)
    1.048
    """
    alpha = check_open_unit(alpha, "alpha")
    n_learners = _check_int(n_learners, "n_learners", 2)
    n_blocks = _check_int(n_blocks, "n_blocks", 1)
    q = _nemenyi_q(n_learners, alpha)
    return q * math.sqrt(n_learners * (n_learners + 1) / (6.0 * n_blocks))


def friedman(values: Any, *, alpha: float = 0.05) -> FriedmanResult:
    """Friedman test over three or more learners with the Nemenyi post-hoc test (bifet2015 §4).

    Each block (fold) ranks the learners; the test asks whether the average ranks differ
    more than chance allows (``scipy.stats.friedmanchisquare``, tie-corrected, chi-square
    with ``L - 1`` degrees of freedom).

    Parameters
    ----------
    values : array_like, shape (n_blocks, n_learners)
        Per-fold values, one column per learner (higher = better); at least 2 blocks and
        3 learners, all finite.
    alpha : float, optional
        Significance level in (0, 1), for both the test and the critical difference.

    Returns
    -------
    FriedmanResult
        When every block ties all learners the statistic is 0 and the p-value 1.

    Examples
    --------
    Learner 0 always first, learner 2 always last, over four folds:

    >>> res = friedman([[0.9, 0.8, 0.7], [0.8, 0.7, 0.6], [0.9, 0.7, 0.5], [0.7, 0.6, 0.5]])
    >>> res.average_ranks, res.statistic, res.reject
    ((1.0, 2.0, 3.0), 8.0, True)
    >>> round(res.critical_difference, 3), res.different
    (1.657, ((0, 2),))
    """
    alpha = check_open_unit(alpha, "alpha")
    try:
        table = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise DistvalError(f"`values` must be a table of numbers, got {values!r}") from None
    if table.ndim != 2:
        raise DistvalError(
            f"`values` must be two-dimensional (n_blocks, n_learners), got shape {table.shape}"
        )
    n_blocks, n_learners = table.shape
    if n_learners < 3:
        raise DistvalError(f"`values` must have at least 3 learners (columns), got {n_learners}")
    if n_blocks < 2:
        raise DistvalError(f"`values` must have at least 2 blocks (rows), got {n_blocks}")
    if not np.isfinite(table).all():
        raise DistvalError("`values` must contain only finite values")

    average_ranks = _scipy_stats().rankdata(-table, axis=1).mean(axis=0)
    if (table == table[:, :1]).all():  # every block ties all learners: no information
        statistic, pvalue = 0.0, 1.0
    else:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            res = _scipy_stats().friedmanchisquare(*table.T)
        statistic, pvalue = float(res.statistic), float(res.pvalue)
        if not math.isfinite(pvalue):  # defensive: never report nan as a decision
            statistic, pvalue = 0.0, 1.0

    cd = nemenyi_critical_difference(n_learners, n_blocks, alpha=alpha)
    different = tuple(
        (i, j)
        for i, j in combinations(range(n_learners), 2)
        if abs(average_ranks[i] - average_ranks[j]) >= cd
    )
    return FriedmanResult(
        statistic=statistic,
        pvalue=pvalue,
        alpha=alpha,
        reject=pvalue <= alpha,
        average_ranks=tuple(float(r) for r in average_ranks),
        critical_difference=cd,
        different=different,
    )
