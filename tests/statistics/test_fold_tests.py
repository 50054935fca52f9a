"""Tests for distval.statistics: worked examples from the papers, scipy cross-checks, edge cases."""

from __future__ import annotations

import dataclasses
import doctest
import json
import math
import pickle
import warnings
from math import comb

import numpy as np
import pytest
from scipy import stats as st

from distval.errors import DistvalError
from distval.statistics.base import FriedmanResult, PairedTestResult
from distval.statistics.friedman import friedman, nemenyi_critical_difference
from distval.statistics.mcnemar import mcnemar
from distval.statistics.power import smallest_pvalue
from distval.statistics.ranks import signed_ranks
from distval.statistics.sign import sign_test, sign_test_critical_value
from distval.statistics.wilcoxon import wilcoxon, wilcoxon_ranked

# bifet2015 §4, Table 1: accuracies of classifiers A and B on 10 folds, the absolute
# differences and their ranks as printed in the paper.
TABLE1_A = [77.98, 72.26, 76.95, 77.94, 72.23, 76.90, 77.93, 72.37, 76.93, 77.97]
TABLE1_B = [77.91, 72.27, 76.97, 76.57, 71.63, 75.48, 75.75, 71.33, 74.54, 77.94]
TABLE1_ABS_DIFF = [0.07, 0.01, 0.02, 1.37, 0.60, 1.42, 2.18, 1.04, 2.39, 0.03]
TABLE1_RANKS = [4, 1, 2, 7, 5, 8, 9, 6, 10, 3]

# Demšar 2006, critical values of the two-tailed Nemenyi test: q_alpha (studentized range
# quantile / sqrt(2), infinite d.f.) for 3..10 learners, at alpha = 0.05 and 0.10.
DEMSAR_Q_005 = [2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164]
DEMSAR_Q_010 = [2.052, 2.291, 2.459, 2.589, 2.693, 2.780, 2.855, 2.920]


@pytest.fixture
def no_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


def _paired_samples(seed: int, count: int, max_n: int, *, ties: bool, min_n: int = 1):
    """Seeded paired samples; with ``ties`` the values are small integers (ties and zeros)."""
    rng = np.random.default_rng(seed)
    for _ in range(count):
        n = int(rng.integers(min_n, max_n + 1))
        if ties:
            yield rng.integers(0, 4, n).astype(float), rng.integers(0, 4, n).astype(float)
        else:
            yield rng.normal(0.8, 0.05, n), rng.normal(0.8, 0.05, n)


# --------------------------------------------------------------------------------------------
# bifet2015 Table 1


def test_table1_printed_differences_and_ranks():
    a, b = np.array(TABLE1_A), np.array(TABLE1_B)
    d = a - b
    np.testing.assert_allclose(np.abs(d), TABLE1_ABS_DIFF, atol=1e-9)
    np.testing.assert_array_equal(st.rankdata(np.abs(d)), TABLE1_RANKS)
    assert np.count_nonzero(d > 0) == 8
    ranks = np.array(TABLE1_RANKS)
    # The paper's text says 53 for the positive rank sum; its own ranks give 52 (55 - 3).
    assert ranks[d > 0].sum() == 52
    assert ranks[d < 0].sum() == 3
    assert ranks.sum() == 10 * 11 // 2


def test_table1_wilcoxon_rejects():
    res = wilcoxon(TABLE1_A, TABLE1_B)
    assert res.test == "wilcoxon"
    assert res.statistic == 3.0
    assert res.n == 10
    # Exact null: sign patterns with negative rank sum <= 3 are {}, {1}, {2}, {3}, {1, 2}:
    # 5 of 2**10 on each side.
    assert res.pvalue == pytest.approx(10 / 2**10)
    assert res.pvalue == pytest.approx(0.0098, abs=5e-5)
    assert res.reject


def test_table1_sign_test_exact_does_not_reject():
    res = sign_test(TABLE1_A, TABLE1_B)
    assert (res.test, res.statistic, res.n) == ("sign", 8.0, 10)
    expected = 2 * (comb(10, 8) + comb(10, 9) + comb(10, 10)) / 2**10
    assert res.pvalue == pytest.approx(expected)
    assert res.pvalue == pytest.approx(0.109, abs=5e-4)
    assert not res.reject


