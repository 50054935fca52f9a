"""Friedman's test of three learners or more across folds, and Nemenyi's critical difference after
it (Demsar 2006).
"""

from __future__ import annotations

import math
import warnings
from functools import lru_cache
from itertools import combinations
from typing import Any

import numpy as np

from distval.errors import DistvalError, check_open_unit
from distval.statistics.base import FriedmanResult, check_int, scipy_stats

__all__ = ["friedman", "nemenyi_critical_difference"]


# --------------------------------------------------------------------------------------------
# Friedman and Nemenyi


@lru_cache(maxsize=1024)
def _nemenyi_q(n_learners: int, alpha: float) -> float:
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        q = scipy_stats().studentized_range.ppf(1.0 - alpha, n_learners, np.inf)
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
    n_learners = check_int(n_learners, "n_learners", 2)
    n_blocks = check_int(n_blocks, "n_blocks", 1)
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

    average_ranks = scipy_stats().rankdata(-table, axis=1).mean(axis=0)
    if (table == table[:, :1]).all():  # every block ties all learners: no information
        statistic, pvalue = 0.0, 1.0
    else:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            res = scipy_stats().friedmanchisquare(*table.T)
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
