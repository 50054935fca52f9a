"""The aggregator against direct computations (scikit-learn, scipy) on random predictions."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from aggregator_feed import feed
from scipy import stats
from sklearn.metrics import accuracy_score

from distval.aggregator.core import Aggregator
from distval.aggregator.counts import PairCounts
from distval.columns import rows_of
from distval.config import RunConfig


@pytest.fixture
def data():
    rng = np.random.default_rng(12)
    n, k = 3000, 6
    y = rng.integers(0, 3, n)
    skill = np.array([0.7] * k + [0.55] * k + [0.5] * k)[:, None]
    pred = np.where(rng.random((3 * k, n)) < skill, y, rng.integers(0, 3, (3 * k, n)))
    pred[rng.random(pred.shape) < 0.25] = -1  # untested (row, fold) pairs, shared routing
    pred[k : 2 * k][pred[:k] == -1] = -1
    pred[2 * k :][pred[:k] == -1] = -1
    pred[k : 2 * k][(pred[:k] != -1) & (pred[k : 2 * k] == -1)] = 0
    pred[2 * k :][(pred[:k] != -1) & (pred[2 * k :] == -1)] = 0
    return y, pred, k


def test_fold_measures_and_tests_equal_direct_computation(data):
    y, pred, k = data
    cfg = RunConfig(
        learners=("nb", "ht", "majority"), n_folds=k, forgetting="cumulative", test_every=500
    )
    agg = Aggregator.from_config(cfg)
    snaps = feed(agg, y, pred, 250)
    assert [s.position for s in snaps] == list(range(500, 3001, 500))
    assert agg.finish() is None  # the schedule already took the last position
    final = snaps[-1]
    acc = np.array(
        [
            [
                accuracy_score(y[pred[i * k + f] >= 0], pred[i * k + f][pred[i * k + f] >= 0])
                for f in range(k)
            ]
            for i in range(3)
        ]
    )
    got = np.array(
        [[r["accuracy"] for r in rows_of(final.folds) if r["learner"] == lab] for lab in cfg.labels]
    )
    assert got == pytest.approx(acc)
    tests = {(t["test"], t["learner_a"], t["learner_b"]): t for t in rows_of(final.tests)}
    a, b = acc[0], acc[1]
    wins = int(np.sum(a > b))
    assert tests["sign", "nb", "ht"]["statistic"] == wins
    assert tests["sign", "nb", "ht"]["pvalue"] == pytest.approx(
        stats.binomtest(wins, int(np.sum(a != b))).pvalue
    )
    assert tests["wilcoxon", "nb", "ht"]["pvalue"] == pytest.approx(stats.wilcoxon(a, b).pvalue)
    both = (pred[:k] >= 0) & (pred[k : 2 * k] >= 0)
    n01 = np.sum(both & (pred[:k] != y) & (pred[k : 2 * k] == y))
    n10 = np.sum(both & (pred[:k] == y) & (pred[k : 2 * k] != y))
    assert tests["mcnemar", "nb", "ht"]["statistic"] == pytest.approx(
        (n01 - n10) ** 2 / (n01 + n10)
    )
    # Q statistic (gama2013 §4.1): log of the ratio of pooled losses, antisymmetric.
    loss_a = np.sum(both & (pred[:k] != y))
    loss_b = np.sum(both & (pred[k : 2 * k] != y))
    q = {(r["forgetting"], r["learner_a"], r["learner_b"]): r for r in rows_of(final.q)}
    assert q["cumulative", "nb", "ht"]["q"] == pytest.approx(np.log(loss_a / loss_b))
    qc = q["cumulative", "nb", "ht"]
    assert (qc["errors_a"], qc["errors_b"]) == (
        loss_a,
        loss_b,
    )
    assert q["cumulative", "ht", "majority"]["q"] == pytest.approx(
        -(q["cumulative", "nb", "ht"]["q"] - q["cumulative", "nb", "majority"]["q"])
    )
    assert q["cumulative", "nb", "ht"]["favours"] == ("nb" if loss_a < loss_b else "ht")
    assert not [t for t in rows_of(final.tests) if t["test"].startswith("q")]  # Q is not a test
    # every row says what it compared, over which rows, and whom the data favour
    sign = tests["sign", "nb", "ht"]
    assert (sign["measure"], sign["forgetting"]) == ("accuracy", cfg.forgetting)
    assert (sign["value_a"], sign["value_b"]) == pytest.approx((a.mean(), b.mean()))
    assert sign["favours"] == ("nb" if wins > np.sum(a < b) else "ht")
    assert sign["folds_used"] == np.sum(a != b) and sign["discordant_pairs"] is None
    mc = tests["mcnemar", "nb", "ht"]
    assert (mc["measure"], mc["forgetting"]) == ("errors", "cumulative")
    assert (mc["value_a"], mc["value_b"]) == (loss_a, loss_b)  # not the window's fold means
    assert mc["discordant_pairs"] == n01 + n10 and mc["folds_used"] is None
    assert mc["favours"] == ("nb" if n10 > n01 else "ht")
    assert tests["mcnemar_window", "nb", "ht"]["forgetting"] == "window"
    d = a - b
    signed = np.sign(d[d != 0]) * stats.rankdata(np.abs(d[d != 0]))
    wil = tests["wilcoxon", "nb", "ht"]
    assert wil["favours"] == ("nb" if signed.sum() > 0 else "ht")
    fr = stats.friedmanchisquare(*acc)
    assert tests["friedman", "*", "*"]["pvalue"] == pytest.approx(fr.pvalue)


def test_persistent_baseline_uses_the_previous_label_across_batches():
    cfg = RunConfig(learners=("nb",), n_folds=2, forgetting="cumulative", test_every=10)
    y = np.array([0, 0, 1, 1, 1, 0, 1, 1, 0, 0])
    pred = np.zeros((2, 10), dtype=int)
    agg = Aggregator.from_config(cfg)
    snaps = feed(agg, y, pred, 3)  # batches cut inside runs of equal labels
    per = [r["p_per"] for r in rows_of(snaps[-1].folds) if r["forgetting"] == "cumulative"]
    prev = np.r_[0, y[:-1]]  # row 0: the Persistent classifier guesses class 0
    assert per == pytest.approx([np.mean(y == prev)] * 2)


def test_batches_must_arrive_in_order():
    agg = Aggregator.from_config(RunConfig(learners=("nb",), n_folds=2))
    with pytest.raises(RuntimeError, match="arrived"):
        agg.update(5, np.zeros(3, int), [(np.arange(2), np.zeros((2, 3), int))])


def test_discordance_window_and_fading_against_direct_sums():
    rng = np.random.default_rng(3)
    d01, d10, la, lb = rng.integers(0, 4, (4, 2, 900))
    d = PairCounts(2, window=250, factor=0.98)
    for lo in range(0, 900, 170):
        sl = slice(lo, lo + 170)
        d.update(d01[:, sl], d10[:, sl], la[:, sl], lb[:, sl])
    c = d.counts()
    age = 0.98 ** np.arange(899, -1, -1)
    assert c["cumulative"][0] == pytest.approx(d01.sum(axis=1))
    assert c["window"][1] == pytest.approx(d10[:, -250:].sum(axis=1))
    assert c["fading"][0] == pytest.approx(d01 @ age)
    assert c["window"][3] == pytest.approx(lb[:, -250:].sum(axis=1))
    assert c["fading"][2] == pytest.approx(la @ age)


def test_aggregator_survives_pickle(data, assert_same_rows):
    y, pred, k = data
    cfg = RunConfig(learners=("nb", "ht", "lb"), n_folds=k, test_every=1000)
    agg = Aggregator.from_config(cfg)
    feed(agg, y[:1000], pred[:, :1000], 500)
    copy = pickle.loads(pickle.dumps(agg))
    s1 = agg.update(1000, y[1000:2000], [(np.arange(3 * k), pred[:, 1000:2000])])
    s2 = copy.update(1000, y[1000:2000], [(np.arange(3 * k), pred[:, 1000:2000])])
    assert_same_rows(rows_of(s1.folds), rows_of(s2.folds))
    assert_same_rows(rows_of(s1.tests), rows_of(s2.tests))


def test_mcnemar_threshold_of_gama2013_is_an_option(data):
    y, pred, k = data
    base = {"learners": ("nb", "ht", "majority"), "n_folds": k, "test_every": 3000}
    loose = rows_of(feed(Aggregator.from_config(RunConfig(**base)), y, pred, 1000)[-1].tests)
    strict = rows_of(
        feed(Aggregator.from_config(RunConfig(**base, mcnemar_alpha=0.01)), y, pred, 1000)[-1].tests
    )
    for a, b in zip(loose, strict):
        if a["test"].startswith("mcnemar"):
            assert a["statistic"] == b["statistic"]
            assert b["reject"] == (b["statistic"] > stats.chi2.ppf(0.99, 1))  # 6.635
            assert a["reject"] == (a["statistic"] > stats.chi2.ppf(0.95, 1))


def test_drift_events_are_reported_where_the_error_jumps():
    rng = np.random.default_rng(4)
    n = 20_000
    y = rng.integers(0, 2, n)
    wrong = np.r_[rng.random(10_000) < 0.1, rng.random(10_000) < 0.6]
    pred = np.where(wrong, 1 - y, y)[None, :].repeat(2, axis=0)
    cfg = RunConfig(learners=("nb",), n_folds=2, drift=True, test_every=5000)
    snaps = feed(Aggregator.from_config(cfg), y, pred, 1000)
    events = [e for s in snaps for e in rows_of(s.events)]
    fading = [e["position"] for e in events if e["detector"] == "ph_fading" and e["fold"] == 0]
    assert fading and 10_000 < fading[0] < 12_000  # detected within 2,000 rows of the change
    assert not [e for e in events if e["position"] < 10_000]  # no false alarm before it


def test_sign_and_wilcoxon_compare_paired_adwin_windows_as_river_computes_them():
    """Under ADWIN forgetting each pair and fold gets one ADWIN (river's) on the loss
    difference (loss_B - loss_A + 1) / 2; Sign and Wilcoxon compare both learners' accuracy
    over the last `width` rows of it (scipy), whatever each learner's own window is."""
    from river._river_rust.drift import AdaptiveWindowing

    rng = np.random.default_rng(5)
    n, k = 6000, 5
    y = rng.integers(0, 2, n)
    err_a = np.r_[np.full(3000, 0.1), np.full(3000, 0.3)]  # A worsens halfway
    wrong = np.stack([rng.random((k, n)) < err_a, rng.random((k, n)) < 0.2])
    pred = np.where(wrong, 1 - y, y).reshape(2 * k, n)
    cfg = RunConfig(learners=("nb", "ht"), n_folds=k, test_every=1000, tests=("sign", "wilcoxon"))
    final = feed(Aggregator.from_config(cfg), y, pred, 700)[-1]
    va, vb = [], []
    for f in range(k):
        la, lb = (pred[f] != y).astype(float), (pred[k + f] != y).astype(float)
        adwin = AdaptiveWindowing(delta=0.002, clock=32, max_buckets=5, min_window_length=5,
                                  grace_period=10)
        for v in ((lb - la + 1) / 2).tolist():
            adwin.update(v)
        w = int(adwin.get_width())
        va.append(1 - la[n - w :].mean())
        vb.append(1 - lb[n - w :].mean())
    tests = {t["test"]: t for t in rows_of(final.tests)}
    assert tests["wilcoxon"]["value_a"] == pytest.approx(np.mean(va))
    assert tests["wilcoxon"]["value_b"] == pytest.approx(np.mean(vb))
    assert tests["wilcoxon"]["pvalue"] == pytest.approx(stats.wilcoxon(va, vb).pvalue)
    d = np.array(va) - np.array(vb)
    assert tests["sign"]["statistic"] == int((d > 0).sum())
    (verdict,) = rows_of(final.verdicts)
    assert verdict["rows"] == n and verdict["window_rows"] == pytest.approx(np.median(
        [r["width"] for r in rows_of(final.paired)]))