def test_table1_sign_test_critical_rule_rejects():
    assert sign_test_critical_value(10, alpha=0.05) == 8
    res = sign_test(TABLE1_A, TABLE1_B, method="critical")
    assert res.reject
    assert res.statistic == 8.0
    # the p-value reported is still the exact one
    assert res.pvalue == pytest.approx(sign_test(TABLE1_A, TABLE1_B).pvalue)


# --------------------------------------------------------------------------------------------
# Sign test


@pytest.mark.parametrize(
    ("n", "alpha", "expected"),
    [
        # n/2 + 1.96 sqrt(n)/2 = 3.96, 4.69, 5.40, 8.10, 12.54, 14.38 -> nearest integer
        (4, 0.05, 4),
        (5, 0.05, 5),
        (6, 0.05, 5),
        (10, 0.05, 8),
        (17, 0.05, 13),
        (20, 0.05, 14),
        # z = 2.576: 5 + 4.07 = 9.07 -> 9
        (10, 0.01, 9),
    ],
)
def test_critical_value_hand_cases(n, alpha, expected):
    assert sign_test_critical_value(n, alpha=alpha) == expected


@pytest.mark.parametrize("alpha", [0.01, 0.05, 0.1, 0.2])
def test_critical_value_is_nearest_integer_of_normal_threshold(alpha):
    z = st.norm.ppf(1 - alpha / 2)
    for n in range(1, 80):
        threshold = n / 2 + z * math.sqrt(n) / 2
        w = sign_test_critical_value(n, alpha=alpha)
        assert abs(w - threshold) <= 0.5


@pytest.mark.parametrize(("wins", "reject"), [(7, False), (8, True), (2, True), (3, False)])
def test_critical_rule_decision_is_two_sided(wins, reject):
    a = [1.0] * wins + [0.0] * (10 - wins)
    b = [0.0] * wins + [1.0] * (10 - wins)
    assert sign_test(a, b, method="critical").reject is reject


def test_sign_test_drops_ties():
    a = [1, 2, 3, 4, 5, 5, 5]
    b = [0, 0, 0, 5, 5, 5, 5]
    res = sign_test(a, b)
    assert (res.statistic, res.n) == (3.0, 4)
    assert res.pvalue == pytest.approx(st.binomtest(3, 4).pvalue)


@pytest.mark.parametrize("ties", [False, True])
def test_sign_test_matches_binomtest(ties):
    for a, b in _paired_samples(11 + ties, 150, 30, ties=ties):
        wins, losses = int(np.sum(a > b)), int(np.sum(a < b))
        for alpha in (0.05, 0.2):
            res = sign_test(a, b, alpha=alpha)
            assert res.statistic == wins
            assert res.n == wins + losses
            if wins + losses == 0:
                assert (res.pvalue, res.reject) == (1.0, False)
                continue
            p = st.binomtest(wins, wins + losses, 0.5).pvalue
            assert res.pvalue == pytest.approx(p, rel=1e-12)
            assert res.reject == (p <= alpha)
        swapped = sign_test(b, a)
        assert swapped.statistic == losses
        assert swapped.pvalue == pytest.approx(res.pvalue, rel=1e-12)


def test_sign_test_pvalue_is_binomtest_bit_for_bit_up_to_its_exact_limit():
    # The p-values are cached per (wins, n): the cached float must be scipy's itself (not
    # merely close), for every number of wins.
    for n in range(1, 15):
        for wins in range(n + 1):
            a = np.r_[np.ones(wins), np.zeros(n - wins)]
            res = sign_test(a, 1.0 - a)
            assert res.pvalue == st.binomtest(wins, n, 0.5).pvalue, (wins, n)
    assert sign_test(np.r_[np.ones(4), np.zeros(11)], np.r_[np.zeros(4), np.ones(11)]).pvalue \
        == st.binomtest(4, 15, 0.5).pvalue


# --------------------------------------------------------------------------------------------
# Wilcoxon


def _rank_sums(d: np.ndarray) -> tuple[float, float]:
    d = d[d != 0]
    r = st.rankdata(np.abs(d))
    return float(r[d > 0].sum()), float(r[d < 0].sum())


