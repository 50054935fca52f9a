"""Temporal dependence (zliobaite2015 §2-§4, §6): diagnostics, shuffles, wrappers, Algorithm 1."""

from __future__ import annotations

import pickle

import numpy as np
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from distval.errors import DistvalError
from distval.experiments.diagnostics import LabelDiagnostics, describe_stream
from distval.learners import BUILTIN, make_replicas, parse_learner
from distval.learners.batch import Batch
from distval.learners.host import LearnerHost
from distval.learners.temporal import TemporalCorrection, TemporallyAugmented
from distval.metrics import FORGETTING, Cumulative, ExponentialEstimators, make_tracker, measures
from distval.streams import bundled_path, open_stream
from distval.streams.permutations import random_permutation as iid_permutation
from distval.streams.permutations import within_class_permutation
from distval.streams.permuted import PermutedStream

ELEC = bundled_path("elec2")


def markov_labels(n, stay, k=2, seed=0, priors=None):
    """Labels of a Markov chain: keep the previous label with probability ``stay``, else
    draw from ``priors`` (so stay = 0 gives iid labels)."""
    rng = np.random.default_rng(seed)
    priors = np.full(k, 1.0 / k) if priors is None else np.asarray(priors)
    draws = rng.choice(k, size=n, p=priors)
    keep = rng.random(n) < stay
    y = np.empty(n, dtype=np.int64)
    y[0] = draws[0]
    for t in range(1, n):
        y[t] = y[t - 1] if keep[t] else draws[t]
    return y


def prequential(specs, X, y, names):
    """Test-then-train every learner on every row; (learners, n) predictions."""
    host = LearnerHost(
        [parse_learner(s) for s in specs], [(i, 0) for i in range(len(specs))], names, seed=1
    )
    n = len(y)
    batch = Batch(0, X, y, np.ones((n, 1), np.int32), np.ones((n, 1), bool))
    return host.process(batch).astype(np.int64)


# -- diagnostics ------------------------------------------------------------------------------


def test_electricity_characteristics_match_numpy_on_the_parquet_file():
    labels = pq.read_table(ELEC, columns=["class"])["class"].to_numpy().astype(str)
    n = len(labels)
    _, counts = np.unique(labels, return_counts=True)
    same = labels[1:] == labels[:-1]
    d = describe_stream(open_stream(str(ELEC)), max_lag=2, chunk_size=4096)
    assert d["rows"] == n == 45312
    assert d["p_majority"] == pytest.approx(counts.max() / n, abs=1e-15)
    assert d["p_persistence"] == pytest.approx(same.mean(), abs=1e-15)
    # Persistent predicts class 0 (the first label) on row 0, so row 0 is a hit.
    assert d["persistent_accuracy"] == pytest.approx((1 + same.sum()) / n, abs=1e-15)
    # Table 3 of zliobaite2015: P(M) = 0.58, P(T) = 0.85 for Elec2.
    assert round(d["p_majority"], 2) == 0.58 and round(d["p_persistence"], 2) == 0.85


def test_run_lengths_and_delta_match_a_direct_count():
    y = np.repeat(
        np.random.default_rng(3).choice(3, 900, p=[0.5, 0.3, 0.2]),
        np.random.default_rng(4).integers(1, 5, 900),
    )[:2500]
    L = 3
    d = LabelDiagnostics(max_lag=L)
    for lo in range(0, len(y), 97):
        d.update(y[lo : lo + 97])
    cond = np.full((3, L + 2), np.nan)
    for i in range(3):
        cond[i, 0] = np.mean(y == i)
        for lag in range(1, L + 2):
            t = np.arange(lag, len(y))
            ok = np.all([y[t - j] == i for j in range(1, lag + 1)], axis=0)
            cond[i, lag] = np.mean(y[t[ok]] == i)
    np.testing.assert_allclose(d.conditional(), cond, atol=1e-12)
    np.testing.assert_allclose(d.delta(), cond[:, 1 : L + 1] - cond[:, :L], atol=1e-12)
    majority_hits = sum(np.bincount(y[:t], minlength=3).argmax() == y[t] for t in range(len(y)))
    assert d.majority_accuracy == pytest.approx(majority_hits / len(y))


