"""Comparing learners over many streams: one value per (stream, learner), as in a paper's table.

Each stream is one block; each learner's value on it is its final measure (mean over folds).
The tests are those of Demšar (2006) and Benavoli et al. (2016, 2017):

- ranks under one rule, the only one a suite shows (rank 1 = best): two learners whose
  values on a stream differ by no more than the region of practical equivalence (the ROPE
  of the Bayesian test below) tie (:func:`rope_ranks`); their mean over the streams is the
  average rank of the table, the bold, the rank figure and the CD diagram;
- Friedman's test with the Iman–Davenport F correction (Demšar 2006, §3.2.2) on those very
  ranks (:func:`friedman_on_ranks`, Conover's form for tied ranks), with Nemenyi's
  critical difference between their averages;
- Wilcoxon's signed-rank test per learner pair with Holm's step-down correction, the
  pairwise procedure Benavoli, Corani & Mangili (2016, §4) recommend over mean-rank
  post-hoc tests;
- the Bayesian signed-rank test with a region of practical equivalence (Benavoli et al.
  2017, §5): P(A better), P(equivalent), P(B better) per pair.

Every distribution comes from :mod:`scipy.stats`.

>>> values = [[0.90, 0.80, 0.70], [0.85, 0.80, 0.75], [0.70, 0.72, 0.60], [0.95, 0.90, 0.80]]
>>> res = compare(values, ["a", "b", "c"], streams=["s1", "s2", "s3", "s4"])
>>> res.average_ranks
{'a': 1.25, 'b': 1.75, 'c': 3.0}
>>> res.friedman["reject"], round(res.friedman["iman_davenport"], 2)
(True, 13.0)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import numpy as np

from distval.errors import DistvalError, check_open_unit
from distval.statistics.base import as_numbers
from distval.statistics.friedman import nemenyi_critical_difference
from distval.statistics.multiplicity import holm_adjusted

__all__ = [
    "CrossStream",
    "bayesian_signed_rank",
    "compare",
    "friedman_iman_davenport",
    "friedman_on_ranks",
    "rope_ranks",
    "stream_ranks",
]


def _stats() -> Any:
    from scipy import stats

    return stats


def _table(values: Any) -> np.ndarray:
    table = as_numbers(values, "values", 2, "(streams, learners)")
    if not np.isfinite(table).all():
        raise DistvalError("`values` must contain only finite values")
    return table


def average_ranks(values: Any) -> np.ndarray:
    """Average rank of each learner (column) over the streams (rows); 1 = the highest value.

    >>> average_ranks([[0.9, 0.8], [0.7, 0.7]]).tolist()
    [1.25, 1.75]
    """
    return np.asarray(_stats().rankdata(-_table(values), axis=1).mean(axis=0))


def rope_ranks(values: Any, rope: float) -> np.ndarray:
    """Each learner's (column's) rank on each stream (row), 1 = the highest value, where a
    difference of at most ``rope`` is a tie: rank = 1 + the learners better by more than
    ``rope`` + half of the other learners within ``rope``. Without such ties these are the
    ordinary ranks; each stream's ranks still sum to ``k (k + 1) / 2``. Differences far
    below a fold's spread (0.0004 in accuracy, say) then no longer order two learners,
    as the Bayesian signed-rank test with the same ROPE would call them equivalent.

    >>> rope_ranks([[0.9000, 0.8996, 0.5], [0.9, 0.8, 0.7]], 0.01).tolist()
    [[1.5, 1.5, 3.0], [1.0, 2.0, 3.0]]
    """
    table = _table(values)
    diff = table[:, None, :] - table[:, :, None]  # [s, i, j] = v_j - v_i
    better = (diff > rope).sum(axis=2)
    within = (np.abs(diff) <= rope).sum(axis=2) - 1  # not itself
    return np.asarray(1.0 + better + 0.5 * within, dtype=np.float64)


def friedman_on_ranks(
    ranks: Any, *, alpha: float = 0.05, tie_correction: bool = True
) -> dict[str, Any]:
    """Friedman's test on given ranks (streams x learners, 1 = best) with the Iman–Davenport
    correction and Nemenyi's critical difference.

    With ``tie_correction`` the statistic is Conover's form for tied ranks (Conover 1999,
    *Practical Nonparametric Statistics*, §5.8): ``(k - 1) sum_j (R_j - N (k + 1) / 2)^2 /
    (sum_ij r_ij^2 - N k (k + 1)^2 / 4)``, the between-learner sum of squares over the
    ranks' own variance, ``R_j`` the rank sums. On midranks of tied groups it is
    ``scipy.stats.friedmanchisquare``'s tie-corrected statistic; it also takes ranks whose
    ties chain (:func:`rope_ranks`: 1.5, 2, 2.5), so the test reads exactly the ranks the
    table prints. Without it, Demšar's (2006, §3.2.2) ``12 N / (k (k + 1)) (sum_j AR_j^2 -
    k (k + 1)^2 / 4)`` from the average ranks ``AR_j``. The chi-square has ``k - 1``
    degrees of freedom for ``k`` learners on ``N`` streams; Iman and Davenport's ``F_F =
    (N - 1) chi2 / (N (k - 1) - chi2)`` follows the F distribution with ``k - 1`` and
    ``(k - 1)(N - 1)`` degrees of freedom and is less conservative; Nemenyi's
    ``CD = q_alpha sqrt(k (k + 1) / (6 N))``. Needs 3 learners and 2 streams.

    Returns a dict: ``chi2``, ``pvalue`` (chi-square), ``iman_davenport``,
    ``iman_davenport_pvalue``, ``reject`` (on the Iman–Davenport p-value), ``alpha``,
    ``average_ranks``, ``critical_difference`` (Nemenyi) and ``different`` (pairs of learner
    indices whose average ranks differ by at least the CD).

    >>> r = friedman_on_ranks([[1.5, 1.5, 3], [1, 2, 3], [2, 1, 3]])
    >>> r["average_ranks"], round(r["chi2"], 3)
    ([1.5, 1.5, 3.0], 4.909)
    """
    alpha = check_open_unit(alpha, "alpha")
    table = _table(ranks)
    n, k = table.shape
    if k < 3:
        raise DistvalError(f"Friedman's test needs at least 3 learners (columns), got {k}")
    if n < 2:
        raise DistvalError(f"Friedman's test needs at least 2 streams (rows), got {n}")
    average = table.mean(axis=0)
    if tie_correction:
        between = float(np.sum((table.sum(axis=0) - n * (k + 1) / 2.0) ** 2))
        spread = float(np.sum(table**2) - n * k * (k + 1) ** 2 / 4.0)
        chi2 = (k - 1) * between / spread if spread > 1e-12 else 0.0  # all tied: no ranking
    else:
        chi2 = float(12.0 * n / (k * (k + 1)) * (np.sum(average**2) - k * (k + 1) ** 2 / 4.0))
    stats = _stats()
    p_chi2 = float(stats.chi2.sf(chi2, k - 1)) if chi2 > 0 else 1.0
    denom = n * (k - 1) - chi2
    if chi2 <= 0:
        f_f, p_f = 0.0, 1.0
    elif denom <= 1e-9 * n * (k - 1):  # every stream ranks the learners alike: F is infinite
        f_f, p_f = math.inf, 0.0
    else:
        f_f = (n - 1) * chi2 / denom
        p_f = float(stats.f.sf(f_f, k - 1, (k - 1) * (n - 1)))
    cd = nemenyi_critical_difference(k, n, alpha=alpha)
    return {
        "chi2": chi2,
        "pvalue": p_chi2,
        "iman_davenport": f_f,
        "iman_davenport_pvalue": p_f,
        "reject": bool(p_f <= alpha),
        "alpha": alpha,
        "tie_correction": tie_correction,
        "average_ranks": [round(float(r), 3) for r in average],
        "critical_difference": float(cd),
        "different": [[i, j] for i, j in combinations(range(k), 2)
                      if abs(average[i] - average[j]) >= cd],
    }


def friedman_iman_davenport(
    values: Any, *, alpha: float = 0.05, tie_correction: bool = True
) -> dict[str, Any]:
    """:func:`friedman_on_ranks` of the plain ranks of ``values`` (streams x learners,
    higher is better; ties share their mean rank, ``scipy.stats.rankdata``).

    >>> r = friedman_iman_davenport([[3, 2, 1], [3, 1, 2], [3, 2, 1]])
    >>> r["average_ranks"], round(r["chi2"], 3)
    ([1.0, 2.333, 2.667], 4.667)
    """
    table = _table(values)
    ranks = _stats().rankdata(-table, axis=1) if table.size else table
    return friedman_on_ranks(ranks, alpha=alpha, tie_correction=tie_correction)


def bayesian_signed_rank(
    a: Any,
    b: Any,
    *,
    rope: float = 0.01,
    prior: float = 0.5,
    n_samples: int = 50_000,
    seed: int = 1,
) -> tuple[float, float, float]:
    """Bayesian signed-rank test (Benavoli et al. 2017, §5): P(A better), P(equivalent),
    P(B better) from paired values over streams.

    The differences ``z_i = a_i - b_i`` get a Dirichlet-process posterior whose prior is one
    pseudo-observation at 0 with weight ``prior``; a posterior sample is a vector of
    Dirichlet weights ``w ~ Dir(prior, 1, ..., 1)`` over ``(0, z_1, ..., z_n)``. For each
    sample, the mass of pairs ``(i, j)`` (Walsh averages, as in the signed-rank statistic)
    with ``z_i + z_j > 2 rope`` is the probability that A is better, ``< -2 rope`` that B
    is, the rest practical equivalence (ties at the bound count half). The returned
    probabilities are the shares of ``n_samples`` samples in which each of the three is the
    largest (with ``rope=0``: in which B is better, or not). Samples are drawn with
    ``numpy.random.RandomState(seed).dirichlet``, so a seed gives the numbers of baycomp's
    ``SignedRankTest.probs(a, b, rope, random_state=seed)``.

    >>> a = [0.80, 0.85, 0.90, 0.82, 0.88, 0.91]
    >>> b = [0.70, 0.74, 0.80, 0.75, 0.77, 0.80]
    >>> [round(p, 3) for p in bayesian_signed_rank(a, b, rope=0.01, n_samples=2000)]
    [1.0, 0.0, 0.0]
    """
    if not (isinstance(rope, (int, float)) and math.isfinite(rope) and rope >= 0):
        raise DistvalError(f"`rope` must be a number >= 0, got {rope!r}")
    if not (isinstance(prior, (int, float)) and prior > 0):
        raise DistvalError(f"`prior` must be a number > 0, got {prior!r}")
    x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 1 or x.size == 0:
        raise DistvalError("`a` and `b` must be two sequences of the same non-zero length")
    z = np.concatenate(([0.0], x - y))
    sums = z[:, None] + z[None, :]
    bound = 2.0 * rope

    def step(v: np.ndarray) -> np.ndarray:
        out: np.ndarray = (v > bound).astype(np.float64) + 0.5 * (v == bound)
        return out

    above, below = step(sums), step(-sums)
    concentration = np.ones(z.size)
    concentration[0] = prior
    w = np.random.RandomState(seed).dirichlet(concentration, n_samples)
    p_a = np.einsum("si,ij,sj->s", w, above, w)
    p_b = np.einsum("si,ij,sj->s", w, below, w)
    p_eq = 1.0 - p_a - p_b
    if rope > 0:
        winners = np.argmax(np.stack([p_a, p_eq, p_b], axis=1), axis=1)
        share = np.bincount(winners, minlength=3) / n_samples
        return float(share[0]), float(share[1]), float(share[2])
    share_a = float(np.mean(1.0 - p_b >= p_b))  # no rope: B better, or not
    return share_a, 0.0, 1.0 - share_a


@dataclass
class CrossStream:
    """The cross-stream comparison of a suite (see :func:`compare`)."""

    learners: list[str]
    streams: list[str]
    values: np.ndarray  # (streams, learners) mean over folds
    spread: np.ndarray  # (streams, learners) sd over folds
    alpha: float
    rope: float
    #: Average ranks, differences within the ROPE tied (:func:`rope_ranks`): the suite's one
    #: rank rule.
    average_ranks: dict[str, float | None]
    friedman: dict[str, Any] | None
    wilcoxon: list[dict[str, Any]] = field(default_factory=list)
    bayesian: list[dict[str, Any]] = field(default_factory=list)
    #: Whether the measure is an error (a regression run's RMSE): rank 1 is the lowest.
    lower_is_better: bool = False
    #: (streams, learners) each learner's rank on each stream under that rule.
    ranks: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: every number a float, tables as nested lists."""
        return {
            "learners": list(self.learners),
            "streams": list(self.streams),
            "values": self.values.tolist(),
            "spread": [
                [v if math.isfinite(v) else None for v in row] for row in self.spread.tolist()
            ],
            "alpha": self.alpha,
            "rope": self.rope,
            "ranks": self.ranks.tolist(),
            "average_ranks": dict(self.average_ranks),
            "ranks_tie_within_rope": True,
            # an infinite Iman-Davenport F (every stream ranks alike) is JSON's null
            "friedman": None
            if self.friedman is None
            else {
                k: None if isinstance(v, float) and not math.isfinite(v) else v
                for k, v in self.friedman.items()
            },
            "wilcoxon_holm": self.wilcoxon,
            "bayesian_signed_rank": self.bayesian,
        } | ({"lower_is_better": True} if self.lower_is_better else {})


