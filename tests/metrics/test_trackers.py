"""The trackers: scikit-learn at many prefixes, river's ADWIN row by row, every forgetting mode."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from river._river_rust.drift import AdaptiveWindowing
from river.drift import ADWIN
from sklearn import metrics as skm

from distval.errors import DistvalError
from distval.metrics import (
    ADWINWindow,
    Cumulative,
    Fading,
    SlidingWindow,
    make_tracker,
)


def random_stream(rng, n, c, skill=0.6):
    y = rng.integers(0, c, n)
    pred = np.where(rng.random(n) < skill, y, rng.integers(0, c, n))
    return y, pred


def reference(y, pred, per_ok, c):
    """Independent computation of every measure with scikit-learn and numpy."""
    labels = list(range(c))
    acc = skm.accuracy_score(y, pred)
    p_maj = np.bincount(y, minlength=c).max() / len(y)
    p_per = per_ok.mean()
    out = {
        "accuracy": acc,
        "kappa": skm.cohen_kappa_score(y, pred, labels=labels),
        "kappa_m": (acc - p_maj) / (1 - p_maj) if p_maj < 1 else 0.0,
        "kappa_per": (acc - p_per) / (1 - p_per) if p_per < 1 else 0.0,
        "p_maj": p_maj,
        "p_per": p_per,
    }
    present = np.isin(labels, y)
    rec = skm.recall_score(y, pred, labels=labels, average=None, zero_division=0)[present]
    out["recall_arith"] = rec.mean()
    out["recall_geom"] = float(np.prod(rec) ** (1 / len(rec)))
    out["recall_harm"] = 0.0 if (rec == 0).any() else len(rec) / np.sum(1 / rec)
    if c == 2:
        out["mcc"] = skm.matthews_corrcoef(y, pred)
        out["f1"] = skm.f1_score(y, pred, pos_label=1, zero_division=0)
    out["kappa_plus"] = np.sqrt(max(out["kappa"], 0) * max(out["kappa_per"], 0))
    return out


def check(got, slot, ref):
    for key, value in ref.items():
        if np.isnan(value):
            continue
        assert got[key][slot] == pytest.approx(value, abs=1e-9), key


@pytest.mark.parametrize("c", [2, 3, 5])
def test_cumulative_matches_sklearn_at_every_prefix(c):
    rng = np.random.default_rng(c)
    n, slots = 3000, 3
    y = rng.integers(0, c, n)
    preds = np.stack([random_stream(rng, n, c, skill)[1] for skill in (0.2, 0.5, 0.9)])
    preds = np.where(rng.random((slots, n)) < 0.3, -1, preds)  # some rows untested
    preds[:, :5] = y[:5]  # make sure every slot tests something early
    prev = np.r_[0, y[:-1]]
    per_ok = y == prev
    t = Cumulative(slots, n_classes=1)  # classes grow as they appear
    for end in range(100, n + 1, 100):
        lo = end - 100
        t.update(y[lo:end], preds[:, lo:end], per_ok[lo:end])
        got = t.get()
        for s in range(slots):
            tested = preds[s, :end] >= 0
            check(
                got, s, reference(y[:end][tested], preds[s, :end][tested], per_ok[:end][tested], c)
            )


def test_sliding_window_equals_the_last_rows():
    rng = np.random.default_rng(5)
    y, pred = random_stream(rng, 5000, 3)
    pred = np.where(rng.random(5000) < 0.2, -1, pred)[None, :]
    per_ok = rng.random(5000) < 0.5
    t = SlidingWindow(1, size=700)
    for lo in range(0, 5000, 333):
        hi = min(lo + 333, 5000)
        t.update(y[lo:hi], pred[:, lo:hi], per_ok[lo:hi])
        tested = np.flatnonzero(pred[0, :hi] >= 0)[-700:]
        check(t.get(), 0, reference(y[tested], pred[0, tested], per_ok[tested], 3))
        assert t.widths[0] == len(tested)


def test_fading_matches_closed_form():
    rng = np.random.default_rng(6)
    y, pred = random_stream(rng, 600, 2)
    pred = np.where(rng.random(600) < 0.3, -1, pred)[None, :]
    per_ok = rng.random(600) < 0.4
    f = 0.99
    t = Fading(1, factor=f)
    for lo in range(0, 600, 97):
        t.update(y[lo : lo + 97], pred[:, lo : lo + 97], per_ok[lo : lo + 97])
    idx = np.flatnonzero(pred[0] >= 0)
    age = len(idx) - 1 - np.arange(len(idx))
    expect = np.zeros((2, 2))
    for a, i in zip(age, idx):
        expect[y[i], pred[0, i]] += f**a
    assert t.C[0] == pytest.approx(expect)
    assert t.P[0] == pytest.approx(np.sum(f**age * per_ok[idx]))
    # the faded count of rows tends to 1 / (1 - f)
    t2 = Fading(1, factor=f)
    t2.update(np.zeros(5000, int), np.zeros((1, 5000), int), np.ones(5000, bool))
    assert t2.widths[0] == pytest.approx(1 / (1 - f), rel=1e-6)


def test_fading_measures_equal_sklearn_with_decayed_sample_weights():
    rng = np.random.default_rng(9)
    y, pred = random_stream(rng, 1500, 2)
    per_ok = rng.random(1500) < 0.5
    f = 0.998
    t = Fading(1, factor=f)
    for lo in range(0, 1500, 250):
        t.update(y[lo : lo + 250], pred[None, lo : lo + 250], per_ok[lo : lo + 250])
        hi = lo + 250
        w = f ** np.arange(hi - 1, -1, -1)
        yy, pp = y[:hi], pred[:hi]
        got = t.get()
        acc = skm.accuracy_score(yy, pp, sample_weight=w)
        assert got["accuracy"][0] == pytest.approx(acc)
        assert got["kappa"][0] == pytest.approx(skm.cohen_kappa_score(yy, pp, sample_weight=w))
        assert got["mcc"][0] == pytest.approx(skm.matthews_corrcoef(yy, pp, sample_weight=w))
        assert got["f1"][0] == pytest.approx(skm.f1_score(yy, pp, sample_weight=w))
        rec = skm.recall_score(yy, pp, average=None, sample_weight=w)
        assert got["recall_arith"][0] == pytest.approx(rec.mean())
        p_per = np.sum(w * per_ok[:hi]) / w.sum()
        assert got["kappa_per"][0] == pytest.approx((acc - p_per) / (1 - p_per))


def test_adwin_window_follows_adwin_and_keeps_the_recent_part_after_a_change():
    rng = np.random.default_rng(7)
    n = 6000
    y = rng.integers(0, 2, n)
    wrong = np.r_[rng.random(3000) < 0.1, rng.random(3000) < 0.5]
    pred = np.where(wrong, 1 - y, y)
    per_ok = np.ones(n, bool)
    t = ADWINWindow(1, delta=0.002)
    river_adwin = ADWIN(delta=0.002)
    first_detection = None
    for i in range(n):
        river_adwin.update(float(wrong[i]))
        if river_adwin.drift_detected:
            first_detection = i
            break
    assert first_detection is not None and 3000 < first_detection < 4000
    # Up to the first detection our window is exactly river's ADWIN window.
    upto = slice(0, first_detection + 1)
    t.update(y[upto], pred[None, upto], per_ok[upto])
    w = int(t.widths[0])
    assert w == river_adwin.width
    tail = slice(first_detection + 1 - w, first_detection + 1)
    check(t.get(), 0, reference(y[tail], pred[tail], per_ok[tail], 2))
    assert t.n_detections[0] == 1
    # One more row: river's ADWIN restarts from an empty window, ours keeps the recent part.
    nxt = first_detection + 1
    t.update(y[nxt : nxt + 1], pred[None, nxt : nxt + 1], per_ok[nxt : nxt + 1])
    river_adwin.update(float(wrong[nxt]))
    assert river_adwin.width == 1
    assert t.widths[0] == w + 1


def river_adwin_trace(losses: np.ndarray) -> np.ndarray:
    """River's compiled ADWIN, one call per row: the width after each row, negated on the
    rows where it detected a change (the encoding of ``ADWINWindow.update_traced``)."""
    a = AdaptiveWindowing(
        delta=0.002, clock=32, max_buckets=5, min_window_length=5, grace_period=10
    )
    out = np.empty(len(losses))
    for i, v in enumerate(losses.tolist()):
        hit = a.update(v)
        out[i] = -a.get_width() if hit else a.get_width()
    return out


@pytest.mark.parametrize("seed", [0, 1])
def test_compiled_adwin_gives_rivers_windows_row_by_row(seed):
    # Long 0/1 loss streams with abrupt and gradual changes of the error rate, three classes,
    # slots that skip rows, batches of random size: every tested row's width and detection
    # must be river's AdaptiveWindowing's, and at every batch end the state must be the
    # measures of exactly the last `width` rows the slot tested.
    rng = np.random.default_rng(seed)
    n, slots = 40_000, 4
    rate = np.r_[
        np.full(8000, 0.05),
        np.full(8000, 0.5),
        np.linspace(0.5, 0.1, 12_000),
        np.full(6000, 0.3),
        np.full(6000, 0.02),
    ]
    y = rng.integers(0, 3, n)
    wrong = rng.random((slots, n)) < rate
    pred = np.where(wrong, (y + rng.integers(1, 3, (slots, n))) % 3, y)
    pred[1:] = np.where(rng.random((slots - 1, n)) < 0.4, -1, pred[1:])  # slot 0 tests all
    per_ok = rng.random(n) < 0.5
    t = ADWINWindow(slots, n_classes=3)
    traces, lo, ends = [], 0, []
    while lo < n:
        hi = min(n, lo + int(rng.integers(1, 2500)))
        traces.append(t.update_traced(y[lo:hi], pred[:, lo:hi], per_ok[lo:hi]))
        lo = hi
        ends.append((hi, t.get(), t.widths.copy()))
    trace = np.hstack(traces)
    for s in range(slots):
        tested = np.flatnonzero(pred[s] >= 0)
        expect = river_adwin_trace((y[tested] != pred[s, tested]).astype(np.float64))
        assert np.array_equal(trace[s, tested], expect)
        assert int(t.n_detections[s]) == int((expect < 0).sum()) > 3
        for hi, got, widths in ends[:: max(1, len(ends) // 10)]:
            rows = tested[tested < hi]
            w = int(abs(expect[len(rows) - 1])) if len(rows) else 0
            assert widths[s] == w
            rows = rows[len(rows) - w :]
            check(got, s, reference(y[rows], pred[s, rows], per_ok[rows], 3))


def test_adwin_window_pickles_mid_stream():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 3000)
    pred = np.where(rng.random((2, 3000)) < 0.8, y, 1 - y)
    per_ok = np.ones(3000, bool)
    a = ADWINWindow(2)
    a.update(y[:1500], pred[:, :1500], per_ok[:1500])
    b = pickle.loads(pickle.dumps(a))
    for t in (a, b):
        t.update(y[1500:], pred[:, 1500:], per_ok[1500:])
    assert np.array_equal(a.C, b.C) and np.array_equal(a.widths, b.widths)


def test_adwin_counts_are_those_of_its_last_width_rows_as_a_class_appears():
    # The window's confusion counts and persistent hits, from its buckets, against a plain
    # count of the last `width` rows each slot tested, after every batch; class 2 is first
    # seen at row 5,000 (the buckets' counts grow with the matrix) and ADWIN cuts.
    rng = np.random.default_rng(3)
    n = 9000
    y = np.r_[rng.integers(0, 2, 5000), rng.integers(0, 3, 4000)]
    wrong = np.r_[rng.random(4000) < 0.1, rng.random(5000) < 0.4]
    pred = np.where(wrong, np.where(y < 2, 1 - y, 0), y)
    pred = np.where(rng.random((2, n)) < 0.2, -1, pred)  # rows a slot did not test
    per_ok = rng.random(n) < 0.5
    t = ADWINWindow(2)
    lo = 0
    while lo < n:
        hi = min(n, lo + int(rng.integers(1, 700)))
        t.update(y[lo:hi], pred[:, lo:hi], per_ok[lo:hi])
        for s in range(2):
            tested = np.flatnonzero(pred[s, :hi] >= 0)
            rows = tested[len(tested) - int(t.widths[s]) :]
            ref = np.zeros(t.C.shape[1:])
            np.add.at(ref, (y[rows], pred[s, rows]), 1.0)
            assert t.C[s].tolist() == ref.tolist()
            assert t.P[s] == per_ok[rows].sum()
        lo = hi
    assert t.C.shape == (2, 3, 3) and t.n_detections.min() > 0


def test_adwin_state_does_not_grow_with_its_window():
    # Rows always right: the window never cuts and holds the whole stream.
    def state_bytes(n):
        t = ADWINWindow(4)
        for _ in range(n // 1000):
            t.update(np.zeros(1000, np.int64), np.zeros((4, 1000), np.int64), np.ones(1000, bool))
        assert t.widths.tolist() == [n] * 4
        return sum(v.nbytes for v in vars(t).values() if isinstance(v, np.ndarray))

    assert state_bytes(200_000) <= 2 * state_bytes(20_000)  # a code per row: 10 times


def test_class_first_seen_mid_stream_grows_the_matrix():
    t = Cumulative(1, n_classes=2)
    t.update(np.array([0, 1, 0]), np.array([[0, 1, 1]]), np.ones(3, bool))
    t.update(np.array([2, 2]), np.array([[2, 0]]), np.zeros(2, bool))
    assert t.C.shape == (1, 3, 3)
    assert t.C[0].tolist() == [[1, 1, 0], [0, 1, 0], [1, 0, 1]]
    assert np.isnan(t.get()["mcc"][0])  # three classes: binary-only measures are NaN


def test_empty_slot_gives_nan_not_errors():
    t = Cumulative(2)
    t.update(np.array([0, 1]), np.array([[0, 1], [-1, -1]]), np.ones(2, bool))
    m = t.get()
    assert m["accuracy"][0] == 1.0 and np.isnan(m["accuracy"][1]) and np.isnan(m["kappa_m"][1])


@pytest.mark.parametrize("kind", ["adwin", "window", "fading", "cumulative"])
def test_trackers_survive_pickle_and_continue_identically(kind):
    rng = np.random.default_rng(8)
    y, pred = random_stream(rng, 2000, 3)
    per_ok = rng.random(2000) < 0.5
    t = make_tracker(kind, 1, window=300, fading=0.995)
    t.update(y[:1000], pred[None, :1000], per_ok[:1000])
    u = pickle.loads(pickle.dumps(t))
    for tr in (t, u):
        tr.update(y[1000:], pred[None, 1000:], per_ok[1000:])
    assert np.allclose(t.C, u.C) and np.allclose(t.P, u.P)


@pytest.mark.parametrize(
    ("kind", "kwargs", "message"),
    [
        ("window", {"window": 0}, "window size"),
        ("fading", {"fading": 1.0}, "fading factor"),
        ("adwin", {"adwin_delta": 0.0}, "delta"),
        ("median", {}, "unknown forgetting"),
    ],
)
def test_bad_tracker_parameters(kind, kwargs, message):
    with pytest.raises(DistvalError, match=message):
        make_tracker(kind, 1, **kwargs)


def test_window_codes_keep_many_classes_apart():
    """Window codes pack both classes in 15 bits each: 2,000 classes still give the
    confusion counts of the last rows, counted here with numpy."""
    rng = np.random.default_rng(3)
    n, k, keep = 3000, 2000, 500
    y = rng.integers(0, k, n)
    pred = np.where(rng.random(n) < 0.5, y, rng.integers(0, k, n))[None, :]
    t = SlidingWindow(n_slots=1, n_classes=2, size=keep)
    t.update(y, pred, np.zeros(n, dtype=bool))
    pairs = set(zip(y[-keep:].tolist(), pred[0, -keep:].tolist()))
    counts = {(a, b): int(((y[-keep:] == a) & (pred[0, -keep:] == b)).sum()) for a, b in pairs}
    assert {(a, b): int(t.C[0, a, b]) for a, b in pairs} == counts
    assert t.C.sum() == keep


def test_more_classes_than_codes_hold_is_one_clear_error():
    with pytest.raises(DistvalError, match="at most 32768"):
        Cumulative(n_slots=1, n_classes=40_000)