@pytest.mark.parametrize(
    ("ties", "seed", "count", "min_n", "max_n"),
    [
        (False, 21, 80, 1, 60),  # exact distribution up to 50, normal approximation above
        (True, 22, 40, 30, 60),  # ties and zeros, normal approximation (> 13 non-zero)
        (True, 24, 15, 1, 8),  # ties and zeros, scipy's exact permutation distribution
    ],
)
def test_wilcoxon_matches_scipy(ties, seed, count, min_n, max_n):
    for a, b in _paired_samples(seed, count, max_n, ties=ties, min_n=min_n):
        d = a - b
        nonzero = d[d != 0]
        res = wilcoxon(a, b, alpha=0.1)
        assert res.n == nonzero.size
        if nonzero.size == 0:
            assert (res.statistic, res.pvalue, res.reject) == (0.0, 1.0, False)
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = st.wilcoxon(nonzero)
        r_plus, r_minus = _rank_sums(d)
        assert res.statistic == pytest.approx(min(r_plus, r_minus))
        assert res.statistic == pytest.approx(ref.statistic)
        assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-9)
        assert res.reject == (ref.pvalue <= 0.1)
        assert wilcoxon(b, a, alpha=0.1).pvalue == pytest.approx(res.pvalue, rel=1e-9)


def test_wilcoxon_exact_pvalue_is_scipys_bit_for_bit():
    # Without ties (scipy's exact case, up to 50 differences) one scipy call per (n, R+)
    # serves every sign pattern with that rank sum: the cached float must be scipy's own
    # for the pattern at hand. Every rank sum for n <= 14, random differences up to 50.
    def check(d: np.ndarray) -> None:
        ref = st.wilcoxon(d, method="auto")
        res = wilcoxon(d, np.zeros_like(d))
        assert (res.statistic, res.pvalue) == (float(ref.statistic), float(ref.pvalue)), d

    for n in range(1, 15):
        for r_plus in range(n * (n + 1) // 2 + 1):
            signs, left = -np.ones(n), r_plus
            for rank in range(n, 0, -1):
                if rank <= left:
                    signs[rank - 1], left = 1.0, left - rank
            check(signs * np.arange(1.0, n + 1))
    rng = np.random.default_rng(31)
    for _ in range(300):
        n = int(rng.integers(1, 51))
        check(rng.permutation(n) + 0.5 * rng.random(n) * rng.choice([-1.0, 1.0], n) + 1.0)
        check(rng.normal(size=n))


def test_wilcoxon_without_zeros_matches_scipy_on_raw_pairs():
    for a, b in _paired_samples(23, 40, 25, ties=False):
        ref = st.wilcoxon(a, b)
        res = wilcoxon(a, b)
        assert res.statistic == pytest.approx(ref.statistic)
        assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-9)


def test_wilcoxon_zeros_dropped_like_scipy_wilcox_method():
    # scipy drops the zeros too (zero_method="wilcox") and, with zeros present, uses an
    # exact permutation distribution for small samples: same p-value as the exact test.
    a = np.array([3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0])
    b = np.array([3.0, 0.5, 1.0, 1.0, 2.0, 1.0, 2.5])
    res = wilcoxon(a, b)
    ref = st.wilcoxon(a, b, zero_method="wilcox")
    assert res.n == 5
    assert res.statistic == pytest.approx(ref.statistic)
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-9)


def test_wilcoxon_depends_only_on_signed_ranks():
    a = np.array(TABLE1_A)
    b = np.array(TABLE1_B)
    d = a - b
    # monotone transformation of |d| keeping signs: same ranks, same test
    transformed = np.sign(d) * np.abs(d) ** 3 * 100
    res = wilcoxon(transformed, np.zeros(10))
    assert (res.statistic, res.pvalue) == (wilcoxon(a, b).statistic, wilcoxon(a, b).pvalue)


# --------------------------------------------------------------------------------------------
# McNemar


def _chi2_1df_sf(x: float) -> float:
    # chi-square with 1 d.f. is a squared standard normal
    return math.erfc(math.sqrt(x / 2))


