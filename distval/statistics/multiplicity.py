"""Decisions about several learner pairs at once: Holm for p-values, e-BH for e-values.

With L learners there are L (L - 1) / 2 pairs; testing each at alpha lets the chance of at
least one false "better" grow with the number of pairs.

- :func:`holm` (Holm 1979, *Scandinavian Journal of Statistics* 6:65-70): the step-down
  procedure on the pairs' p-values; it bounds the family-wise error (any false rejection) by
  alpha under any dependence between the tests. Used for the fixed-alpha decisions.
- :func:`e_bh` (Wang & Ramdas 2022, *JRSS B* 84:822-852, the e-BH procedure): reject the
  k* hypotheses with the largest e-values, k* the largest k with the k-th largest e-value at
  least ``m / (alpha k)``. It bounds the false discovery rate by alpha under any dependence
  between the e-values, and an e-process stopped at any look is still an e-value, so it
  applies to the live e-value decisions.

>>> holm([0.01, 0.04, 0.03], alpha=0.05).tolist()
[True, False, False]
>>> e_bh([100.0, 25.0, 1.0], alpha=0.05).tolist()   # thresholds 30, 60 (k=2), 60 (k=1)
[True, False, False]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from distval.errors import check_open_unit

__all__ = ["Cited", "cited_fold_tests", "e_bh", "holm", "holm_adjusted"]

#: What a pair's verdict cites: (test, p-value, favours, reject, correction).
Cited = tuple[str, float, str | None, bool, str | None]


def holm_adjusted(pvalues: npt.ArrayLike) -> np.ndarray:
    """Holm's adjusted p-values: ``max_{j <= i} min(1, (m - j + 1) p_(j))`` in sorted order.

    NaN p-values (a pair not tested yet) stay NaN and do not count in m.

    >>> holm_adjusted([0.01, 0.04, 0.03]).round(3).tolist()
    [0.03, 0.06, 0.06]
    """
    p = np.asarray(pvalues, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    ok = np.flatnonzero(np.isfinite(p))
    m = len(ok)
    if not m:
        return out
    order = ok[np.argsort(p[ok], kind="stable")]
    scaled = np.minimum(1.0, (m - np.arange(m)) * p[order])
    out[order] = np.maximum.accumulate(scaled)
    return out


def holm(pvalues: npt.ArrayLike, alpha: float = 0.05) -> np.ndarray:
    """Which hypotheses Holm's step-down procedure rejects at family-wise level ``alpha``."""
    alpha = check_open_unit(alpha, "alpha")
    adj = holm_adjusted(pvalues)
    return np.asarray(np.isfinite(adj) & (adj <= alpha))


def e_bh(evalues: npt.ArrayLike, alpha: float = 0.05) -> np.ndarray:
    """Which hypotheses the e-BH procedure rejects at false discovery rate ``alpha``.

    NaN e-values do not count in m and are never rejected.

    >>> e_bh([40.0, 40.0, 2.0], alpha=0.05).tolist()   # k = 2: both 40 >= 3 / (0.05 * 2)
    [True, True, False]
    """
    alpha = check_open_unit(alpha, "alpha")
    e = np.asarray(evalues, dtype=np.float64)
    out = np.zeros(e.shape, dtype=bool)
    ok = np.flatnonzero(np.isfinite(e))
    m = len(ok)
    if not m:
        return out
    order = ok[np.argsort(-e[ok], kind="stable")]
    k = np.arange(1, m + 1)
    passing = np.flatnonzero(e[order] >= m / (alpha * k))
    if len(passing):
        out[order[: passing[-1] + 1]] = True
    return out


def cited_fold_tests(
    tests: Sequence[dict[str, Any]], n_pairs: int, alpha: float
) -> dict[tuple[str, str], Cited]:
    """Per pair (learner_a, learner_b): the (test, p-value, favours, reject, correction) of
    its Wilcoxon row, else its sign row; with several pairs the p-values are Holm-adjusted
    across the pairs and rejected at ``alpha``.

    >>> rows = [{"test": "wilcoxon", "learner_a": "a", "learner_b": b, "pvalue": p,
    ...          "reject": p <= 0.05, "favours": "a"} for b, p in (("b", 0.02), ("c", 0.04))]
    >>> cited = cited_fold_tests(rows, 2, 0.05)
    >>> [(c[0], round(c[1], 2), c[3], c[4]) for c in cited.values()]
    [('wilcoxon', 0.04, True, 'Holm'), ('wilcoxon', 0.04, True, 'Holm')]
    """
    out: dict[tuple[str, str], Cited] = {}
    for name in ("wilcoxon", "sign"):
        chosen = [t for t in tests if t["test"] == name]
        if not chosen:
            continue
        p = np.array([t["pvalue"] for t in chosen], dtype=np.float64)
        correction = None
        if n_pairs > 1:
            p, correction = holm_adjusted(p), "Holm"
        for t, pv in zip(chosen, p.tolist(), strict=True):
            reject = bool(pv <= alpha) if correction else bool(t["reject"])
            out.setdefault((t["learner_a"], t["learner_b"]),
                           (name, pv, t.get("favours"), reject, correction))
    return out
