"""``--forgetting ewma`` against zliobaite2015 Algorithm 1 written out row by row (issue 16.1).

Algorithm 1 starts every estimator of a k-class stream at 1/k, so the tracker must be told
k; a class first seen later must start from values that do not depend on how the stream is
cut into batches.
"""

from __future__ import annotations

import numpy as np
import pytest

from distval.aggregator.core import Aggregator
from distval.config import RunConfig
from distval.evaluation import evaluate
from distval.metrics import ExponentialEstimators
from distval.streams import open_stream

KEYS = ("accuracy", "kappa", "kappa_m", "kappa_per", "kappa_plus", "p_per", "p_maj")


class Algorithm1:
    """zliobaite2015 Algorithm 1 for one slot, one row at a time, in plain Python.

    ``y_prev`` starts at the first class (the paper's ``y_prev = 1`` with classes 1..k).
    """

    def __init__(self, k: int, alpha: float) -> None:
        self.k, self.a = k, alpha
        self.p = 0.0
        self.P = [1.0 / k] * k
        self.Ph = [1.0 / k] * k
        self.Pii = [1.0 / k] * k
        self.y_prev = 0

    def row(self, y: int, y_hat: int | None) -> None:
        """One stream row; ``y_hat`` None when the slot does not test the row (it is skipped
        except that the stream's previous label moves on)."""
        a = self.a
        if y_hat is not None:
            self.p = a + self.p * (1 - a) if y_hat == y else self.p * (1 - a)
            for i in range(self.k):
                if i == y:
                    self.P[i] = a + self.P[i] * (1 - a)
                    if i == self.y_prev:
                        self.Pii[i] = a + self.Pii[i] * (1 - a)
                    else:
                        self.Pii[i] = self.Pii[i] * (1 - a)
                else:
                    self.P[i] = self.P[i] * (1 - a)
                if i == y_hat:
                    self.Ph[i] = a + self.Ph[i] * (1 - a)
                else:
                    self.Ph[i] = self.Ph[i] * (1 - a)
        self.y_prev = y

    def values(self) -> dict[str, float]:
        p = self.p
        p_ran = sum(u * v for u, v in zip(self.P, self.Ph))
        p_per = sum(u * v for u, v in zip(self.P, self.Pii))
        p_maj = max(self.P)
        kappa = (p - p_ran) / (1 - p_ran)
        kappa_per = (p - p_per) / (1 - p_per)
        return {
            "accuracy": p,
            "kappa": kappa,
            "kappa_m": (p - p_maj) / (1 - p_maj),
            "kappa_per": kappa_per,
            "kappa_plus": (max(kappa, 0.0) * max(kappa_per, 0.0)) ** 0.5,
            "p_per": p_per,
            "p_maj": p_maj,
        }


def ten_class_stream(n: int, seed: int):
    """Labels with temporal dependence over 10 classes, classes 5..9 first appearing late,
    and predictions of three slots (-1 where a slot does not test a row)."""
    rng = np.random.default_rng(seed)
    y = np.empty(n, dtype=np.int64)
    y[0] = 0
    for t in range(1, n):
        top = 5 if t < n // 3 else 10
        y[t] = y[t - 1] if rng.random() < 0.6 else rng.integers(0, top)
    pred = np.where(rng.random((3, n)) < 0.5, y, rng.integers(0, 10, (3, n)))
    pred[1][rng.random(n) < 0.3] = -1
    return y, pred


def feed(tracker, y, pred, size, check=None):
    per_ok = y == np.r_[0, y[:-1]]
    for lo in range(0, len(y), size):
        hi = min(lo + size, len(y))
        tracker.update(y[lo:hi], pred[:, lo:hi], per_ok[lo:hi])
        if check is not None:
            check(hi, tracker.get())


def test_ten_classes_follow_algorithm_1_at_every_prefix():
    n, alpha = 1200, 0.01
    y, pred = ten_class_stream(n, seed=3)
    refs = [Algorithm1(10, alpha) for _ in range(3)]
    done = [0]

    def check(hi, got):
        for t in range(done[0], hi):
            for s, ref in enumerate(refs):
                ref.row(int(y[t]), None if pred[s, t] < 0 else int(pred[s, t]))
        done[0] = hi
        for s, ref in enumerate(refs):
            for key, value in ref.values().items():
                assert got[key][s] == pytest.approx(value, rel=1e-9, abs=1e-12), (hi, s, key)

    feed(ExponentialEstimators(3, n_classes=10, decay=alpha), y, pred, 1, check)