def test_delta_of_a_first_order_chain():
    # stay = 0.6, uniform priors: P(i|i) = 0.6 + 0.4 * 0.5 = 0.8, no higher-order dependence.
    d = LabelDiagnostics(max_lag=3)
    d.update(markov_labels(200_000, 0.6, seed=5))
    delta = d.delta()
    np.testing.assert_allclose(delta[:, 0], 0.3, atol=0.01)
    np.testing.assert_allclose(delta[:, 1:], 0.0, atol=0.01)


@settings(max_examples=25, deadline=None)
@given(
    p0=st.floats(0.05, 0.95),
    seed=st.integers(0, 10_000),
)
def test_proposition_6_independent_labels(p0, seed):
    # zliobaite2015 Proposition 6 / eq. 8: iid labels give p_per = sum P(i)^2 <= P(M).
    y = markov_labels(20_000, 0.0, seed=seed, priors=[p0, 1 - p0])
    d = LabelDiagnostics(max_lag=1)
    d.update(y)
    expected = p0**2 + (1 - p0) ** 2
    assert d.p_persistence == pytest.approx(expected, abs=0.02)
    assert d.p_majority >= d.p_persistence - 0.015


@settings(max_examples=25, deadline=None)
@given(stay=st.floats(0.3, 0.95), p0=st.floats(0.5, 0.8), seed=st.integers(0, 10_000))
def test_proposition_7_persistent_beats_majority(stay, p0, seed):
    y = markov_labels(20_000, stay, seed=seed, priors=[p0, 1 - p0])
    d = LabelDiagnostics(max_lag=1)
    d.update(y)
    same = np.mean(y[1:] == y[:-1])
    assert d.p_persistence == pytest.approx(same)
    if d.p_persistence > d.p_majority + 0.01:
        # p_per > p_maj (Proposition 7), for the static and the prequential Majority alike.
        assert d.persistent_accuracy > d.p_majority
        assert d.persistent_accuracy > d.majority_accuracy


# -- shuffles --------------------------------------------------------------------------------


def test_within_class_shuffle_keeps_labels_and_moves_rows():
    y = markov_labels(5000, 0.9, k=3, seed=2)
    order = within_class_permutation(y, seed=7)
    assert np.array_equal(y[order], y)
    assert np.array_equal(np.sort(order), np.arange(len(y)))
    assert np.mean(order == np.arange(len(y))) < 0.5
    assert np.array_equal(order, within_class_permutation(y, seed=7))
    assert not np.array_equal(order, within_class_permutation(y, seed=8))


def test_iid_shuffle_removes_persistence():
    y = markov_labels(20_000, 0.9, seed=1)
    z = y[iid_permutation(len(y), seed=3)]
    assert np.mean(z[1:] == z[:-1]) == pytest.approx(0.5, abs=0.02)
    assert np.mean(y[1:] == y[:-1]) > 0.9


def test_permuted_stream_relabels_and_keeps_rows():
    base = open_stream(str(ELEC), n_rows=3000)
    X0 = np.vstack([c.X for c in base.chunks(1000)])
    y0 = np.array(base.classes)[np.concatenate([c.y for c in base.chunks(1000)])]
    for kind in ("iid", "within-class"):
        s = PermutedStream(open_stream(str(ELEC), n_rows=3000), kind, seed=4)
        parts = list(s.chunks(700))
        X = np.vstack([c.X for c in parts])
        y = np.concatenate([c.y for c in parts])
        names = np.array(s.classes)[y]
        assert y[0] == 0 and [c.start for c in parts] == [0, 700, 1400, 2100, 2800]
        rows0 = {(*r, lab) for r, lab in zip(np.nan_to_num(X0).tolist(), y0)}
        rows = {(*r, lab) for r, lab in zip(np.nan_to_num(X).tolist(), names)}
        assert rows == rows0
        if kind == "within-class":
            assert np.array_equal(names, y0)
    with pytest.raises(DistvalError, match="unknown kind 'reverse'"):
        PermutedStream(base, "reverse")


# -- baselines and Algorithm 1 ------------------------------------------------------------------


def test_persistent_learner_has_kappa_per_exactly_zero():
    s = open_stream(str(ELEC), n_rows=5000)
    X = np.vstack([c.X for c in s.chunks(5000)])
    y = np.concatenate([c.y for c in s.chunks(5000)])
    pred = prequential(["persistent"], X, y, s.feature_names)
    per_ok = y == np.r_[0, y[:-1]]
    t = Cumulative(1)
    t.update(y, pred, per_ok)
    m = t.get()
    assert m["kappa_per"][0] == 0.0
    assert m["accuracy"][0] == pytest.approx(np.mean(per_ok))


