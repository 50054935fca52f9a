"""Valid decisions under peeking: alpha-spending boundaries and the sign e-process.

Published values: the Lan-DeMets spending boundaries for 5 equally spaced looks at a total
two-sided alpha of 0.05 are those tabulated by gsDesign (``sfLDOF``, ``sfLDPocock``) and rpact
(``asOF``, ``asP``): O'Brien-Fleming-type 4.877, 3.357, 2.680, 2.290, 2.031; Pocock-type
2.438, 2.427, 2.410, 2.397, 2.386. Monte Carlo checks below are independent of the recursion.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from distval.errors import DistvalError
from distval.sequential import AlphaSpending, SignEProcess, boundaries, spending

LOOKS = [0.2, 0.4, 0.6, 0.8, 1.0]


@pytest.mark.parametrize(
    ("kind", "published"),
    [
        ("obrien-fleming", [4.877, 3.357, 2.680, 2.290, 2.031]),
        ("pocock", [2.438, 2.427, 2.410, 2.397, 2.386]),
    ],
)
def test_boundaries_reproduce_published_values_for_five_looks(kind, published):
    assert np.allclose(boundaries(LOOKS, 0.05, kind), published, atol=1.5e-3)


@pytest.mark.parametrize("kind", ["obrien-fleming", "pocock"])
def test_boundaries_spend_alpha_look_by_look_on_brownian_paths(kind):
    """Simulated canonical paths (independent normal increments) cross at look k with the
    probability the spending function assigns to it."""
    rng = np.random.default_rng(7)
    z = np.cumsum(rng.normal(size=(400_000, 5)) * np.sqrt(0.2), axis=1) / np.sqrt(LOOKS)
    crossed = np.abs(z) >= np.array(boundaries(LOOKS, 0.05, kind))
    first = np.where(crossed.any(axis=1), crossed.argmax(axis=1), -1)
    observed = np.array([(first == k).mean() for k in range(5)])
    expected = np.diff(np.r_[0.0, spending(LOOKS, 0.05, kind)])
    sd = np.sqrt(expected * (1 - expected) / len(first))
    assert np.all(np.abs(observed - expected) <= 4 * sd + 1e-5)
    assert abs((first >= 0).mean() - 0.05) < 0.002


def test_spending_is_zero_at_the_start_and_alpha_at_the_end():
    for kind in ("obrien-fleming", "pocock"):
        a = spending([1e-9, 0.5, 1.0], 0.05, kind)
        assert a[0] < 1e-6 and 0 < a[1] < 0.05 and a[2] == pytest.approx(0.05)
    with pytest.raises(DistvalError, match="unknown spending"):
        spending(0.5, 0.05, "haybittle")
    with pytest.raises(DistvalError, match="increase"):
        boundaries([0.5, 0.4])


def null_fold_paths(rng, runs, folds=10, looks=20, per=200, p=0.1, edge=0.0):
    """Per run, fold and look: cumulative rows where A alone was right (wins_a) and where B
    alone was (wins_b); each row is a discordance for A w.p. p + edge, for B w.p. p - edge."""
    counts = rng.multinomial(per, [p + edge, p - edge, 1 - 2 * p], size=(runs, folds, looks))
    return counts[..., 0].cumsum(axis=2), counts[..., 1].cumsum(axis=2)


def test_the_e_process_is_a_supermartingale_under_the_null():
    """Its running maximum reaches 1/alpha in at most alpha of 2,000 null runs (Ville)."""
    rng = np.random.default_rng(11)
    a, b = null_fold_paths(rng, 2000)
    rejected = 0
    for r in range(len(a)):
        e = SignEProcess(alpha=0.05)
        for look in range(a.shape[2]):
            e.update(a[r, :, look], b[r, :, look])
        rejected += e.reject
    assert rejected / len(a) <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / len(a))


def sign_pvalue(d: np.ndarray) -> float:
    """The exact two-sided sign test of the folds' differences (scipy), ties left out."""
    n = int(np.count_nonzero(d))
    return stats.binomtest(int((d > 0).sum()), n).pvalue if n else 1.0


def test_peeking_at_a_fixed_sample_test_over_rejects_and_spending_does_not():
    """The sign test on the folds' cumulative differences at 20 looks: rejecting at the first
    look below alpha errs far more often than alpha; the spending rule stays near alpha."""
    rng = np.random.default_rng(5)
    a, b = null_fold_paths(rng, 1000)
    looks, per = a.shape[2], 200
    ever = spent = 0
    for r in range(len(a)):
        rule = AlphaSpending(n_rows=looks * per, alpha=0.05)
        hit = False
        for look in range(looks):
            p = sign_pvalue(a[r, :, look] - b[r, :, look])
            hit = hit or p <= 0.05
            rule.decide((look + 1) * per, p)
        ever += hit
        spent += rule.rejected
    assert ever / len(a) > 0.08  # the peeking problem
    assert spent / len(a) <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / len(a))


def test_both_rules_detect_a_real_difference():
    rng = np.random.default_rng(3)
    a, b = null_fold_paths(rng, 50, edge=0.02)
    power_e = power_s = 0
    for r in range(len(a)):
        e, rule = SignEProcess(), AlphaSpending(n_rows=4000)
        for look in range(a.shape[2]):
            e.update(a[r, :, look], b[r, :, look])
            d = a[r, :, look] - b[r, :, look]
            rule.decide((look + 1) * 200, sign_pvalue(d))
        power_e += e.reject
        power_s += rule.rejected
    assert power_e / len(a) > 0.9 and power_s / len(a) > 0.9


def test_an_unknown_horizon_spends_a_convergent_series():
    rule = AlphaSpending(n_rows=None, alpha=0.05)
    limits = [rule.threshold(1000 * k) for k in range(1, 2001)]
    assert sum(limits) < 0.05 and limits[0] == pytest.approx(0.05 * 6 / np.pi**2)
