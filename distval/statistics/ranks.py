"""Ranks shared by the tests: midranks of tied values and the signed ranks of paired differences.
"""

from __future__ import annotations

import numpy as np

__all__ = ["midranks", "signed_ranks"]


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
