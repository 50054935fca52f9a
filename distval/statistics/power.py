"""How much a test can say with k folds: its smallest p-value, and the folds it needs to reach a
level.
"""

from __future__ import annotations

from distval.errors import DistvalError, check_open_unit
from distval.statistics.base import check_int

__all__ = ["folds_to_reach", "smallest_pvalue"]


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
    n = check_int(n_folds, "n_folds", 1)
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
