"""Decisions that stay valid when the live results are watched: alpha spending and e-processes.

A fixed-sample test checked every ``test_every`` rows and acted on the first time its p-value
drops below alpha rejects a true null far more often than alpha. Two remedies:

- **Alpha spending** (Lan & DeMets 1983, *Biometrika* 70:659-663): a spending function
  ``a(t)`` gives the share of alpha that may be used up by information fraction ``t`` (here
  rows seen / rows planned). At look k the two-sided z boundary ``c_k`` is the one whose
  crossing probability, given no earlier crossing, is ``a(t_k) - a(t_{k-1})`` under the
  canonical joint distribution of a score statistic (Jennison & Turnbull 2000, *Group
  Sequential Methods*, §7.2 and the numerical integration of §19.2).
  :func:`spending` has the O'Brien-Fleming-type function (each side spends
  ``2 - 2 Phi(z_{1-a/2} / sqrt t)`` of its ``a = alpha / 2``) and the Pocock-type
  ``alpha log(1 + (e - 1) t)``; :func:`boundaries` computes ``c_k``.
  When the stream length is unknown there is no information fraction: look k may then spend
  ``alpha * 6 / (pi^2 k^2)`` (these add up to alpha over infinitely many looks), a union
  bound that holds whatever the dependence between looks.
- **An e-process** (testing by betting: Shafer & Vovk 2019, *Game-Theoretic Foundations for
  Probability and Finance*; Waudby-Smith & Ramdas 2024, *JRSS B* 86:1-27):
  :class:`SignEProcess` bets, between two looks, on the sign of each fold's difference in
  correct predictions over the rows of that block. If under the null each block's sign is
  symmetric given the past and folds are independent, the wealth is a nonnegative martingale
  with initial value 1, so by Ville's inequality it ever reaches ``1 / alpha`` with
  probability at most alpha: a decision valid at every look, with no planned horizon.

>>> [round(c, 3) for c in boundaries([0.2, 0.4, 0.6, 0.8, 1.0], alpha=0.05)]
[4.877, 3.357, 2.68, 2.29, 2.031]
"""

from __future__ import annotations

import copy
import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
from scipy import optimize, stats

from distval.errors import DistvalError, check_open_unit

__all__ = [
    "SEQUENTIAL",
    "SPENDING",
    "AlphaSpending",
    "SignEProcess",
    "boundaries",
    "spending",
]

#: Live decision rules: a fixed-sample test at every look, alpha spending, an e-process.
SEQUENTIAL = ("none", "spending", "evalue")
#: Spending functions of Lan & DeMets (1983).
SPENDING = ("obrien-fleming", "pocock")

FloatArray = npt.NDArray[np.float64]


def spending(
    t: float | npt.ArrayLike, alpha: float = 0.05, kind: str = "obrien-fleming"
) -> FloatArray:
    """Alpha spent by information fraction ``t`` (two-sided), for ``kind`` in :data:`SPENDING`.

    >>> spending([0.5, 1.0], 0.05).round(4).tolist()
    [0.0031, 0.05]
    """
    alpha = check_open_unit(alpha, "alpha")
    frac = np.clip(np.asarray(t, dtype=np.float64), 0.0, 1.0)
    if kind == "obrien-fleming":
        # Each side spends 2 - 2 Phi(z_{1 - a/2} / sqrt t) of its a = alpha / 2, as gsDesign's
        # sfLDOF and rpact's asOF do for a symmetric two-sided design.
        with np.errstate(divide="ignore"):
            z = stats.norm.isf(alpha / 4) / np.sqrt(frac)
        return np.asarray(4 * stats.norm.sf(z), dtype=np.float64)
    if kind == "pocock":
        return np.asarray(alpha * np.log1p((math.e - 1) * frac), dtype=np.float64)
    raise DistvalError(f"unknown spending function {kind!r}; choose one of {', '.join(SPENDING)}")


def boundaries(
    times: Sequence[float],
    alpha: float = 0.05,
    kind: str = "obrien-fleming",
    *,
    points: int = 401,
) -> list[float]:
    """Two-sided z boundaries ``c_k`` at information fractions ``times`` (increasing, in (0, 1]).

    The continuation density of the score statistic is carried from look to look on a grid
    (Simpson's rule, ``points`` nodes), and each ``c_k`` is solved so that the probability of
    first crossing at look k is the alpha spent between looks k-1 and k.
    """
    t = np.asarray(times, dtype=np.float64)
    if t.ndim != 1 or not len(t) or np.any(np.diff(t) <= 0) or t[0] <= 0 or t[-1] > 1:
        raise DistvalError("information fractions must increase within (0, 1]")
    recursion = _Recursion(points)
    spent = np.diff(np.r_[0.0, spending(t, alpha, kind)])
    return [recursion.next(float(tk), float(a)) for tk, a in zip(t, spent)]


