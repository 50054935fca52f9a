"""Holm against statsmodels; e-BH on worked examples (Wang & Ramdas 2022, Definition of e-BH)."""

import numpy as np
import pytest

from distval.statistics.multiplicity import e_bh, holm, holm_adjusted


@pytest.mark.parametrize("seed", range(5))
def test_holm_matches_statsmodels(seed):
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    rng = np.random.default_rng(seed)
    p = np.r_[rng.random(4) * 0.02, rng.random(6)]
    reject, adjusted, _, _ = multitest.multipletests(p, alpha=0.05, method="holm")
    assert np.array_equal(holm(p, 0.05), reject)
    assert np.allclose(holm_adjusted(p), adjusted)


def test_holm_worked_example_and_untested_pairs():
    # sorted 0.01, 0.02, 0.04 against 0.05/3, 0.05/2, 0.05/1: the first two pass, the third
    # too (0.04 <= 0.05); with 0.03 instead of 0.02, 0.03 > 0.025 stops the procedure.
    assert holm([0.04, 0.01, 0.02]).tolist() == [True, True, True]
    assert holm([0.04, 0.01, 0.03]).tolist() == [False, True, False]
    assert holm([np.nan, 0.01, 0.03]).tolist() == [False, True, True]  # m = 2: 0.025, 0.05


def test_e_bh_worked_examples():
    # m = 4, alpha = 0.1: thresholds m / (alpha k) = 40, 20, 13.3, 10 for k = 1..4.
    # Sorted e-values 50, 25, 12, 11: k = 2 passes (25 >= 20), k = 3 fails (12 < 13.3),
    # k = 4 passes (11 >= 10), so k* = 4: all four are rejected.
    assert e_bh([12.0, 50.0, 11.0, 25.0], alpha=0.1).tolist() == [True, True, True, True]
    # 50, 25, 12, 9: k = 4 fails (9 < 10), k = 3 fails, k = 2 passes: reject 50 and 25.
    assert e_bh([12.0, 50.0, 9.0, 25.0], alpha=0.1).tolist() == [False, True, False, True]
    assert e_bh([39.0, 1.0, 1.0, 1.0], alpha=0.1).tolist() == [False] * 4
    assert e_bh([np.nan, 25.0], alpha=0.1).tolist() == [False, True]  # m = 1
