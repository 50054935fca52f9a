"""Regression measures against scikit-learn and river on each slot's rows, per forgetting."""

from __future__ import annotations

import numpy as np
import pytest
from river import metrics
from river._river_rust.drift import AdaptiveWindowing
from sklearn.metrics import mean_absolute_error, r2_score, root_mean_squared_error

from distval.metrics.sums import SumWindows
from distval.tasks.regression import RegressionTracker, regression_measures

N, SLOTS = 3000, 3


def _data(seed: int = 0):
    rng = np.random.default_rng(seed)
    y = 40 + np.cumsum(rng.normal(0, 0.3, N))  # a drifting level far from 0
    pred = y[None, :] + rng.normal(0, 1, (SLOTS, N)) * np.array([[0.5], [1.0], [2.0]])
    pred[:, 1500:] += np.array([[0.0], [3.0], [0.0]])  # slot 1 gets worse half-way
    tested = rng.random((SLOTS, N)) < 0.7
    pred = np.where(tested, pred, np.nan)
    before = np.r_[0.0, np.cumsum(y)[:-1]]
    mean_pred = np.divide(before, np.arange(N), out=np.zeros(N), where=np.arange(N) > 0)
    prev = np.r_[0.0, y[:-1]]
    return y, pred, tested, mean_pred, prev


def _run(kind: str, batch: int = 700, **kw):
    y, pred, tested, mean_pred, prev = _data()
    t = RegressionTracker(kind, SLOTS, **kw)
    for lo in range(0, N, batch):
        hi = min(N, lo + batch)
        t.update(pred[:, lo:hi], y[lo:hi], mean_pred[lo:hi], prev[lo:hi], shift=float(y[0]))
    return t, (y, pred, tested, mean_pred, prev)


def _expected(y, p, m, prev, weight=None):
    kw = {"sample_weight": weight}
    rmse = root_mean_squared_error(y, p, **kw)
    return {
        "mae": mean_absolute_error(y, p, **kw),
        "rmse": rmse,
        "r2": r2_score(y, p, **kw),
        "rmse_mean": root_mean_squared_error(y, m, **kw),
        "rmse_per": root_mean_squared_error(y, prev, **kw),
        "rel_rmse_mean": rmse / root_mean_squared_error(y, m, **kw),
        "rel_rmse_per": rmse / root_mean_squared_error(y, prev, **kw),
    }


def _check(got, s, expected, n):
    assert got["n"][s] == pytest.approx(n, rel=1e-12)
    for name, value in expected.items():
        assert got[name][s] == pytest.approx(value, rel=1e-9, abs=1e-12), name


def test_cumulative_equals_sklearn_and_river_on_each_slots_rows():
    t, (y, pred, tested, m, prev) = _run("cumulative")
    got = t.get()
    for s in range(SLOTS):
        rows = tested[s]
        _check(got, s, _expected(y[rows], pred[s, rows], m[rows], prev[rows]), rows.sum())
        mae, rmse, r2 = metrics.MAE(), metrics.RMSE(), metrics.R2()
        for yt, yp in zip(y[rows], pred[s, rows]):
            for metric in (mae, rmse, r2):
                metric.update(yt, yp)
        assert got["mae"][s] == pytest.approx(mae.get(), rel=1e-9)
        assert got["rmse"][s] == pytest.approx(rmse.get(), rel=1e-9)
        assert got["r2"][s] == pytest.approx(r2.get(), rel=1e-9)


def test_window_equals_sklearn_on_the_last_rows_each_slot_tested():
    t, (y, pred, tested, m, prev) = _run("window", window=500)
    got = t.get()
    for s in range(SLOTS):
        rows = np.flatnonzero(tested[s])[-500:]
        _check(got, s, _expected(y[rows], pred[s, rows], m[rows], prev[rows]), 500)


def test_fading_equals_sklearn_with_faded_weights():
    t, (y, pred, tested, m, prev) = _run("fading", fading=0.995, batch=333)
    got = t.get()
    for s in range(SLOTS):
        rows = np.flatnonzero(tested[s])
        w = 0.995 ** np.arange(len(rows) - 1, -1, -1, dtype=float)
        _check(got, s, _expected(y[rows], pred[s, rows], m[rows], prev[rows], w), w.sum())


def test_adwin_window_is_rivers_adwin_on_the_absolute_error():
    # river's AdaptiveWindowing (the ADWIN that keeps its recent sub-window after a cut, as
    # the classification windows do) over each slot's absolute errors
    t, (y, pred, tested, m, prev) = _run("adwin")
    got, widths = t.get(), t.widths
    for s in range(SLOTS):
        rows = np.flatnonzero(tested[s])
        adwin = AdaptiveWindowing(
            delta=0.002, clock=32, max_buckets=5, min_window_length=5, grace_period=10
        )
        for e in np.abs(y[rows] - pred[s, rows]):
            adwin.update(float(e))
        assert widths[s] == adwin.get_width()
        kept = rows[len(rows) - int(widths[s]):]
        _check(got, s, _expected(y[kept], pred[s, kept], m[kept], prev[kept]), len(kept))
    assert widths[1] < 1500  # slot 1's change half-way: ADWIN dropped the rows before it


def test_batch_boundaries_change_nothing():
    a, _ = _run("adwin", batch=1000)
    b, _ = _run("adwin", batch=137)
    np.testing.assert_array_equal(a.windows.sums, b.windows.sums)


def test_empty_slot_gives_nan_and_constant_target_no_r2():
    s = np.zeros((1, 7))
    assert np.isnan(regression_measures(s)["rmse"][0])
    w = SumWindows("cumulative", 1, 7)
    cells = np.array([[[1.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0]] * 3]).reshape(1, 3, 7)
    w.update(np.ones((1, 3), bool), cells, np.zeros((1, 3)))
    assert np.isnan(regression_measures(w.sums)["r2"][0])