@pytest.mark.parametrize(
    ("n01", "n10", "correction", "statistic"),
    [
        (10, 0, False, 10.0),
        (0, 10, False, 10.0),
        (10, 0, True, 8.1),  # (10 - 1)^2 / 10
        (5, 5, False, 0.0),
        (20, 6, False, 196 / 26),
        (18, 7, True, 100 / 25),
        (3.0, 2.5, True, 0.0),  # |difference| < 1: correction floored at 0
        (0.5, 0.0, False, 0.5),
    ],
)
def test_mcnemar_hand_cases(n01, n10, correction, statistic):
    res = mcnemar(n01, n10, correction=correction)
    assert res.test == "mcnemar"
    assert res.statistic == pytest.approx(statistic)
    assert res.pvalue == pytest.approx(_chi2_1df_sf(statistic), rel=1e-9)


def test_mcnemar_threshold_at_001():
    # gama2013 §4.1: at the 0.99 level the chi-square threshold is 6.635
    assert mcnemar(20, 6, alpha=0.01).reject  # 7.54
    assert not mcnemar(18, 7, alpha=0.01).reject  # 4.84
    assert mcnemar(18, 7, alpha=0.05).reject  # above 3.841


def test_mcnemar_matches_chi2_and_is_antisymmetric():
    rng = np.random.default_rng(31)
    for _ in range(200):
        n01, n10 = rng.uniform(0, 50, 2) * rng.integers(0, 2, 2)
        correction = bool(rng.integers(0, 2))
        res = mcnemar(n01, n10, correction=correction)
        total = n01 + n10
        if total == 0:
            assert (res.statistic, res.pvalue, res.n) == (0.0, 1.0, 0)
            continue
        diff = abs(n01 - n10)
        if correction:
            diff = max(diff - 1, 0)
        expected = diff**2 / total
        assert res.statistic == pytest.approx(expected)
        assert res.pvalue == pytest.approx(st.chi2.sf(expected, 1), rel=1e-9)
        assert res.reject == (st.chi2.sf(expected, 1) <= 0.05)
        assert res.n == round(total)
        swapped = mcnemar(n10, n01, correction=correction)
        assert swapped.statistic == res.statistic
        assert swapped.pvalue == res.pvalue


# --------------------------------------------------------------------------------------------
# Friedman and Nemenyi


@pytest.mark.parametrize(("alpha", "table"), [(0.05, DEMSAR_Q_005), (0.10, DEMSAR_Q_010)])
def test_nemenyi_q_matches_demsar_table(alpha, table):
    for n_learners, q in zip(range(3, 11), table, strict=True):
        for n_blocks in (1, 10, 50):
            cd = nemenyi_critical_difference(n_learners, n_blocks, alpha=alpha)
            scale = math.sqrt(n_learners * (n_learners + 1) / (6 * n_blocks))
            assert cd / scale == pytest.approx(q, abs=1e-3)


@pytest.mark.parametrize("alpha", [0.01, 0.05, 0.1])
def test_nemenyi_matches_studentized_range(alpha):
    for n_learners, n_blocks in [(2, 3), (3, 10), (5, 7), (12, 40)]:
        q = st.studentized_range.ppf(1 - alpha, n_learners, np.inf) / math.sqrt(2)
        expected = q * math.sqrt(n_learners * (n_learners + 1) / (6 * n_blocks))
        got = nemenyi_critical_difference(n_learners, n_blocks, alpha=alpha)
        assert got == pytest.approx(expected, rel=1e-12)


def test_nemenyi_two_learners_is_normal_quantile():
    # the range of two standard normals is |X - Y| ~ sqrt(2) |Z|
    cd = nemenyi_critical_difference(2, 6, alpha=0.05)
    assert cd == pytest.approx(st.norm.ppf(0.975) * math.sqrt(2 * 3 / 36), rel=1e-4)