@settings(max_examples=30, deadline=None)
@given(
    labels=st.lists(st.integers(0, 3), min_size=1, max_size=300),
)
def test_majority_baseline_has_zero_kappa_and_kappa_m(labels):
    # Definition 2: always the majority class M; then p = p_ran = p_maj = P(M) (eqs. 6, 9).
    y = np.array(labels)
    pred = np.full_like(y, np.bincount(y).argmax())
    C = np.zeros((4, 4))
    np.add.at(C, (y, pred), 1)
    m = measures(C, np.array(0.0))
    assert m["kappa"] == 0.0
    assert m["kappa_m"] == 0.0


def algorithm1(y, pred, per_ok, k, alpha):
    """zliobaite2015 Algorithm 1, row by row, one slot; -1 predictions are skipped."""
    p, P, Ph, Pii = 0.0, np.full(k, 1 / k), np.full(k, 1 / k), np.full(k, 1 / k)
    for t in range(len(y)):
        if pred[t] < 0:
            continue
        p = alpha + p * (1 - alpha) if pred[t] == y[t] else p * (1 - alpha)
        for i in range(k):
            if i == y[t]:
                P[i] = alpha + P[i] * (1 - alpha)
                Pii[i] = alpha + Pii[i] * (1 - alpha) if per_ok[t] else Pii[i] * (1 - alpha)
            else:
                P[i] = P[i] * (1 - alpha)
            Ph[i] = alpha + Ph[i] * (1 - alpha) if i == pred[t] else Ph[i] * (1 - alpha)
    p_ran, p_per = float(P @ Ph), float(P @ Pii)
    return {
        "accuracy": p,
        "kappa": (p - p_ran) / (1 - p_ran),
        "kappa_per": (p - p_per) / (1 - p_per),
        "kappa_m": (p - P.max()) / (1 - P.max()),
        "p_per": p_per,
        "p_maj": P.max(),
    }


def test_exponential_estimators_follow_algorithm_1():
    rng = np.random.default_rng(11)
    k, n, slots, alpha = 3, 1500, 4, 0.01
    y = markov_labels(n, 0.8, k=k, seed=4)
    per_ok = y == np.r_[0, y[:-1]]
    pred = np.where(rng.random((slots, n)) < 0.7, y, rng.integers(0, k, (slots, n)))
    pred[rng.random((slots, n)) < 0.3] = -1  # rows a slot does not test
    t = ExponentialEstimators(slots, n_classes=k, decay=alpha)
    for lo, hi in ((0, 1), (1, 400), (400, 1000), (1000, n)):
        t.update(y[lo:hi], pred[:, lo:hi], per_ok[lo:hi])
    got = t.get()
    for s in range(slots):
        ref = algorithm1(y, pred[s], per_ok, k, alpha)
        for key, value in ref.items():
            assert got[key][s] == pytest.approx(value, rel=1e-9, abs=1e-12), key
    kp = np.sqrt(np.maximum(got["kappa"], 0) * np.maximum(got["kappa_per"], 0))
    np.testing.assert_allclose(got["kappa_plus"], kp)


def test_ewma_forgetting_option():
    assert "ewma" in FORGETTING
    t = make_tracker("ewma", 2, fading=0.95)
    assert isinstance(t, ExponentialEstimators) and t.decay == pytest.approx(0.05)
    # Late in a stream Algorithm 1 and the fading factor 1 - alpha agree (start values fade).
    y = markov_labels(3000, 0.7, seed=9)
    pred = np.where(np.random.default_rng(2).random((2, 3000)) < 0.8, y, 1 - y)
    per_ok = y == np.r_[0, y[:-1]]
    fade = make_tracker("fading", 2, fading=0.95)
    t.update(y, pred, per_ok)
    fade.update(y, pred, per_ok)
    np.testing.assert_allclose(t.get()["accuracy"], fade.get()["accuracy"], atol=1e-9)
    np.testing.assert_allclose(t.get()["recall_arith"], fade.get()["recall_arith"], atol=1e-9)
    with pytest.raises(DistvalError):
        make_tracker("ewma", 1, fading=1.0)


def test_ewma_in_an_evaluation():
    from distval.config import RunConfig
    from distval.evaluation import evaluate

    r = evaluate(
        RunConfig(
            stream="sea",
            n_rows=2000,
            learners=("majority", "persistent"),
            n_folds=2,
            forgetting="ewma",
            fading=0.99,
            test_every=1000,
            tests=(),
        )
    )
    folds = r.final_folds()
    assert set(folds["forgetting"]) == {"ewma", "cumulative"}
    assert folds["kappa_per"].notna().all()


