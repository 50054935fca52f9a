"""gama2013 estimators: closed forms, Q antisymmetry, Page-Hinkley against river's own."""

from __future__ import annotations

import numpy as np
import pytest
from river.drift import PageHinkley as RiverPH

from distval.errors import DistvalError
from distval.experiments.holdout import holdout_curve
from distval.metrics.prequential import (
    DriftMonitor,
    DriftSettings,
    PageHinkley,
    PrequentialError,
    q_statistic,
    squared_loss,
)
from distval.streams import open_stream

rng = np.random.default_rng(2013)


def feed(est, x, sizes=(37, 100, 463)):
    out, lo = [], 0
    for size in sizes * 100:
        if lo >= len(x):
            break
        out.append(est.update(x[lo : lo + size]))
        lo += size
    return np.concatenate(out)


def test_fading_estimate_matches_its_closed_form():
    x = rng.random(700)
    a = 0.99
    got = feed(PrequentialError("fading", fading=a), x)
    for i in (0, 1, 50, 699):
        w = a ** np.arange(i, -1, -1)  # alpha^(i - k), k = 0..i
        assert got[i] == pytest.approx(np.sum(w * x[: i + 1]) / np.sum(w))


def test_fading_increment_tends_to_one_over_one_minus_alpha():
    e = PrequentialError("fading", fading=0.995)
    e.update(np.zeros(20_000))
    assert e.weight == pytest.approx(1 / (1 - 0.995), rel=1e-9)


def test_window_estimate_is_the_mean_of_the_last_w_losses():
    x = (rng.random(900) < 0.3).astype(float)
    got = feed(PrequentialError("window", window=250), x)
    for i in (0, 10, 249, 250, 777, 899):
        assert got[i] == pytest.approx(x[max(0, i - 249) : i + 1].mean())


def test_cumulative_estimate_and_squared_loss():
    y, p = rng.random(300), rng.random(300)
    loss = squared_loss(y, p)
    got = feed(PrequentialError("cumulative"), loss)
    assert got[-1] == pytest.approx(np.mean((y - p) ** 2))
    assert got[99] == pytest.approx(np.mean((y[:100] - p[:100]) ** 2))


def test_q_statistic_is_antisymmetric_and_signed_by_the_better_learner():
    a, b = rng.integers(1, 100, 50).astype(float), rng.integers(1, 100, 50).astype(float)
    assert np.allclose(q_statistic(a, b), -q_statistic(b, a))
    assert (np.sign(q_statistic(a, b)) == np.sign(np.log(a) - np.log(b))).all()
    assert np.isnan(q_statistic(0.0, 3.0))


def river_alarms(x, delta, threshold):
    ph = RiverPH(min_instances=1, delta=delta, threshold=threshold, alpha=1.0, mode="up")
    out = []
    for i, v in enumerate(x):
        ph.update(v)
        if ph.drift_detected:
            out.append(i)
    return out


@pytest.mark.parametrize("seed", range(6))
def test_page_hinkley_equals_rivers_one_sided_test_for_any_batching(seed):
    g = np.random.default_rng(seed)
    x = np.r_[g.random(800) < 0.2, g.random(800) < g.uniform(0.2, 0.9)].astype(float)
    delta, lam = g.uniform(0, 0.2), g.uniform(3, 40)
    ph, got, lo = PageHinkley(delta, lam), [], 0
    for cut in [*np.sort(g.integers(0, 1600, 5)), 1600]:
        got += (lo + ph.update(x[lo:cut])).tolist()
        lo = cut
    assert got == river_alarms(x, delta, lam)


def test_page_hinkley_fires_after_a_step_and_is_silent_on_a_stationary_stream():
    g = np.random.default_rng(7)
    step = np.r_[g.random(30_000) < 0.1, g.random(30_000) < 0.4].astype(float)
    est = PrequentialError("fading", fading=0.997).update(step)
    alarms = PageHinkley(0.1, 100).update(est)
    # silent before the change, fires within a bounded delay after it
    assert len(alarms) and 30_000 < alarms[0] < 30_000 + 2_000
    stationary = (g.random(60_000) < 0.1).astype(float)
    flat = PrequentialError("fading", fading=0.997).update(stationary)
    assert len(PageHinkley(0.1, 100).update(flat)) == 0


def test_ratio_of_fading_estimates_detects_within_hundreds_of_rows():
    g = np.random.default_rng(8)
    wrong = np.r_[g.random(20_000) < 0.1, g.random(20_000) < 0.5]
    mon = DriftMonitor(1, DriftSettings())
    events = mon.update(wrong.astype(int)[None, :], np.zeros(40_000, int), 0)
    first: dict[str, int] = {}
    for row, _, det in events:
        first.setdefault(det, row)
    assert all(r > 20_000 for r in first.values())  # no false alarm before the change
    assert first["ph_ratio_fading"] - 20_000 < 1_000
    assert first["ph_ratio_fading"] < first["ph_window"]  # gama2013 Tables 2 vs 3


def test_bad_parameters():
    with pytest.raises(DistvalError, match="lambda"):
        PageHinkley(threshold=0)
    with pytest.raises(DistvalError, match="unknown estimator"):
        PrequentialError("median")
    with pytest.raises(DistvalError, match="short"):
        DriftSettings(short_window=5000, long_window=1000)


def test_holdout_curve_and_prequential_estimates_converge():
    stream = open_stream("sea", n_rows=12_000, seed=3)
    curve = holdout_curve(stream, "nb", holdout=2000, every=2000, windows=(1000,), fadings=(0.995,))
    assert curve["position"] == [2000, 4000, 6000, 8000, 10000]
    # a consistent learner on a stationary stream: holdout and windowed prequential errors
    # end up close (gama2013 §3); the cumulative prequential error is the pessimistic one
    assert abs(curve["holdout"][-1] - curve["window_1000"][-1]) < 0.05
    assert curve["cumulative"][-1] >= curve["holdout"][-1] - 0.02