def test_friedman_perfectly_consistent_ranking():
    # 4 blocks, learner order always 0 > 1 > 2: chi2_F = 12N/(k(k+1)) (sum R_j^2 - k(k+1)^2/4)
    #                                            = 4 * (1 + 4 + 9 - 12) = 8, p = exp(-8/2)
    values = [[0.9, 0.8, 0.7], [0.8, 0.7, 0.6], [0.9, 0.7, 0.5], [0.7, 0.6, 0.5]]
    res = friedman(values)
    assert res.average_ranks == (1.0, 2.0, 3.0)
    assert res.statistic == pytest.approx(8.0)
    assert res.pvalue == pytest.approx(math.exp(-4.0))
    assert res.reject
    assert res.critical_difference == pytest.approx(2.343 * math.sqrt(12 / 24), abs=1e-3)
    assert res.different == ((0, 2),)


@pytest.mark.parametrize("ties", [False, True])
def test_friedman_matches_scipy(ties):
    rng = np.random.default_rng(41 + ties)
    for _ in range(60):
        n_blocks, n_learners = int(rng.integers(2, 15)), int(rng.integers(3, 8))
        if ties:
            values = rng.integers(0, 3, (n_blocks, n_learners)).astype(float)
        else:
            values = rng.random((n_blocks, n_learners)) + np.linspace(0, 0.5, n_learners)
        res = friedman(values, alpha=0.1)
        ranks = st.rankdata(-values, axis=1).mean(axis=0)
        np.testing.assert_allclose(res.average_ranks, ranks)
        assert res.average_ranks[0] >= min(res.average_ranks)  # rank 1 is the best
        cd = nemenyi_critical_difference(n_learners, n_blocks, alpha=0.1)
        assert res.critical_difference == cd
        expected_pairs = tuple(
            (i, j)
            for i in range(n_learners)
            for j in range(i + 1, n_learners)
            if abs(ranks[i] - ranks[j]) >= cd
        )
        assert res.different == expected_pairs
        if (values == values[:, :1]).all():
            assert (res.statistic, res.pvalue) == (0.0, 1.0)
            continue
        ref = st.friedmanchisquare(*values.T)
        assert res.statistic == pytest.approx(ref.statistic)
        assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-9)
        assert res.reject == (ref.pvalue <= 0.1)


def test_friedman_best_learner_gets_rank_one():
    values = np.array([[0.1, 0.5, 0.9], [0.2, 0.6, 0.8], [0.3, 0.4, 0.7]])
    assert friedman(values).average_ranks == (3.0, 2.0, 1.0)


def test_reject_when_pvalue_equals_alpha():
    # the decision is p <= alpha
    p_sign = st.binomtest(8, 10).pvalue
    assert sign_test(TABLE1_A, TABLE1_B, alpha=p_sign).reject
    assert mcnemar(10, 0, alpha=st.chi2.sf(10.0, 1)).reject
    assert wilcoxon(TABLE1_A, TABLE1_B, alpha=10 / 2**10).reject


# --------------------------------------------------------------------------------------------
# Degenerate inputs


@pytest.mark.usefixtures("no_warnings")
@pytest.mark.parametrize(
    "call",
    [
        lambda: sign_test([0.5, 0.6, 0.7], [0.5, 0.6, 0.7]),
        lambda: sign_test([0.5], [0.5], method="critical"),
        lambda: wilcoxon([0.5, 0.6, 0.7], [0.5, 0.6, 0.7]),
        lambda: wilcoxon([0.5], [0.5]),
        lambda: wilcoxon([0.9, 0.5], [0.1, 0.5]),  # a single non-zero difference
        lambda: mcnemar(0, 0),
        lambda: mcnemar(0.0, 0.0, correction=True),
        lambda: friedman(np.full((5, 4), 0.8)),
        lambda: friedman([[0.1, 0.1, 0.1], [0.7, 0.7, 0.7]]),  # each block fully tied
    ],
)
def test_degenerate_inputs_do_not_reject(call):
    res = call()
    assert res.pvalue == 1.0
    assert res.reject is False
    assert res.statistic == 0.0


@pytest.mark.usefixtures("no_warnings")
def test_small_samples_raise_no_warning():
    # tiny samples, ties and zeros go through scipy without any warning escaping
    wilcoxon([1.0, 2.0], [0.0, 3.0])
    wilcoxon([1.0, 1.0, 2.0, 0.0], [0.0, 0.0, 1.0, 0.0])
    sign_test([1.0], [0.0], method="critical")
    friedman([[1.0, 1.0, 2.0], [1.0, 1.0, 1.0]])
    nemenyi_critical_difference(10, 1, alpha=0.001)


