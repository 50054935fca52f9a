"""McNemar's test on the instance level: the discordant predictions of two learners (gama2013
§4.1).
"""

from __future__ import annotations

import numpy as np

from distval.errors import DistvalError, check_open_unit
from distval.statistics.base import PairedTestResult, check_count, null_result

__all__ = ["mcnemar"]


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
    c01 = check_count(n01, "n01")
    c10 = check_count(n10, "n10")
    if not isinstance(correction, (bool, np.bool_)):
        raise DistvalError(f"`correction` must be True or False, got {correction!r}")
    total = c01 + c10
    if total == 0.0:
        return null_result("mcnemar", alpha)
    diff = abs(c01 - c10)
    if correction:
        diff = max(diff - 1.0, 0.0)
    statistic = diff * diff / total
    from scipy.special import chdtrc

    pvalue = float(chdtrc(1.0, statistic))  # chi2.sf(statistic, 1), without overhead
    return PairedTestResult("mcnemar", statistic, pvalue, alpha, pvalue <= alpha, round(total))
