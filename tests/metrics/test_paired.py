"""Paired trackers against plain-loop recomputations and river's ADWIN."""

import numpy as np
import pytest
import sklearn.metrics as skm
from river._river_rust.drift import AdaptiveWindowing

from distval.metrics.paired import ADWINMeans, PairedTracker


def paired_stream(seed, n=6000, pairs=2, folds=3, c=3, skip=0.3):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, c, n)
    rate_a = np.r_[np.full(n // 2, 0.1), np.full(n - n // 2, 0.4)]
    rate_b = np.full(n, 0.25)

    def preds(rate):
        wrong = rng.random((pairs, folds, n)) < rate
        p = np.where(wrong, (y + rng.integers(1, c, (pairs, folds, n))) % c, y)
        return np.where(rng.random((pairs, folds, n)) < skip, -1, p)

    return y, preds(rate_a), preds(rate_b), rng.random(n) < 0.5


def feed(tracker, y, pa, pb, per_ok, seed):
    rng = np.random.default_rng(seed)
    lo, ends = 0, []
    while lo < len(y):
        hi = min(len(y), lo + int(rng.integers(1, 900)))
        tracker.update(y[lo:hi], pa[..., lo:hi], pb[..., lo:hi], per_ok[lo:hi])
        ends.append(hi)
        lo = hi
    return ends


def plain_rows(pa, pb, p, f, hi):
    """The rows before ``hi`` that fold f tested with both learners of pair p (a loop)."""
    return [i for i in range(hi) if pa[p, f, i] >= 0 and pb[p, f, i] >= 0]


@pytest.mark.parametrize("kind", ["cumulative", "window", "adwin"])
def test_windows_cover_the_same_rows_for_both_learners(kind):
    y, pa, pb, per_ok = paired_stream(0)
    t = PairedTracker(kind, 2, 3, n_classes=3, window=700)
    feed(t, y, pa, pb, per_ok, 1)
    side_a, side_b = t.get()
    for p in range(2):
        for f in range(3):
            rows = plain_rows(pa, pb, p, f, len(y))
            if kind == "window":
                rows = rows[-700:]
            if kind == "adwin":  # the last rows ADWIN keeps (its cuts: the next tests)
                rows = rows[len(rows) - int(t.widths[p, f]) :]
            assert t.widths[p, f] == len(rows)
            for side, pred in ((side_a, pa), (side_b, pb)):
                ref = pred[p, f, rows]
                assert side["accuracy"][p, f] == pytest.approx(skm.accuracy_score(y[rows], ref))
                assert side["kappa"][p, f] == pytest.approx(
                    skm.cohen_kappa_score(y[rows], ref, labels=[0, 1, 2])
                )
                assert side["p_per"][p, f] == pytest.approx(per_ok[rows].mean())
            loss_diff = (pb[p, f, rows] != y[rows]).astype(float) - (pa[p, f, rows] != y[rows])
            assert t.difference()[p, f] == pytest.approx(loss_diff.mean())


def test_fading_weighs_paired_rows_by_their_age():
    y, pa, pb, per_ok = paired_stream(2, n=3000)
    t = PairedTracker("fading", 2, 3, n_classes=3, fading=0.995)
    feed(t, y, pa, pb, per_ok, 3)
    p, f = 1, 2
    rows = np.array(plain_rows(pa, pb, p, f, len(y)))
    w = 0.995 ** np.arange(len(rows) - 1, -1, -1)
    acc_a = np.sum(w * (pa[p, f, rows] == y[rows])) / w.sum()
    acc_b = np.sum(w * (pb[p, f, rows] == y[rows])) / w.sum()
    assert t.difference()[p, f] == pytest.approx(acc_a - acc_b)
    assert t.widths[p, f] == pytest.approx(w.sum())


def river_widths(values):
    a = AdaptiveWindowing(delta=0.002, clock=32, max_buckets=5, min_window_length=5,
                          grace_period=10)
    out = np.empty(len(values))
    for i, v in enumerate(values.tolist()):
        a.update(v)
        out[i] = a.get_width()
    return out


def test_adwin_runs_on_the_loss_difference_as_rivers_adwin_does():
    y, pa, pb, per_ok = paired_stream(4, n=12_000, c=2)
    t = PairedTracker("adwin", 2, 3, n_classes=2)
    rng = np.random.default_rng(5)
    lo, checks = 0, []
    while lo < len(y):
        hi = min(len(y), lo + int(rng.integers(1, 1500)))
        t.update(y[lo:hi], pa[..., lo:hi], pb[..., lo:hi], per_ok[lo:hi])
        side_a, side_b = t.get()
        checks.append((hi, t.widths.copy(), side_a["accuracy"].copy(), side_b["accuracy"].copy()))
        lo = hi
    assert (t.tracker.n_detections > 0).any()  # A's error rate quadruples halfway
    for p in range(2):
        for f in range(3):
            rows = np.array(plain_rows(pa, pb, p, f, len(y)))
            la = (pa[p, f, rows] != y[rows]).astype(float)
            lb = (pb[p, f, rows] != y[rows]).astype(float)
            widths = river_widths((lb - la + 1) / 2)
            for hi, w, acc_a, acc_b in checks:
                seen = rows[rows < hi]
                expect = int(widths[len(seen) - 1]) if len(seen) else 0
                assert w[p, f] == expect
                last = seen[len(seen) - expect :]
                assert acc_a[p, f] == pytest.approx(np.mean(pa[p, f, last] == y[last]))
                assert acc_b[p, f] == pytest.approx(np.mean(pb[p, f, last] == y[last]))


def test_adwin_window_after_a_change_in_the_difference_is_recent():
    # A and B equal for 5,000 paired rows, then A 20 points better: the paired window ends
    # up at the change (to the resolution of its buckets) and measures the 20 points.
    rng = np.random.default_rng(6)
    n = 10_000
    y = np.zeros(n, dtype=np.int64)
    a_wrong = np.r_[rng.random(5000) < 0.3, rng.random(5000) < 0.1]
    b_wrong = rng.random(n) < 0.3
    t = PairedTracker("adwin", 1, 1)
    t.update(y, a_wrong[None, None].astype(np.int64), b_wrong[None, None].astype(np.int64),
             np.ones(n, bool))
    assert t.widths[0, 0] < 5300  # ADWIN cuts at bucket boundaries
    assert t.difference()[0, 0] == pytest.approx(0.2, abs=0.03)


def test_unknown_forgetting_is_one_clear_error():
    from distval.errors import DistvalError

    with pytest.raises(DistvalError, match="unknown paired forgetting 'ewma'"):
        PairedTracker("ewma", 1, 2)


def test_adwin_means_is_rivers_adwin_on_real_values():
    rng = np.random.default_rng(8)
    n = 8000
    values = np.stack([
        np.r_[rng.random(4000) * 0.4, 0.3 + rng.random(4000) * 0.7],
        rng.choice([0.0, 0.5, 1.0], n, p=[0.2, 0.6, 0.2]),
    ])
    values[1, rng.random(n) < 0.3] = np.nan  # rows without a value are skipped
    a = ADWINMeans(2)
    for part in np.array_split(np.arange(n), [5, 300, 301, 5000]):
        a.update(values[:, part])
    for s in range(2):
        v = values[s][np.isfinite(values[s])]
        w = int(river_widths(v)[-1])
        assert a.widths[s] == w
        assert a.means[s] == pytest.approx(v[len(v) - w :].mean())
    assert a.n_detections[0] >= 1
