"""One pair comparison for the aggregator and the harness, and the decisions that stay valid
under peeking (``--sequential``), checked against scipy, published boundaries and Monte Carlo.

Published boundaries: Lan-DeMets O'Brien-Fleming-type spending, 5 equally spaced looks,
two-sided alpha 0.05: z = 4.877, 3.357, 2.680, 2.290, 2.031 (gsDesign ``sfLDOF``, rpact
``asOF``), as in tests/statistics/test_sequential.py.
"""

from __future__ import annotations

from itertools import product

import numpy as np
import pytest
from aggregator_feed import feed
from scipy import stats

from distval.aggregator.core import Aggregator
from distval.columns import rows_of
from distval.config import RunConfig
from distval.statistics.comparison import EVALUE_TEST, EVALUE_TESTS, PairComparison, Plan


def mc_bound(rate: float, runs: int) -> float:
    """alpha plus three Monte Carlo standard errors."""
    return rate + 3 * np.sqrt(rate * (1 - rate) / runs)


def test_without_a_rule_the_outcomes_are_the_fixed_tests_of_scipy():
    rng = np.random.default_rng(4)
    a, b = rng.random(10), rng.random(10)
    cmp = PairComparison(tests=("sign", "wilcoxon", "mcnemar"), alpha=0.05, n_folds=10)
    sign, wilcoxon, mcnemar = cmp.look(100, a, b, {"cumulative": (12.0, 30.0)})
    wins = int((a > b).sum())
    assert sign.pvalue == pytest.approx(stats.binomtest(wins, 10).pvalue)
    assert wilcoxon.pvalue == pytest.approx(stats.wilcoxon(a, b).pvalue)
    assert mcnemar.pvalue == pytest.approx(stats.chi2.sf(18**2 / 42, 1))
    for o in (sign, wilcoxon, mcnemar):
        assert o.reject == o.fixed == (o.pvalue <= 0.05)
        assert o.boundary == 0.05 and not o.anytime_valid
    assert mcnemar.margin > 0  # A alone right more often: the data favour A


def run(cfg: RunConfig, y: np.ndarray, pred: np.ndarray, planned: int | None = None) -> list:
    return feed(Aggregator.from_config(cfg, planned_rows=planned), y, pred, 250)


@pytest.fixture
def two_learners():
    """Predictions of two learners on 5,000 rows, 10 folds each, every fold tests every row;
    A is right 72 % of the time, B 70 %."""
    rng = np.random.default_rng(12)
    n, k = 5000, 10
    y = rng.integers(0, 2, n)
    skill = np.array([0.72] * k + [0.70] * k)[:, None]
    pred = np.where(rng.random((2 * k, n)) < skill, y, 1 - y)
    return y, pred, k


def test_spending_limits_of_a_run_are_the_published_boundaries(two_learners):
    y, pred, k = two_learners
    cfg = RunConfig(
        learners=("nb", "ht"),
        n_folds=k,
        forgetting="cumulative",
        test_every=1000,
        sequential="spending",
    )
    snaps = run(cfg, y, pred, planned=5000)
    mc = [next(t for t in rows_of(s.tests) if t["test"] == "mcnemar") for s in snaps]
    z = [stats.norm.isf(t["boundary"] / 2) for t in mc]
    assert z == pytest.approx([4.877, 3.357, 2.680, 2.290, 2.031], abs=2e-3)
    first = set()
    for s in snaps:
        for t in rows_of(s.tests):
            assert t["anytime_valid"]
            if t["reject"] and t["test"] not in first:  # its first rejection: p below the limit
                assert t["pvalue"] <= t["boundary"] <= cfg.alpha
                first.add(t["test"])
    assert "mcnemar" in first  # A's two points of accuracy show on 50,000 (row, fold) pairs
    # the sign and Wilcoxon tests over cumulative fold accuracies share McNemar's boundaries
    sign = [next(t for t in rows_of(s.tests) if t["test"] == "sign") for s in snaps]
    assert [t["boundary"] for t in sign] == pytest.approx([t["boundary"] for t in mc])