# --------------------------------------------------------------------------------------------
# Bad inputs


@pytest.mark.parametrize("alpha", [0, 1, 1.5, -0.1, float("nan"), "0.05x", None, True])
@pytest.mark.parametrize(
    "func",
    [
        lambda alpha: sign_test([1, 2], [2, 1], alpha=alpha),
        lambda alpha: wilcoxon([1, 2], [2, 1], alpha=alpha),
        lambda alpha: mcnemar(1, 2, alpha=alpha),
        lambda alpha: friedman([[1, 2, 3], [3, 2, 1]], alpha=alpha),
        lambda alpha: nemenyi_critical_difference(3, 5, alpha=alpha),
        lambda alpha: sign_test_critical_value(10, alpha=alpha),
    ],
)
def test_bad_alpha(func, alpha):
    with pytest.raises(DistvalError, match="`alpha`"):
        func(alpha)


@pytest.mark.parametrize("func", [sign_test, wilcoxon])
@pytest.mark.parametrize(
    ("a", "b", "name"),
    [
        ([1.0, 2.0], [1.0], "`a` and `b`"),
        ([], [], "`a`"),
        ([1.0, float("nan")], [1.0, 2.0], "`a`"),
        ([1.0, 2.0], [1.0, float("inf")], "`b`"),
        ([[1.0, 2.0]], [[1.0, 2.0]], "`a`"),
        (1.0, 1.0, "`a`"),
        (["x", "y"], [1.0, 2.0], "`a`"),
    ],
)
def test_bad_pairs(func, a, b, name):
    with pytest.raises(DistvalError, match=name):
        func(a, b)


def test_bad_method_lists_choices():
    with pytest.raises(DistvalError, match=r"`method`.*'exact', 'critical'.*'normal'"):
        sign_test([1, 2], [2, 1], method="normal")


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"n01": -1, "n10": 2}, "`n01`"),
        ({"n01": 1, "n10": -0.5}, "`n10`"),
        ({"n01": float("nan"), "n10": 2}, "`n01`"),
        ({"n01": 1, "n10": float("inf")}, "`n10`"),
        ({"n01": "a", "n10": 2}, "`n01`"),
        ({"n01": 1, "n10": 2, "correction": "yes"}, "`correction`"),
    ],
)
def test_bad_mcnemar(kwargs, name):
    with pytest.raises(DistvalError, match=name):
        mcnemar(**kwargs)


@pytest.mark.parametrize(
    ("values", "pattern"),
    [
        ([[1.0, 2.0], [2.0, 1.0]], "at least 3 learners"),
        ([[1.0, 2.0, 3.0]], "at least 2 blocks"),
        ([1.0, 2.0, 3.0], "two-dimensional"),
        ([[1.0, 2.0, 3.0], [1.0, float("nan"), 3.0]], "finite"),
        ([["a", "b", "c"], ["d", "e", "f"]], "`values`"),
    ],
)
def test_bad_friedman(values, pattern):
    with pytest.raises(DistvalError, match=pattern):
        friedman(values)


@pytest.mark.parametrize(
    ("args", "name"),
    [((1, 5), "`n_learners`"), ((2.5, 5), "`n_learners`"), ((3, 0), "`n_blocks`")],
)
def test_bad_nemenyi(args, name):
    with pytest.raises(DistvalError, match=name):
        nemenyi_critical_difference(*args)


@pytest.mark.parametrize("n", [0, -3, 2.0, True])
def test_bad_critical_value_n(n):
    with pytest.raises(DistvalError, match="`n`"):
        sign_test_critical_value(n)


# --------------------------------------------------------------------------------------------
# Results