def stream_ranks(comparison: dict[str, Any]) -> np.ndarray:
    """The (streams, learners) ranks of a saved comparison (``suite.json``'s
    ``comparison``), the rule's own; a file written before they were saved gets them from its
    values and ROPE (:func:`rope_ranks`), as :func:`compare` computes them.

    >>> stream_ranks({"values": [[0.9, 0.895], [0.7, 0.8]], "rope": 0.01}).tolist()
    [[1.5, 1.5], [2.0, 1.0]]
    """
    c = comparison
    shape = (len(c["values"]), len(c["values"][0]) if c["values"] else 0)
    if c.get("ranks") is not None and np.shape(c["ranks"]) == shape:
        return np.asarray(c["ranks"], dtype=np.float64).reshape(shape)
    if not shape[0]:
        return np.zeros(shape)
    values = np.asarray(c["values"], dtype=np.float64)
    return rope_ranks(-values if c.get("lower_is_better") else values, float(c.get("rope", 0.0)))


def compare(
    values: Any,
    learners: Sequence[str],
    *,
    streams: Sequence[str],
    spread: Any = None,
    alpha: float = 0.05,
    rope: float = 0.01,
    n_samples: int = 50_000,
    seed: int = 1,
    lower_is_better: bool = False,
) -> CrossStream:
    """Every cross-stream statistic of a (streams x learners) table of final measures.

    Friedman needs 3 learners and 2 streams; the pairwise tests need 2 streams. Tests that
    cannot be computed are left out (``friedman`` None, empty pair lists). With
    ``lower_is_better`` (an error such as RMSE) the lowest value ranks first and wins; the
    values are kept as they are.

    >>> compare([[2.0, 3.0], [1.0, 1.5]], ["a", "b"], streams=["s", "t"],
    ...         lower_is_better=True).average_ranks
    {'a': 1.0, 'b': 2.0}
    """
    alpha = check_open_unit(alpha, "alpha")
    shown = _table(values)
    table = -shown if lower_is_better else shown
    n, k = table.shape
    if k != len(learners) or n != len(streams):
        raise DistvalError(f"`values` has shape {table.shape}: {n} streams x {k} learners expected")
    sd = np.zeros_like(table) if spread is None else np.asarray(spread, dtype=np.float64)
    tied = rope_ranks(table, rope) if n else np.full((0, k), np.nan)
    ranks = tied.mean(axis=0) if n else np.full(k, np.nan)
    # Friedman and Nemenyi on those same ranks, chained ties included
    fried = friedman_on_ranks(tied, alpha=alpha) if k >= 3 and n >= 2 else None
    wil: list[dict[str, Any]] = []
    bay: list[dict[str, Any]] = []
    if n >= 2 and k >= 2:
        pairs = list(combinations(range(k), 2))
        stats = _stats()
        pvalues = []
        for i, j in pairs:
            d = table[:, i] - table[:, j]
            if np.all(d == 0):
                pvalues.append((0.0, 1.0))
            else:
                res = stats.wilcoxon(table[:, i], table[:, j], zero_method="wilcox")
                pvalues.append((float(res.statistic), float(res.pvalue)))
        adjusted = holm_adjusted([p for _, p in pvalues])
        for (i, j), (stat, p), p_holm in zip(pairs, pvalues, adjusted, strict=True):
            d = table[:, i] - table[:, j]
            wil.append(
                {
                    "a": learners[i],
                    "b": learners[j],
                    "wins_a": int(np.sum(d > 0)),
                    "wins_b": int(np.sum(d < 0)),
                    "statistic": stat,
                    "pvalue": p,
                    "pvalue_holm": float(p_holm),
                    "reject": bool(p_holm <= alpha),
                }
            )
            pa, pe, pb = bayesian_signed_rank(
                table[:, i], table[:, j], rope=rope, n_samples=n_samples, seed=seed
            )
            bay.append({"a": learners[i], "b": learners[j], "p_a": pa, "p_rope": pe, "p_b": pb})
    return CrossStream(
        learners=list(learners),
        streams=list(streams),
        values=shown,
        spread=sd,
        alpha=alpha,
        rope=rope,
        average_ranks={
            lab: round(float(r), 4) if math.isfinite(r) else None
            for lab, r in zip(learners, ranks, strict=True)
        },
        friedman=fried,
        wilcoxon=wil,
        bayesian=bay,
        lower_is_better=lower_is_better,
        ranks=tied,
    )
