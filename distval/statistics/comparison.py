"""One comparison of a learner pair at a look: its tests and the rule that decides them.

The aggregator of a run (:mod:`distval.aggregator`) and the type I / type II harness
(:mod:`distval.experiments.type_errors`) both compare two learners the same way, through a
:class:`PairComparison` per pair:

- the sign and Wilcoxon tests on the folds' values of A and B (bifet2015 §4,
  Table 1), McNemar's test on the discordant (row, fold) pairs (gama2013 §4);
- the decision rule of the live decisions (``--sequential``):

  - ``none``: each look's fixed-sample test at alpha. Watching it and stopping at the first
    rejection errs far more often than alpha (:mod:`distval.statistics.sequential`);
  - ``spending``: each test's p-value against Lan-DeMets alpha-spending boundaries
    (Lan & DeMets 1983, O'Brien-Fleming-type by default) over the planned rows, or the
    series ``alpha * 6 / (pi^2 k^2)`` when no horizon is known. Statistics over all rows so
    far get the boundaries of the canonical joint distribution (for the sign and Wilcoxon
    tests across folds an approximation, not a proof: :mod:`distval.statistics.sequential`);
    windowed or faded ones each look's share of alpha as a level of its own (a union bound);
  - ``evalue``: two extra tests per pair, ``sign_evalue`` and ``wilcoxon_evalue``, the
    settled-sign and settled-Wilcoxon e-processes of
    :class:`~distval.statistics.sequential.SettledSignEProcess` and
    :class:`~distval.statistics.sequential.SettledWilcoxonEProcess` over each fold's discordant
    counts; valid at every look with no horizon. The other tests keep their fixed decisions.

Every :class:`Outcome` says whether its ``reject`` is valid under peeking
(``anytime_valid``) and the p-value limit it used (``boundary``).

>>> cmp = PairComparison(tests=("sign", "mcnemar"), alpha=0.05, n_folds=4, spending=Plan(400))
>>> out = cmp.look(100, np.array([.9, .8, .9, .9]), np.array([.7, .6, .7, .8]),
...                {"cumulative": (10.0, 30.0)})
>>> [(o.test, o.fixed, o.reject, o.anytime_valid) for o in out]
[('sign', False, False, True), ('mcnemar', True, False, True)]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from distval.statistics.base import PairedTestResult
from distval.statistics.mcnemar import mcnemar
from distval.statistics.ranks import signed_ranks
from distval.statistics.sequential import (
    AlphaSpending,
    SettledSignEProcess,
    SettledWilcoxonEProcess,
)
from distval.statistics.sign import sign_test
from distval.statistics.wilcoxon import wilcoxon_ranked

__all__ = ["EVALUE_TEST", "EVALUE_TESTS", "WILCOXON_EVALUE_TEST", "Decision", "Outcome",
           "PairComparison", "Plan"]

#: The name of the settled-sign e-process's test rows.
EVALUE_TEST = "sign_evalue"
#: The name of the settled-Wilcoxon e-process's test rows.
WILCOXON_EVALUE_TEST = "wilcoxon_evalue"
#: Both e-process tests.
EVALUE_TESTS = (EVALUE_TEST, WILCOXON_EVALUE_TEST)
_SUFFIX = {"cumulative": "", "window": "_window", "fading": "_fading"}

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Plan:
    """An alpha-spending plan: planned rows (None: unknown) and the spending function."""

    n_rows: int | None
    kind: str = "obrien-fleming"


@dataclass(frozen=True)
class Outcome:
    """One test of a pair at one look.

    ``fixed`` is the fixed-sample decision at this look (p-value at most alpha, or the
    paper's critical-value rule); ``reject`` the decision of the rule in force, which used
    the p-value limit ``boundary`` and is valid under peeking when ``anytime_valid``.
    ``margin`` is positive when the data favour A; ``n`` counts what the test used (folds,
    discordant pairs, settled folds); ``forgetting`` says over which rows.
    """

    test: str
    forgetting: str
    statistic: float
    pvalue: float
    fixed: bool
    reject: bool
    boundary: float
    anytime_valid: bool
    margin: float
    n: int


class Decision:
    """The decision rule of one test over its looks: fixed alpha, or alpha spending.

    >>> d = Decision(0.05, Plan(1000))
    >>> reject, limit, valid = d(200, 0.01, True)
    >>> reject, f"{limit:.2g}", valid, d(1000, 0.01, True)[0]
    (False, '1.1e-06', True, True)
    """

    def __init__(self, alpha: float, plan: Plan | None = None, *, canonical: bool = True) -> None:
        self.alpha = alpha
        self.spending = (
            None
            if plan is None
            else AlphaSpending(plan.n_rows, alpha, plan.kind, canonical=canonical)
        )

    def __call__(self, position: int, pvalue: float, fixed: bool) -> tuple[bool, float, bool]:
        """(reject, p-value limit, valid under peeking) at this look."""
        if self.spending is None:
            return fixed, self.alpha, False
        reject = self.spending.decide(position, pvalue)
        return reject, self.spending.limit, True


class PairComparison:
    """The tests of one learner pair, look after look, with the run's decision rule.

    ``tests`` among sign, wilcoxon, mcnemar; ``fold_forgetting`` says over which rows the
    fold values were computed (spending treats anything but ``cumulative`` as windowed);
    ``spending`` a :class:`Plan` for alpha spending, ``evalue`` adds the e-process test.
    """

    def __init__(
        self,
        *,
        tests: Sequence[str],
        alpha: float,
        n_folds: int,
        mcnemar_alpha: float | None = None,
        sign_method: str = "exact",
        fold_forgetting: str = "cumulative",
        spending: Plan | None = None,
        evalue: bool = False,
    ) -> None:
        self.tests = tuple(tests)
        self.alpha = alpha
        self.mcnemar_alpha = mcnemar_alpha or alpha
        self.sign_method = sign_method
        self.fold_forgetting = fold_forgetting
        self.plan = spending
        self._rules: dict[str, Decision] = {}
        self.eprocess = SettledSignEProcess(n_folds, alpha) if evalue else None
        self.wilcoxon_eprocess = SettledWilcoxonEProcess(n_folds, alpha) if evalue else None

    def _rule(self, name: str, alpha: float, cumulative: bool) -> Decision:
        rule = self._rules.get(name)
        if rule is None:
            rule = self._rules[name] = Decision(alpha, self.plan, canonical=cumulative)
        return rule

    def _outcome(
        self, position: int, test: str, forgetting: str, r: PairedTestResult,
        margin: float, alpha: float,
    ) -> Outcome:
        rule = self._rule(test, alpha, forgetting == "cumulative")
        reject, boundary, valid = rule(position, float(r.pvalue), bool(r.reject))
        return Outcome(test, forgetting, float(r.statistic), float(r.pvalue), bool(r.reject),
                       reject, boundary, valid, margin, int(r.n))

    def look(
        self,
        position: int,
        values_a: FloatArray,
        values_b: FloatArray,
        counts: Mapping[str, tuple[float, float]],
        fold_wins: tuple[FloatArray, FloatArray] | None = None,
    ) -> list[Outcome]:
        """The outcomes at this look, in order: sign, Wilcoxon, McNemar per forgetting, then
        the e-processes (with ``evalue``).

        ``values_a``/``values_b`` are the folds' values (NaN: a fold without any); ``counts``
        maps a forgetting (cumulative, window, fading) to McNemar's (n01, n10), n01 counting
        the pairs where A was wrong and B right; ``fold_wins`` per fold the cumulative pairs
        where A alone was right and where B alone was (the e-process needs them).
        """
        out: list[Outcome] = []
        ok = np.isfinite(values_a) & np.isfinite(values_b)
        va, vb = values_a[ok], values_b[ok]
        kind = self.fold_forgetting
        if "sign" in self.tests and ok.any():
            r = sign_test(va, vb, alpha=self.alpha, method=self.sign_method)
            margin = 2.0 * r.statistic - r.n  # A's wins less its losses
            out.append(self._outcome(position, "sign", kind, r, margin, self.alpha))
        if "wilcoxon" in self.tests and ok.any():
            ranks = signed_ranks(va - vb)
            r = wilcoxon_ranked(ranks, alpha=self.alpha)
            margin = float(ranks.sum())  # R+ - R- (exact: a sum of half-integers)
            out.append(self._outcome(position, "wilcoxon", kind, r, margin, self.alpha))
        if "mcnemar" in self.tests:
            for forgetting, (n01, n10) in counts.items():
                r = mcnemar(n01, n10, alpha=self.mcnemar_alpha)
                name = "mcnemar" + _SUFFIX[forgetting]
                out.append(self._outcome(position, name, forgetting, r, float(n10 - n01),
                                         self.mcnemar_alpha))
        if self.eprocess is not None and fold_wins is not None:
            e = self.eprocess
            value = e.update(*fold_wins)
            out.append(Outcome(EVALUE_TEST, "cumulative", value, e.pvalue, e.reject, e.reject,
                               self.alpha, True, float(e.margin), e.settled))
        if self.wilcoxon_eprocess is not None and fold_wins is not None:
            w = self.wilcoxon_eprocess
            value = w.update(*fold_wins)
            out.append(Outcome(WILCOXON_EVALUE_TEST, "cumulative", value, w.pvalue, w.reject,
                               w.reject, self.alpha, True, float(w.margin), w.settled))
        return out