@pytest.mark.parametrize("n_classes", [10, None])
def test_batch_size_never_changes_the_estimators(n_classes):
    # With the class count given, and without it (classes 2..9 then arrive late): the start
    # value of a late class depends on its index only, never on where a batch ends.
    y, pred = ten_class_stream(3000, seed=5)
    kw = {} if n_classes is None else {"n_classes": n_classes}
    results = []
    for size in (1, 7, 1000):
        t = ExponentialEstimators(3, decay=0.001, **kw)
        feed(t, y, pred, size)
        results.append(t.get())
    for other in results[1:]:
        for key in KEYS:
            np.testing.assert_allclose(other[key], results[0][key], rtol=1e-12, atol=1e-14)


def test_late_class_start_values_match_algorithm_1_run_on_the_known_classes():
    # Unknown class count: the tracker starts as Algorithm 1 with k = 2. A class i >= 2
    # starts at P(i) = P_h(i) = 0 and P(i|i) = 1 / (i + 1); written out independently here.
    y = np.array([0, 1, 1, 2, 2, 0, 3, 3, 3, 1], dtype=np.int64)
    pred = y[None, :].copy()
    alpha = 0.2
    t = ExponentialEstimators(1, decay=alpha)
    feed(t, y, pred, 4)
    P, Pii, prev = {0: 0.5, 1: 0.5}, {0: 0.5, 1: 0.5}, 0
    for c in y.tolist():
        if c not in P:
            P[c], Pii[c] = 0.0, 1.0 / (c + 1)
        for i in P:
            P[i] = alpha * (i == c) + (1 - alpha) * P[i]
        Pii[c] = alpha * (prev == c) + (1 - alpha) * Pii[c]
        prev = c
    assert t.get()["p_per"][0] == pytest.approx(sum(P[i] * Pii[i] for i in P), rel=1e-12)
    assert sum(t.prior[0]) == pytest.approx(1.0) and sum(t.prior_h[0]) == pytest.approx(1.0)


def led_labels(n: int) -> np.ndarray:
    return np.concatenate([c.y for c in open_stream("LED(50)", n_rows=n, seed=1).chunks(n)])


def test_led_stream_in_a_run_matches_algorithm_1_for_every_batch_size():
    # The engine passes the stream's declared class count (LED: 10) to the aggregator. p_per
    # and p_maj depend on the labels only (every fold tests every row, prequential).
    n, every = 2000, 250
    y = led_labels(n)
    ref = Algorithm1(10, 0.001)
    want = {}
    for t, c in enumerate(y.tolist(), start=1):
        ref.row(c, c)
        if t % every == 0:
            want[t] = ref.values()
    runs = []
    for size in (1, 7, 1000):
        cfg = RunConfig(
            stream="LED(50)", n_rows=n, learners=("majority",), n_folds=2, scheme="cv",
            forgetting="ewma", fading=0.999, test_every=every, batch_size=size, tests=(),
        )
        folds = evaluate(cfg).folds()
        runs.append(folds[folds["forgetting"] == "ewma"].reset_index(drop=True))
    for row in runs[0].itertuples():
        assert row.p_per == pytest.approx(want[row.position]["p_per"], rel=1e-9)
        assert row.p_maj == pytest.approx(want[row.position]["p_maj"], rel=1e-9)
    for other in runs[1:]:
        for key in KEYS:
            np.testing.assert_allclose(other[key], runs[0][key], rtol=1e-12, atol=1e-14)


def test_aggregator_uses_the_class_count():
    cfg = RunConfig(learners=("nb",), n_folds=2, forgetting="ewma")
    assert Aggregator.from_config(cfg, n_classes=7).primary.stay.shape == (2, 7)
    assert Aggregator.from_config(cfg).primary.stay.shape == (2, 2)
