"""``evaluate`` warns when its sign and Wilcoxon tests can never reject (too few folds)."""

from __future__ import annotations

import warnings

import pytest
from scipy import stats

import distval
from distval.errors import LowPowerWarning


def test_too_few_folds_issue_a_low_power_warning_with_scipys_smallest_pvalue():
    # Five folds, all in favour of one learner: the most extreme outcome, whose two-sided
    # p-value is the smallest either test can give (scipy, exact).
    sign = stats.binomtest(5, 5, 0.5).pvalue
    wilcoxon = stats.wilcoxon([1, 2, 3, 4, 5], method="exact").pvalue
    assert sign == wilcoxon == pytest.approx(0.0625)
    with pytest.warns(LowPowerWarning) as caught:
        distval.evaluate(stream="sea", n_rows=300, learners=("nb", "majority"), n_folds=5,
                         test_every=300)
    (message,) = [str(w.message) for w in caught if w.category is LowPowerWarning]
    assert f"smallest p-value is {min(sign, wilcoxon):.4g}" in message
    assert "6 folds or more can" in message  # 2 * 0.5**6 = 0.03125 <= 0.05


def test_enough_folds_issue_no_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error", LowPowerWarning)
        distval.evaluate(stream="sea", n_rows=300, learners=("nb", "majority"), n_folds=6,
                         test_every=300)