def test_results_pickle_round_trip_and_serialise():
    results = [
        sign_test(TABLE1_A, TABLE1_B, method="critical"),
        wilcoxon(TABLE1_A, TABLE1_B),
        mcnemar(3.5, 1.25),
        friedman([[0.9, 0.8, 0.7], [0.8, 0.7, 0.6], [0.9, 0.7, 0.5]]),
    ]
    for res in results:
        clone = pickle.loads(pickle.dumps(res))
        assert clone == res
        assert type(clone) is type(res)
        assert json.loads(json.dumps(res.to_dict())) == res.to_dict()
    assert isinstance(results[0], PairedTestResult)
    assert isinstance(results[-1], FriedmanResult)
    assert results[-1].to_dict()["average_ranks"] == [1.0, 2.0, 3.0]


def test_results_are_frozen():
    res = mcnemar(4, 1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.reject = False  # type: ignore[misc]


def test_result_fields_are_plain_python():
    for res in (sign_test([1, 2, 3], [0, 1, 2]), wilcoxon([1, 2, 3], [0, 1, 5]), mcnemar(3, 1)):
        assert type(res.statistic) is float
        assert type(res.pvalue) is float
        assert type(res.reject) is bool
        assert type(res.n) is int


def test_docstring_examples_run():
    import importlib

    for name in ("base", "sign", "ranks", "wilcoxon", "mcnemar", "friedman", "power"):
        module = importlib.import_module(f"distval.statistics.{name}")
        failures, attempted = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
        assert failures == 0, name
        assert attempted > 0 or name in ("base", "ranks", "mcnemar"), name


def test_wilcoxon_tied_ranks_match_scipy_permutation_for_9_to_13_folds():
    """The sign-flip enumeration used for tied ranks gives scipy's own p-values."""
    rng = np.random.default_rng(99)
    for n in range(9, 14):
        a = rng.integers(0, 5, n) / 100
        b = rng.integers(0, 5, n) / 100
        d = a - b
        if np.count_nonzero(d) == 0:
            continue
        ref = st.wilcoxon(d[d != 0])
        got = wilcoxon(a, b)
        assert got.statistic == pytest.approx(ref.statistic)
        assert got.pvalue == pytest.approx(ref.pvalue, rel=1e-12)


@pytest.mark.parametrize("n", range(1, 26))
def test_smallest_pvalue_is_scipy_exact_floor(n):
    """Every fold won by one learner: scipy's exact two-sided p-values of the sign test
    (binomtest) and of the Wilcoxon test (all signed ranks positive)."""
    sign = st.binomtest(n, n, 0.5).pvalue
    assert smallest_pvalue("sign", n) == pytest.approx(sign, rel=1e-12)
    if n <= 20:  # scipy's exact Wilcoxon distribution is slow beyond
        wil = st.wilcoxon(np.arange(1.0, n + 1.0), method="exact").pvalue
        assert smallest_pvalue("wilcoxon", n) == pytest.approx(wil, rel=1e-12)
    with pytest.raises(DistvalError, match="sign"):
        smallest_pvalue("mcnemar", n)


def test_signed_ranks_are_scipys_ranks_of_the_nonzero_differences():
    rng = np.random.default_rng(7)
    for _ in range(50):
        d = rng.integers(-3, 4, 12) / 4.0  # ties and zeros
        nz = d[d != 0]
        expected = np.sort(np.sign(nz) * st.rankdata(np.abs(nz)))
        assert signed_ranks(d).tolist() == expected.tolist()
        if len(nz):  # the sum of the signed ranks is R+ - R-, what the comparison reports
            r_plus = st.rankdata(np.abs(nz))[nz > 0].sum()
            r_minus = st.rankdata(np.abs(nz))[nz < 0].sum()
            assert signed_ranks(d).sum() == r_plus - r_minus


def test_wilcoxon_ranked_is_wilcoxon_on_the_differences():
    rng = np.random.default_rng(8)
    for _ in range(30):
        a, b = rng.integers(0, 5, 10) / 10.0, rng.integers(0, 5, 10) / 10.0
        nz = (a - b)[a != b]
        got = wilcoxon_ranked(signed_ranks(a - b), alpha=0.05)
        if len(nz):
            res = st.wilcoxon(nz, alternative="two-sided", method="auto")
            assert got.statistic == pytest.approx(res.statistic)
            assert got.pvalue == pytest.approx(res.pvalue)
        assert got == wilcoxon(a, b, alpha=0.05)
