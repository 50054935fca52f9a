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
  ``2 - 2 Phi(z_{1-a/2} / sqrt t)`` of its ``a = alpha / 2``; it mimics the boundaries of
  O'Brien & Fleming 1979, *Biometrics* 35:549-556) and the Pocock-type
  ``alpha log(1 + (e - 1) t)`` (after Pocock 1977, *Biometrika* 64:191-199);
  :func:`boundaries` computes ``c_k``. The canonical joint distribution is that of a score
  statistic over all rows so far (cumulative counts): McNemar's test on the cumulative
  discordant pairs is one, asymptotically. For the Sign and Wilcoxon tests across the k
  folds' cumulative values it is an **approximation, not a proof**: their p-values at the
  looks are mapped to z-scores and treated as if they had the canonical correlations
  ``sqrt(t_j / t_k)``. Measured, not proven: the committed standard type I error grid with
  per-look decisions (330 cells, alpha 0.05) gives 0.01-0.06 per scheme and variant (0.03
  and 0.04 on average) and an independent recomputation (1,000 null runs per setting)
  stayed below alpha, but no theorem guarantees it. Friedman's test across folds under
  ``--forgetting cumulative`` rests on the same approximation. For statistics over a window
  the looks are
  nearly independent, and :class:`AlphaSpending` with ``canonical=False`` spends at look k
  the increment ``a(t_k) - a(t_{k-1})`` as a level of its own (a union bound, valid whatever
  the dependence between looks, with less power).
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
  That null is about the models as they are at each block: two seeds of one algorithm whose
  fold models differ by luck for the whole stream break it, and the wealth then grows.
- **A settled-sign e-process** (:class:`SettledSignEProcess`, the one ``--sequential evalue``
  uses): the sign test's own null (each fold's difference is as likely to favour A as B,
  independently across folds) holds for the fold's whole path, not block by block. A fold's
  sign therefore counts once, at the look where the fold *settles* (its discordance z-score
  ``|w_A - w_B| / sqrt(w_A + w_B)`` first reaches a threshold; swapping A and B in a fold
  leaves that time unchanged, so the settled sign is a fair coin under the null whatever
  happened before). The e-value is the conditional probability that the exact sign test on
  all k settled signs will reject, given the signs settled so far, divided by that test's
  size: a Doob martingale of an e-value (a test martingale in the sense of Shafer, Shen,
  Vereshchagin & Vovk 2011, *Statistical Science* 26:84-101), so Ville's inequality (Ville
  1939) bounds the chance that it ever reaches ``1 / alpha`` by alpha.
- **A settled Wilcoxon e-process** (:class:`SettledWilcoxonEProcess`): the same argument
  carries over to a signed-rank test if a fold's *rank* is fixed by what is unchanged when A
  and B swap places in that fold. Folds are ranked by the order in which they settle (the
  first to settle gets the highest rank k; folds settling at the same look by their
  discordance z-score, then by fold index); folds that never settle take the lowest ranks.
  Under the null each settled sign is a fair coin given every fold's settling time and
  z-score, so the final signed-rank sum has the exact Wilcoxon null distribution, and the
  conditional probability of the exact two-sided Wilcoxon test's rejection region given
  the folds settled so far, over that region's size, is again a Doob martingale with
  initial value 1. It ranks by strength of evidence as the e-tests of symmetry of Vovk &
  Wang (2024, "Nonparametric e-tests of symmetry", *New England Journal of Statistics in
  Data Science*) rank by magnitude; with k = 10 folds its region {T <= 8} admits two late
  folds on the wrong side where the sign test admits one.

>>> [round(c, 3) for c in boundaries([0.2, 0.4, 0.6, 0.8, 1.0], alpha=0.05)]
[4.877, 3.357, 2.68, 2.29, 2.031]
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt

from distval.errors import DistvalError, check_open_unit