class _Recursion:
    """The sub-density of the score statistic S = Z sqrt(t) among paths that have not crossed
    yet, carried on a grid from look to look (Jennison & Turnbull 2000, §19.2)."""

    def __init__(self, points: int = 401) -> None:
        self.points = points | 1  # Simpson's rule needs an odd number of nodes
        self.t = 0.0
        self.grid: FloatArray | None = None
        self.weights: FloatArray | None = None  # sub-density times Simpson's weights

    def next(self, t: float, spend: float) -> float:
        """The boundary at information ``t`` that spends ``spend`` more; moves to that look."""
        sd = math.sqrt(t - self.t)
        grid, weights = self.grid, self.weights

        def cross(c: float) -> float:
            b = c * math.sqrt(t)
            if grid is None or weights is None:
                return float(2 * stats.norm.sf(b / sd))
            mass = stats.norm.sf((b - grid) / sd) + stats.norm.cdf((-b - grid) / sd)
            return float(weights @ mass)

        c = math.inf
        if spend > 0:
            c = float(optimize.brentq(lambda c: cross(c) - spend, 1e-6, 40.0, xtol=1e-10))
        b = c * math.sqrt(t) if math.isfinite(c) else 12 * math.sqrt(t)
        new = np.linspace(-b, b, self.points)
        if grid is None or weights is None:
            dens = stats.norm.pdf(new / sd) / sd
        else:
            dens = stats.norm.pdf((new[:, None] - grid[None, :]) / sd) @ weights / sd
        simpson = np.ones(self.points)
        simpson[1:-1:2], simpson[2:-1:2] = 4.0, 2.0
        self.weights = dens * simpson * (new[1] - new[0]) / 3
        self.grid, self.t = new, t
        return c


#: Boundaries already computed: (alpha, kind, looks so far) -> (p limit, spent, recursion).
_SCHEDULES: dict[tuple[float, str, tuple[float, ...]], tuple[float, float, _Recursion]] = {}


class AlphaSpending:
    """Group-sequential decisions from the p-values of a test at each look.

    ``n_rows`` is the planned stream length (``None``: unknown, then look k spends
    ``alpha * 6 / (pi^2 k^2)``). A two-sided p-value is turned into ``z = Phi^{-1}(1 - p/2)``
    and compared with the boundary of the looks so far; once rejected, a pair stays rejected.

    >>> rule = AlphaSpending(n_rows=1000, alpha=0.05)
    >>> rule.decide(200, 0.01), rule.decide(1000, 0.01)
    (False, True)
    """

    def __init__(self, n_rows: int | None, alpha: float = 0.05, kind: str = "obrien-fleming"):
        self.n_rows = n_rows
        self.alpha = check_open_unit(alpha, "alpha")
        spending(1.0, self.alpha, kind)  # checks the kind
        self.kind = kind
        self.looks = 0
        self._times: tuple[float, ...] = ()
        self._recursion = _Recursion()
        self._spent = 0.0
        self._limit = 0.0
        self.rejected = False

    def threshold(self, position: int) -> float:
        """The nominal p-value below which the look at ``position`` rejects (and records it)."""
        if self.n_rows is None:
            self.looks += 1
            return self.alpha * 6 / (math.pi**2 * self.looks**2)
        t = min(1.0, position / self.n_rows)
        if t <= self._recursion.t:
            return self._limit  # no new information since the last look: same boundary
        self.looks += 1
        self._times += (t,)
        key = (self.alpha, self.kind, self._times)
        if key not in _SCHEDULES:  # runs with the same looks share their boundaries
            total = float(spending(t, self.alpha, self.kind)[()])
            c = self._recursion.next(t, total - self._spent)
            _SCHEDULES[key] = (float(2 * stats.norm.sf(c)), total, copy.copy(self._recursion))
        self._limit, self._spent, recursion = _SCHEDULES[key]
        self._recursion = copy.copy(recursion)
        return self._limit

    def decide(self, position: int, pvalue: float) -> bool:
        """Whether H0 is rejected at this look or was before."""
        limit = self.threshold(position)
        self.rejected = self.rejected or (math.isfinite(pvalue) and pvalue <= limit)
        return self.rejected


class SignEProcess:
    """An anytime-valid sign test across folds, by betting on each block's fold differences.

    Call :meth:`update` at every look with each fold's cumulative count of rows on which
    learner A was right and B wrong (``wins_a``) and the reverse (``wins_b``). For every
    block between looks, a fold's sign is that of its change in ``wins_a - wins_b`` (ties
    bet nothing). The wealth is the average over bets ``lambda`` in
    ``{+-0.05, +-0.15, ..., +-0.95}`` of ``prod (1 + lambda * sign)`` over blocks and folds —
    a mixture of test martingales, so itself one under the null (each block's sign symmetric
    given the past, folds independent). ``reject`` once the wealth has reached ``1/alpha``.

    >>> e = SignEProcess(alpha=0.05)
    >>> for look in range(1, 6):
    ...     _ = e.update(np.full(10, 3 * look), np.zeros(10))
    >>> e.reject, e.wealth > 1 / 0.05   # every fold favours A in every block
    (True, True)
    """

    LAMBDAS = np.r_[-np.arange(0.05, 1.0, 0.1), np.arange(0.05, 1.0, 0.1)]

    def __init__(self, alpha: float = 0.05) -> None:
        self.alpha = check_open_unit(alpha, "alpha")
        self._log = np.zeros(len(self.LAMBDAS))
        self._last: FloatArray | None = None
        self.reject = False

    @property
    def wealth(self) -> float:
        """The mixture's wealth (its e-value at this look)."""
        m = float(self._log.max())
        return float(math.exp(m) * np.mean(np.exp(self._log - m)))

    def update(self, wins_a: npt.ArrayLike, wins_b: npt.ArrayLike) -> float:
        """Bet on the block since the last look; returns the wealth."""
        diff = np.asarray(wins_a, dtype=np.float64) - np.asarray(wins_b, dtype=np.float64)
        block = diff if self._last is None else diff - self._last
        self._last = diff
        signs = np.sign(block[np.isfinite(block)])
        up, down = int((signs > 0).sum()), int((signs < 0).sum())
        self._log += up * np.log1p(self.LAMBDAS) + down * np.log1p(-self.LAMBDAS)
        self.reject = self.reject or self.wealth >= 1 / self.alpha
        return self.wealth