def test_the_e_value_of_a_run_against_a_direct_computation(two_learners):
    """Settled signs by hand from the predictions; the e-value by enumerating the exact
    sign test (scipy) over every completion of the unsettled folds."""
    y, pred, k = two_learners
    cfg = RunConfig(learners=("nb", "ht"), n_folds=k, test_every=500, sequential="evalue")
    snaps = run(cfg, y, pred)
    right = pred == y
    signs = np.zeros(k, dtype=int)
    size = sum(
        stats.binom.pmf(w, k, 0.5) for w in range(k + 1) if stats.binomtest(w, k).pvalue <= 0.05
    )
    best = 1.0
    for s in snaps:
        upto = s.position
        wa = (right[:k, :upto] & ~right[k:, :upto]).sum(axis=1)
        wb = (~right[:k, :upto] & right[k:, :upto]).sum(axis=1)
        d = wa - wb
        new = (signs == 0) & (d != 0) & (np.abs(d) >= 1.5 * np.sqrt(wa + wb))
        signs[new] = np.sign(d[new])
        w, u = int((signs > 0).sum()), int((signs == 0).sum())
        rejects = [
            stats.binomtest(w + sum(rest), k).pvalue <= 0.05 for rest in product((0, 1), repeat=u)
        ]
        e = float(np.mean(rejects)) / size
        best = max(best, e)
        (row,) = [t for t in rows_of(s.tests) if t["test"] == EVALUE_TEST]
        assert row["statistic"] == pytest.approx(e)
        assert row["pvalue"] == pytest.approx(min(1.0, 1 / best))
        assert row["reject"] == (best >= 20) and row["anytime_valid"]
        assert row["folds_used"] == int((signs != 0).sum())
        others = [t for t in rows_of(s.tests) if t["test"] not in EVALUE_TESTS]
        assert not any(t["anytime_valid"] for t in others)  # fixed tests stay fixed
        (wil,) = [t for t in rows_of(s.tests) if t["test"] == "wilcoxon_evalue"]
        assert wil["anytime_valid"] and wil["folds_used"] == row["folds_used"]


def test_no_rule_changes_nothing_but_the_two_new_columns(two_learners):
    y, pred, k = two_learners
    cfg = RunConfig(learners=("nb", "ht"), n_folds=k, test_every=1000)
    for t in rows_of(run(cfg, y, pred)[-1].tests):
        assert t["boundary"] == cfg.alpha and t["anytime_valid"] is False
        assert t["reject"] == (t["pvalue"] <= cfg.alpha)


def test_a_pair_comparison_under_spending_keeps_windowed_tests_valid():
    """Windowed McNemar p-values are nearly independent from check to check: spending each
    check's share of alpha as its own level keeps "ever rejected" at most alpha on 1,000
    null runs, where the fixed test at every check does not."""
    rng = np.random.default_rng(37)
    runs, looks = 1000, 20
    n01 = rng.binomial(100, 0.2, size=(runs, looks)).astype(float)
    n10 = rng.binomial(100, 0.2, size=(runs, looks)).astype(float)
    ever_fixed = ever_valid = 0
    for r in range(runs):
        cmp = PairComparison(tests=("mcnemar",), alpha=0.05, n_folds=10, spending=Plan(looks * 100))
        fixed = valid = False
        for k in range(looks):
            (o,) = cmp.look(
                (k + 1) * 100,
                np.full(10, np.nan),
                np.full(10, np.nan),
                {"window": (n01[r, k], n10[r, k])},
            )
            assert o.anytime_valid and o.test == "mcnemar_window"
            fixed, valid = fixed or o.fixed, o.reject
        ever_fixed += fixed
        ever_valid += valid
    assert ever_fixed / runs > 0.3
    assert ever_valid / runs <= mc_bound(0.05, runs)
