"""An effect size valid at every look: a confidence sequence for the paired difference.

For a learner pair (A, B), row t gives ``x_t``: the mean, over the folds that tested the row
with both learners, of ``loss_B - loss_A`` (0/1 losses, so ``x_t`` lies in [-1, 1]; positive
favours A). The quantity of interest is the running average of its conditional means,

    Delta_t = (1/t) sum_{i <= t} E[x_i | rows before i],

which is what "A is better than B so far" means when rows drift and depend on each other and
the learners change as they learn: no i.i.d. assumption, no stationary mean.

:class:`DifferenceCS` keeps Choe & Ramdas's empirical-Bernstein confidence sequence for
Delta_t (Choe & Ramdas 2023, *Operations Research*, "Comparing sequential forecasters",
Theorem 2): with probability at least 1 - alpha, at *every* t simultaneously,

    Delta_t in [ xbar_t - u(V_t) / t,  xbar_t + u(V_t) / t ],

where ``xbar_t`` is the running mean, ``V_t = sum_{i <= t} (x_i - gamma_i)^2`` with
``gamma_i = xbar_{i-1}`` (a predictable centre; ``gamma_1 = 0``), and ``u`` a sub-exponential
uniform boundary of scale ``c = hi - lo`` at level alpha / 2 per side. The boundary is the
gamma-exponential mixture of Howard, Ramdas, McAuliffe & Sekhon (2021, *Annals of
Statistics* 49:1055-1080, §3 and Theorem 4 for the empirical-Bernstein form): ``u(v)`` is the
``s`` at which the mixture supermartingale ``M(s, v)`` (:func:`log_gamma_exponential_mixture`)
reaches ``1 / (alpha / 2)``. It is the boundary the authors' package ``comparecast`` uses by
default (through ``confseq.boundaries.gamma_exponential_mixture_bound``); ``v_opt`` is the
intrinsic time ``V_t`` at which it is tightest. Because the sequence holds at every t at once,
it may be looked at after every batch and acted on at any look: a stopping time chosen by
watching it keeps the 1 - alpha coverage.

A decision against a margin ``delta >= 0`` (:func:`decide`): A better when the whole interval
lies above ``delta``, B better when it lies below ``-delta``, equivalent within ``delta`` when
it lies inside ``[-delta, delta]``, undecided otherwise. Each is wrong with probability at
most alpha over the whole stream (the sequence misses Delta_t at some look with at most that
probability).

>>> cs = DifferenceCS(alpha=0.05)
>>> rng = np.random.default_rng(0)
>>> cs.update(np.where(rng.random(20000) < 0.06, 1.0, 0.0) - (rng.random(20000) < 0.02))
>>> round(cs.mean, 3), round(cs.lower, 3), round(cs.upper, 3), decide(cs.lower, cs.upper)
(0.04, 0.034, 0.047, 'A')
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt

from distval.errors import DistvalError, check_open_unit

__all__ = [
    "DECISIONS",
    "DifferenceCS",
    "boundary_table",
    "confidence_sequence",
    "decide",
    "gamma_exponential_bound",
    "log_gamma_exponential_mixture",
    "table_bound",
]

#: The outcomes of :func:`decide`.
DECISIONS = ("A", "B", "equivalent", "undecided")

FloatArray = npt.NDArray[np.float64]


def _rho(v_opt: float, alpha_opt: float) -> float:
    """The mixture's precision, tuned so the boundary is tightest at ``v_opt`` (Howard et
    al. 2021, the one-sided normal-mixture choice also used for the gamma mixtures)."""
    a = 2 * alpha_opt  # the one-sided choice is the two-sided one at twice the level
    return v_opt / (2 * math.log(1 / a) + math.log(1 + 2 * math.log(1 / a)))


def log_gamma_exponential_mixture(
    s: npt.ArrayLike, v: npt.ArrayLike, rho: float, c: float
) -> FloatArray:
    """log M(s, v) of the gamma-exponential mixture (Howard et al. 2021, §3).

    ``M(s, v)`` is the average of ``exp(lambda s - psi_E(lambda) v)`` over ``lambda`` in
    ``[0, 1/c)`` with ``psi_E(lambda) = (-log(1 - c lambda) - c lambda) / c^2`` and the
    conjugate mixing density proportional to ``(1 - c lambda)^(rho/c^2 - 1) exp(lambda rho/c)``;
    integrated in closed form with the regularised lower incomplete gamma function P:

    log M = L + log Gamma(a) + log P(a, b) - a log b + (c s + v) / c^2,
    a = (v + rho) / c^2,  b = (c s + v + rho) / c^2,
    L = (rho/c^2) log(rho/c^2) - log Gamma(rho/c^2) - log P(rho/c^2, rho/c^2).

    >>> float(log_gamma_exponential_mixture(0.0, 0.0, rho=5.0, c=2.0))  # M(0, 0) = 1
    0.0
    """
    from scipy import special

    s = np.asarray(s, dtype=np.float64)
    v = np.asarray(v, dtype=np.float64)
    c2 = c * c
    r = rho / c2
    lead = r * math.log(r) - special.gammaln(r) - math.log(special.gammainc(r, r))
    a = (v + rho) / c2
    b = (c * s + v + rho) / c2
    # P(a, b) > 0 for b > 0; s >= 0 and v >= 0 keep b positive
    out = lead + special.gammaln(a) + np.log(special.gammainc(a, b)) - a * np.log(b)
    return np.asarray(out + (c * s + v) / c2, dtype=np.float64)


def gamma_exponential_bound(
    v: npt.ArrayLike,
    alpha: float,
    *,
    v_opt: float,
    c: float,
    alpha_opt: float | None = None,
) -> FloatArray:
    """The uniform boundary u(v): the s >= 0 where log M(s, v) = log(1/alpha), for every v.

    Bisection on all ``v`` at once (log M increases with s), to a relative tolerance of
    1e-10. ``alpha_opt`` (default ``alpha``) and ``v_opt`` tune the mixture.

    >>> u = gamma_exponential_bound([10.0, 1000.0], 0.025, v_opt=1000.0, c=2.0)
    >>> bool(u[1] < 1000.0 * 0.3), bool(u[0] < u[1])
    (True, True)
    """
    v = np.atleast_1d(np.asarray(v, dtype=np.float64))
    if not 0 < alpha < 1:
        raise DistvalError(f"alpha must lie in (0, 1), got {alpha!r}")
    rho = _rho(v_opt, alpha if alpha_opt is None else alpha_opt)
    target = math.log(1 / alpha)
    lo = np.zeros_like(v)
    hi = np.maximum(v, 1.0)
    for _ in range(60):  # double until the mixture exceeds the threshold
        short = log_gamma_exponential_mixture(hi, v, rho, c) < target
        if not short.any():
            break
        hi = np.where(short, 2 * hi, hi)
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        above = log_gamma_exponential_mixture(mid, v, rho, c) >= target
        hi = np.where(above, mid, hi)
        lo = np.where(above, lo, mid)
        if np.all(hi - lo <= 1e-10 * np.maximum(hi, 1e-300)):
            break
    return np.asarray(hi, dtype=np.float64)


#: The grid of intrinsic times of :func:`boundary_table`: 1 to 1e13, each 0.5 % above the last.
_GRID_RATIO = 1.005
_GRID = np.exp(np.arange(0.0, math.log(1e13) + math.log(_GRID_RATIO), math.log(_GRID_RATIO)))


@lru_cache(maxsize=16)
def boundary_table(alpha: float, v_opt: float, c: float) -> FloatArray:
    """:func:`gamma_exponential_bound` at every point of a geometric grid of intrinsic times
    (1 to 1e13, 0.5 % apart), computed once (vectorised) per level and tuning.

    :func:`table_bound` reads it at the grid point at or above ``v``: the boundary grows with
    ``v``, so that value is at least the exact one (at most about 0.3 % more) and the
    sequence keeps its guarantee, at a table look-up per look instead of a bisection.

    >>> u = boundary_table(0.025, 1000.0, 2.0)
    >>> bool(np.all(np.diff(u) > 0))
    True
    """
    return gamma_exponential_bound(_GRID, alpha, v_opt=v_opt, c=c)


def table_bound(v: npt.ArrayLike, alpha: float, *, v_opt: float, c: float) -> FloatArray:
    """The boundary at ``v`` read from :func:`boundary_table`, rounded up to the grid.

    >>> exact = gamma_exponential_bound([5000.0], 0.025, v_opt=1000.0, c=2.0)[0]
    >>> fast = table_bound([5000.0], 0.025, v_opt=1000.0, c=2.0)[0]
    >>> bool(exact <= fast <= exact * 1.005)
    True
    """
    v = np.maximum(1.0, np.asarray(v, dtype=np.float64))
    table = boundary_table(alpha, v_opt, c)
    j = np.searchsorted(_GRID, v * (1 - 1e-12), side="left")
    inside = j < len(_GRID)
    out = np.where(inside, table[np.minimum(j, len(_GRID) - 1)], np.nan)
    if not inside.all():  # beyond 1e13: the exact boundary
        out[~inside] = gamma_exponential_bound(v[~inside], alpha, v_opt=v_opt, c=c)
    return np.asarray(out, dtype=np.float64)


def _check_bounds(x: FloatArray, lo: float, hi: float) -> None:
    if x.size and (np.nanmin(x) < lo - 1e-12 or np.nanmax(x) > hi + 1e-12):
        raise DistvalError(f"values must lie in [{lo}, {hi}]")


def confidence_sequence(
    x: npt.ArrayLike,
    alpha: float = 0.05,
    *,
    lo: float = -1.0,
    hi: float = 1.0,
    v_opt: float = 1000.0,
    at: npt.ArrayLike | None = None,
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """(mean, lower, upper) of the empirical-Bernstein sequence along the last axis of ``x``.

    ``x`` is (..., t) — several runs at once; ``at`` the 1-based times to report (default
    every t). The same numbers as :class:`DifferenceCS` fed row by row.

    >>> m, l, u = confidence_sequence([1.0, -1.0, 1.0, 1.0], at=[4])
    >>> float(m[0]), bool(l[0] < 0 < u[0])
    (0.5, True)
    """
    alpha = check_open_unit(alpha, "alpha")
    x = np.asarray(x, dtype=np.float64)
    _check_bounds(x, lo, hi)
    n = x.shape[-1]
    t = np.arange(1, n + 1, dtype=np.float64)
    mean = np.cumsum(x, axis=-1) / t
    gamma = np.zeros_like(x)
    gamma[..., 1:] = mean[..., :-1]
    v = np.cumsum((x - gamma) ** 2, axis=-1)
    idx = np.arange(n) if at is None else np.asarray(at, dtype=np.int64) - 1
    mean, v, t = mean[..., idx], v[..., idx], t[idx]
    return _interval(mean, v, t, alpha, lo, hi, v_opt)


def _interval(
    mean: FloatArray, v: FloatArray, t: FloatArray | float, alpha: float, lo: float, hi: float,
    v_opt: float, *, table: bool = False,
) -> tuple[FloatArray, FloatArray, FloatArray]:
    c = hi - lo
    shape = np.shape(mean)
    bound = table_bound if table else gamma_exponential_bound
    u = bound(np.maximum(1.0, np.ravel(v)), alpha / 2, v_opt=v_opt, c=c).reshape(shape)
    radius = u / t
    return (
        np.asarray(mean, dtype=np.float64),
        np.asarray(np.maximum(lo, mean - radius), dtype=np.float64),
        np.asarray(np.minimum(hi, mean + radius), dtype=np.float64),
    )


class DifferenceCS:
    """The running empirical-Bernstein confidence sequence of one pair (see the module).

    :meth:`update` takes a batch of per-row values in ``[lo, hi]`` (NaN: a row no fold
    tested with both learners, skipped); :attr:`lower` / :attr:`upper` are the sequence at
    the latest row, its boundary read from :func:`boundary_table` (at most 0.5 % wider than
    the exact one, never narrower). ``v_opt`` is where the boundary is tightest, in units of
    summed squared deviations (1,000: for example 10,000 rows whose differences have
    variance 0.1).
    """

    def __init__(
        self, alpha: float = 0.05, *, lo: float = -1.0, hi: float = 1.0, v_opt: float = 1000.0
    ) -> None:
        self.alpha = check_open_unit(alpha, "alpha")
        self.lo, self.hi, self.v_opt = float(lo), float(hi), float(v_opt)
        self.t = 0
        self.total = 0.0
        self.v = 0.0
        self._cache: tuple[int, float, float] | None = None

    def update(self, x: npt.ArrayLike) -> None:
        x = np.asarray(x, dtype=np.float64).ravel()
        x = x[np.isfinite(x)]
        if not len(x):
            return
        _check_bounds(x, self.lo, self.hi)
        t = self.t + np.arange(1, len(x) + 1, dtype=np.float64)
        sums = self.total + np.cumsum(x)
        gamma = np.empty(len(x))
        gamma[0] = self.total / self.t if self.t else 0.0
        gamma[1:] = sums[:-1] / t[:-1]
        self.v += float(((x - gamma) ** 2).sum())
        self.total = float(sums[-1])
        self.t += len(x)
        self._cache = None

    @property
    def mean(self) -> float:
        """The running mean of the differences (NaN before any row)."""
        return self.total / self.t if self.t else math.nan

    def _bounds(self) -> tuple[float, float]:
        if not self.t:
            return self.lo, self.hi
        if self._cache is None or self._cache[0] != self.t:
            _, lower, upper = _interval(
                np.array(self.mean), np.array(self.v), float(self.t), self.alpha, self.lo,
                self.hi, self.v_opt, table=True,
            )
            self._cache = (self.t, float(lower), float(upper))
        return self._cache[1], self._cache[2]

    @property
    def lower(self) -> float:
        return self._bounds()[0]

    @property
    def upper(self) -> float:
        return self._bounds()[1]

    def to_dict(self, margin: float = 0.0) -> dict[str, Any]:
        lower, upper = self._bounds()
        return {
            "rows": self.t,
            "mean": self.mean,
            "lower": lower,
            "upper": upper,
            "decision": decide(lower, upper, margin),
        }


def decide(lower: float, upper: float, margin: float = 0.0) -> str:
    """The three-way decision (plus undecided) of an interval for A - B against ``margin``.

    >>> decide(0.01, 0.03), decide(-0.03, -0.01), decide(-0.01, 0.01, 0.02), decide(-0.01, 0.03)
    ('A', 'B', 'equivalent', 'undecided')
    """
    if not margin >= 0:
        raise DistvalError(f"the margin must be 0 or more, got {margin!r}")
    if lower > margin:
        return "A"
    if upper < -margin:
        return "B"
    if margin > 0 and lower >= -margin and upper <= margin:
        return "equivalent"
    return "undecided"
