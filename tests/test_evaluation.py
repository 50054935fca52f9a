"""``evaluate`` warns when its sign and Wilcoxon tests can never reject (too few folds);
``resume`` reports the whole run's time, before the interrupt and after."""

from __future__ import annotations

import json
import time
import warnings

import pytest
from scipy import stats

import distval
from distval.errors import LowPowerWarning
from distval.evaluation import resume


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


def test_a_resumed_runs_time_is_the_whole_runs(tmp_path):
    """Stopped with Ctrl-C at row 2,000 after 3 s spent past its last checkpoint, then
    resumed: the run's time is at least the seconds it had run when it stopped (its summary
    then) plus the span of the resumed part's rows, measured here, and not more than both
    calls' wall time. (Before: the last checkpoint's seconds plus the resumed part, 3 s
    short.)"""
    run = {"stream": "sea", "n_rows": 4000, "learners": ("nb", "majority"), "n_folds": 2,
           "test_every": 500, "batch_size": 500, "output_dir": tmp_path}

    def stop_late(n: int) -> None:
        if n >= 2000:
            time.sleep(3.0)  # after the last checkpoint, before the interrupt
            raise KeyboardInterrupt

    start = time.perf_counter()
    with pytest.raises(KeyboardInterrupt):
        distval.evaluate(**run, checkpoint_seconds=0, progress=stop_late)
    stopped = json.loads((tmp_path / "summary.json").read_text())
    assert stopped["interrupted"] is True and stopped["elapsed_seconds"] >= 3.0
    seen: list[float] = []
    res = resume(tmp_path, progress=lambda n: seen.append(time.perf_counter()))
    end = time.perf_counter()
    assert res.n_rows == 4000 and not res.interrupted and len(seen) >= 2
    assert res.elapsed >= stopped["elapsed_seconds"] + (seen[-1] - seen[0])
    assert res.elapsed <= end - start
    assert json.loads((tmp_path / "summary.json").read_text())["elapsed_seconds"] == \
        pytest.approx(res.elapsed, abs=1e-3)