__all__ = [
    "SEQUENTIAL",
    "SPENDING",
    "AlphaSpending",
    "SettledSignEProcess",
    "SettledWilcoxonEProcess",
    "SignEProcess",
    "boundaries",
    "first_rejections",
    "signed_rank_counts",
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
    from scipy import stats  # on first use: ~0.7 s of imports

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
        from scipy import optimize, stats  # on first use: ~0.7 s of imports

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
    ``canonical=False`` (statistics over a window) spends each look's share of alpha as a
    level of its own. A look past ``n_rows`` has no alpha left: it rejects nothing new.

    >>> rule = AlphaSpending(n_rows=1000, alpha=0.05)
    >>> rule.decide(200, 0.01), rule.decide(1000, 0.01)
    (False, True)
    >>> late = AlphaSpending(n_rows=1000)
    >>> late.threshold(1000) > 0.04, late.threshold(1000) > 0.04, late.threshold(1200)
    (True, True, 0.0)
    """

    def __init__(
        self,
        n_rows: int | None,
        alpha: float = 0.05,
        kind: str = "obrien-fleming",
        *,
        canonical: bool = True,
    ) -> None:
        self.n_rows = n_rows
        self.alpha = check_open_unit(alpha, "alpha")
        spending(1.0, self.alpha, kind)  # checks the kind
        self.kind = kind
        self.canonical = canonical
        self.looks = 0
        self._times: tuple[float, ...] = ()
        self._recursion = _Recursion()
        self._spent = 0.0
        self._limit = 0.0
        self._position: int | None = None
        self.rejected = False

    @property
    def limit(self) -> float:
        """The p-value limit of the latest look (0 before the first)."""
        return self._limit

    def threshold(self, position: int) -> float:
        """The nominal p-value below which the look at ``position`` rejects (and records it)."""
        from scipy import stats  # on first use: ~0.7 s of imports

        if position == self._position:
            return self._limit  # the same look again (the end of a stream that ends on one)
        self._position = position
        if self.n_rows is None:
            self.looks += 1
            self._limit = self.alpha * 6 / (math.pi**2 * self.looks**2)
            return self._limit
        t = min(1.0, position / self.n_rows)
        if t <= self._recursion.t or (not self.canonical and self._times and t <= self._times[-1]):
            self._limit = 0.0  # past the planned horizon: nothing left to spend
            return self._limit
        self.looks += 1
        self._times += (t,)
        total = float(spending(t, self.alpha, self.kind)[()])
        if not self.canonical:
            self._limit, self._spent = total - self._spent, total
            return self._limit
        key = (self.alpha, self.kind, self._times)
        if key not in _SCHEDULES:  # runs with the same looks share their boundaries
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


class _SettledFolds:
    """What the settled-fold e-processes share: their checks, the exact test's region
    ``statistic <= c`` from its two-sided ``sizes`` at ``alpha``, the folds' settled signs,
    the running e-value and the anytime-valid p-value."""

    def __init__(self, n_folds: int, alpha: float, settle: float) -> None:
        self.alpha = check_open_unit(alpha, "alpha")
        if n_folds < 1:
            raise DistvalError(f"at least one fold is needed, got {n_folds}")
        if not settle > 0:
            raise DistvalError(f"`settle` must be positive, got {settle!r}")
        self.n_folds, self.settle = int(n_folds), float(settle)
        self.signs = np.zeros(self.n_folds, dtype=np.int8)  # +1 A, -1 B, 0 not settled yet
        self.evalue = 1.0
        self.max_evalue = 1.0
        self.reject = False

    def _region(self, sizes: np.ndarray) -> None:
        fits = np.flatnonzero(sizes <= self.alpha)
        self.c = int(fits[-1]) if len(fits) else -1  # -1: the test can never reject
        self.size = float(sizes[self.c]) if self.c >= 0 else 0.0

    @property
    def settled(self) -> int:
        """Folds whose sign is settled."""
        return int(np.count_nonzero(self.signs))

    @property
    def pvalue(self) -> float:
        """The anytime-valid p-value: ``min(1, 1 / largest e-value so far)``."""
        return min(1.0, 1.0 / self.max_evalue)


class SettledSignEProcess(_SettledFolds):
    """An anytime-valid sign test across k folds: each fold's sign counts once, when it settles.

    Call :meth:`update` at every look with each fold's cumulative count of rows on which
    learner A was right and B wrong (``wins_a``) and the reverse (``wins_b``). A fold
    *settles* at the first look where ``|wins_a - wins_b| >= settle * sqrt(wins_a + wins_b)``
    (a discordance z-score, unchanged when A and B swap places); its sign at that look is
    kept for good. Under the sign test's null (in every fold, A and B are exchangeable, folds
    independent) a settled sign is a fair coin whatever the path before it, even when each
    fold's two models differ by luck for the whole stream (two seeds of one algorithm).

    The e-value is ``P(R | settled signs) / P0(R)``, where R is the rejection region of the
    exact two-sided sign test at ``alpha`` on all k folds and the unsettled folds are fair
    coins: the Doob martingale of the e-value ``1{R} / P0(R)``. By Ville's inequality it ever
    reaches ``1 / alpha`` with probability at most alpha, at whatever looks it is watched.
    :attr:`pvalue` is the anytime-valid p-value ``min(1, 1 / max e-value so far)``.

    Any ``settle`` keeps the guarantee; it sets the power. A fold settling early may settle
    on the wrong side of a small difference, one settling late may not settle before the
    stream ends. The default 1.5 had the most power among 1, 1.5, 2 and 2.5 on simulated
    per-fold discordance paths (10 folds, 20 looks, per-fold edges of 0.005-0.02 over
    discordance rates of 0.1, with and without seed-to-seed spread); it was not tuned on
    the type I / type II harness, whose numbers it is reported with.

    >>> e = SettledSignEProcess(n_folds=10, alpha=0.05)
    >>> round(e.update(np.full(10, 30), np.full(10, 10)), 2)   # every fold settles for A
    46.55
    >>> e.reject, e.settled, e.pvalue < 0.05
    (True, 10, True)
    >>> e = SettledSignEProcess(n_folds=10)
    >>> e.update([30, 30, 30, 30, 30, 30, 30, 5, 5, 5], [10] * 10), e.reject  # 7 settle for A
    (23.27..., True)
    """

    def __init__(self, n_folds: int, alpha: float = 0.05, settle: float = 1.5) -> None:
        from scipy import stats  # on first use: ~0.7 s of imports

        super().__init__(n_folds, alpha, settle)
        k = self.n_folds
        # the exact two-sided sign test's region {W <= c or W >= k - c} at level alpha
        tail = stats.binom.cdf(np.arange(k + 1), k, 0.5)
        self._region(np.minimum(1.0, 2 * tail))

    @property
    def margin(self) -> int:
        """Settled folds favouring A minus those favouring B."""
        return int(self.signs.sum())

    def update(self, wins_a: npt.ArrayLike, wins_b: npt.ArrayLike) -> float:
        """Settle the folds that reach the threshold at this look; returns the e-value."""
        from scipy import stats  # on first use: ~0.7 s of imports

        a = np.asarray(wins_a, dtype=np.float64)
        b = np.asarray(wins_b, dtype=np.float64)
        diff, total = a - b, a + b
        with np.errstate(invalid="ignore"):
            now = (self.signs == 0) & (diff != 0) & (np.abs(diff) >= self.settle * np.sqrt(total))
        self.signs[now] = np.sign(diff[now]).astype(np.int8)
        if self.c >= 0 and now.any():  # the e-value moves only when a fold settles
            w = int((self.signs > 0).sum())
            u = self.n_folds - self.settled
            k, c = self.n_folds, self.c
            # P(w + Bin(u, 1/2) >= k - c) + P(w + Bin(u, 1/2) <= c)
            hit = stats.binom.sf(k - c - w - 1, u, 0.5) + stats.binom.cdf(c - w, u, 0.5)
            self.evalue = float(min(1.0, hit) / self.size)
        self.max_evalue = max(self.max_evalue, self.evalue)
        self.reject = self.reject or self.evalue >= 1 / self.alpha
        return self.evalue


@lru_cache(maxsize=128)
def signed_rank_counts(n: int) -> tuple[int, ...]:
    """How many of the 2**n sign patterns of ranks 1..n give each signed-rank sum W+ = 0,
    1, ..., n (n + 1) / 2: the coefficients of prod_j (1 + x**j).

    >>> signed_rank_counts(3)
    (1, 1, 1, 2, 1, 1, 1)
    """
    counts = np.zeros(n * (n + 1) // 2 + 1, dtype=object)
    counts[0] = 1
    for j in range(1, n + 1):
        counts[j:] = counts[j:] + counts[:-j].copy()
    return tuple(int(c) for c in counts)


def _signed_rank_cdf(n: int) -> FloatArray:
    counts = np.array(signed_rank_counts(n), dtype=np.float64)
    return np.asarray(np.cumsum(counts) / 2.0**n, dtype=np.float64)


class SettledWilcoxonEProcess(_SettledFolds):
    """An anytime-valid Wilcoxon signed-rank test across k folds, ranked by settling order.

    Folds settle as in :class:`SettledSignEProcess` (``|wins_a - wins_b| >= settle *
    sqrt(wins_a + wins_b)``). The fold settling first gets rank k, the next k - 1, and so
    on (folds settling at one look: higher discordance z-score first, then lower fold index);
    the folds that have not settled will take ranks 1..u. The e-value is
    ``P(R | settled ranks and signs) / P0(R)`` with R the exact two-sided Wilcoxon region
    ``min(W+, W-) <= c`` at ``alpha`` and the unsettled folds' signs fair coins: a Doob
    martingale under the null that each fold's A and B are exchangeable (folds independent),
    so by Ville's inequality it ever reaches ``1 / alpha`` with probability at most alpha.

    >>> e = SettledWilcoxonEProcess(n_folds=10, alpha=0.05)
    >>> round(e.update(np.full(10, 30), np.full(10, 10)), 2)   # all settle for A at once
    20.48
    >>> e.reject, e.settled
    (True, 10)
    >>> e = SettledWilcoxonEProcess(n_folds=10)
    >>> _ = e.update([40] * 8 + [5, 5], [10] * 10)              # 8 settle for A
    >>> round(e.update([40] * 8 + [5, 5], [10] * 8 + [20, 20]), 2), e.reject  # 2 late for B
    (20.48, True)
    >>> e.margin   # ranks 10..3 for A, 2 and 1 for B
    49
    """

    def __init__(self, n_folds: int, alpha: float = 0.05, settle: float = 1.5) -> None:
        super().__init__(n_folds, alpha, settle)
        k = self.n_folds
        self.total_rank = k * (k + 1) // 2
        cdf = _signed_rank_cdf(k)
        self._region(np.minimum(1.0, 2 * cdf[: self.total_rank // 2 + 1]))
        self.ranks = np.zeros(k, dtype=np.int64)

    @property
    def margin(self) -> int:
        """Signed-rank sum of the settled folds: ranks favouring A minus those favouring B."""
        return int((self.signs * self.ranks).sum())

    def update(self, wins_a: npt.ArrayLike, wins_b: npt.ArrayLike) -> float:
        """Settle and rank the folds that reach the threshold at this look; the e-value."""
        a = np.asarray(wins_a, dtype=np.float64)
        b = np.asarray(wins_b, dtype=np.float64)
        diff, total = a - b, a + b
        with np.errstate(invalid="ignore", divide="ignore"):
            z = np.abs(diff) / np.sqrt(total)
            now = (self.signs == 0) & (diff != 0) & (np.abs(diff) >= self.settle * np.sqrt(total))
        idx = np.flatnonzero(now)
        if len(idx):
            idx = idx[np.lexsort((idx, -z[idx]))]  # strongest first, then fold order
            top = self.n_folds - self.settled
            self.ranks[idx] = top - np.arange(len(idx))
            self.signs[idx] = np.sign(diff[idx]).astype(np.int8)
            if self.c >= 0:
                w = int(self.ranks[self.signs > 0].sum())
                u = self.n_folds - self.settled
                cdf = _signed_rank_cdf(u)
                top_u = len(cdf) - 1
                n, c = self.total_rank, self.c

                def at_most(x: int) -> float:  # P(W_u <= x)
                    return 0.0 if x < 0 else float(cdf[min(x, top_u)])

                hit = (1.0 - at_most(n - c - w - 1)) + at_most(c - w)
                self.evalue = float(min(1.0, hit) / self.size)
        self.max_evalue = max(self.max_evalue, self.evalue)
        self.reject = self.reject or self.evalue >= 1 / self.alpha
        return self.evalue


def first_rejections(
    tests: Mapping[str, Any],
) -> dict[tuple[str, str, str], tuple[int, float, str | None]]:
    """Per (learner A, learner B, test) of a tests time series (``position``, ``learner_a``,
    ``learner_b``, ``test``, ``reject``, ``pvalue``, ``favours`` columns: a DataFrame or
    columns): the position, p-value and favoured learner of the first check that rejected.
    An alpha-spending decision stays rejected after it (:class:`AlphaSpending`), so a later
    check may show a p-value above its limit beside "rejected": this says where and with
    which p it was decided.

    >>> t = {"position": np.array([100, 200, 300]), "test": np.array(["m", "m", "m"]),
    ...      "learner_a": np.array(["ht"] * 3), "learner_b": np.array(["nb"] * 3),
    ...      "reject": np.array([False, True, True]), "pvalue": np.array([.2, .001, .9]),
    ...      "favours": np.array(["nb", "ht", "nb"])}
    >>> first_rejections(t)
    {('ht', 'nb', 'm'): (200, 0.001, 'ht')}
    """
    out: dict[tuple[str, str, str], tuple[int, float, str | None]] = {}
    order = np.argsort(np.asarray(tests["position"]), kind="stable")
    cols = [np.asarray(tests[c], dtype=object)[order] for c in
            ("learner_a", "learner_b", "test", "reject", "position", "pvalue", "favours")]
    for a, b, name, reject, position, pvalue, favours in zip(*cols):
        key = (str(a), str(b), str(name))
        if bool(reject) and key not in out:
            side = favours if isinstance(favours, str) else None
            out[key] = (int(position), float(pvalue), side)
    return out