# -- wrappers ---------------------------------------------------------------------------------


def persistent_stream(n, stay, seed):
    y = markov_labels(n, stay, seed=seed)
    rng = np.random.default_rng(seed + 1)
    X = (y[:, None] * 0.6 + rng.normal(size=(n, 2))).astype(np.float64)
    return X, y


@pytest.mark.parametrize("base", ["nb", "ht"])
def test_wrappers_exploit_label_persistence(base):
    X, y = persistent_stream(1000, 0.9, seed=1)
    specs = [base, f"tc(base={base!r})", f"ta(base={base!r})"]
    acc = (prequential(specs, X, y, ["a", "b"]) == y).mean(axis=1)
    # Features alone give about 0.62; the previous label is right about 95 % of the time.
    assert acc[1] > acc[0] + 0.15
    assert acc[2] > acc[0] + 0.15
    # Shuffled (iid) copy: no persistence to use, the wrappers stay within noise of the base.
    order = iid_permutation(len(y), seed=2)
    acc_iid = (prequential(specs, X[order], y[order], ["a", "b"]) == y[order]).mean(axis=1)
    assert acc_iid[1] > acc_iid[0] - 0.04
    assert acc_iid[2] > acc_iid[0] - 0.04


def test_temporal_correction_is_equation_3():
    from river import naive_bayes

    tc = TemporalCorrection(naive_bayes.GaussianNB())
    ref = naive_bayes.GaussianNB()
    y = [0, 0, 1, 1, 1, 0, 1, 1]
    xs = [{"a": float(v) + 0.1 * i} for i, v in enumerate(y)]
    for x, c in zip(xs, y):
        tc.learn_one(x, c)
        tc.observe_label(c)
        ref.learn_one(x, c)
    post = ref.predict_proba_one({"a": 0.5})
    # Transitions from the last label 1: 1->1 three times, 1->0 once; priors 3 and 5 of 8.
    trans = {0: (1 + 1) / (4 + 2), 1: (3 + 1) / (4 + 2)}
    prior = {0: (3 + 1) / (8 + 2), 1: (5 + 1) / (8 + 2)}
    raw = {c: post[c] * trans[c] / prior[c] for c in (0, 1)}
    z = sum(raw.values())
    got = tc.predict_proba_one({"a": 0.5})
    for c in (0, 1):
        assert got[c] == pytest.approx(raw[c] / z)


def test_temporally_augmented_feeds_previous_labels():
    from river import tree

    ta = TemporallyAugmented(tree.HoeffdingTreeClassifier(), lags=2)
    assert ta.augment({"a": 1.0}) == {"a": 1.0}
    for c in (2, 0, 1):
        ta.learn_one({"a": 0.0}, c)
        ta.observe_label(c)
    x = ta.augment({"a": 1.0})
    assert x["y-1=1"] == 1.0 and x["y-1=0"] == 0.0 and x["y-2=0"] == 1.0
    assert sum(v for key, v in x.items() if key.startswith("y-")) == 2.0


def test_wrappers_are_learners_by_name():
    assert "tc" in BUILTIN and "ta" in BUILTIN
    spec = parse_learner("ta(base='arf(n_models=2)', lags=2)")
    reps = make_replicas(spec, 0, [0, 1], seed=3)
    assert isinstance(reps[0], TemporallyAugmented) and reps[0].lags == 2
    assert reps[0].model.seed != reps[1].model.seed
    X, y = persistent_stream(300, 0.9, seed=4)
    tc = parse_learner("tc(base='ht')").build()
    for x, c in zip(X[:200].tolist(), y[:200].tolist()):
        tc.learn_one({"a": x[0], "b": x[1]}, c)
        tc.observe_label(c)
    copy = pickle.loads(pickle.dumps(tc))
    probe = [{"a": a, "b": b} for a, b in X[200:].tolist()]
    assert [copy.predict_one(x) for x in probe] == [tc.predict_one(x) for x in probe]
    fresh = tc.clone()
    assert fresh.predict_one(probe[0]) is None
    with pytest.raises(DistvalError, match="unknown learner"):
        parse_learner("tc(base='j48')").build()
    with pytest.raises(DistvalError, match="lags"):
        parse_learner("ta(lags=0)").build()
