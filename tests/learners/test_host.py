"""Learner hosts against a plain river loop over the same replicas."""

from __future__ import annotations

import pickle
import time

import numpy as np
import pytest
from river import datasets

from distval.learners import make_replicas, parse_learner
from distval.learners.batch import Batch, to_dicts
from distval.learners.host import LearnerHost
from distval.routing.validation import FoldAssigner, Validation


def sea(n, seed=1):
    rows = list(datasets.synth.SEA(seed=seed, noise=0.1).take(n))
    X = np.array([[x[0], x[1], x[2]] for x, _ in rows])
    y = np.array([int(t) for _, t in rows])
    return X, y


def batches(X, y, validation, size, seed=3):
    a = FoldAssigner(validation, seed=seed)
    for lo in range(0, len(y), size):
        asg = a.assign(len(y[lo : lo + size]))
        yield Batch(
            lo,
            X[lo : lo + size],
            y[lo : lo + size],
            asg.weights,
            asg.tested(validation.prequential),
        )


def plain_loop(spec, learner, folds, X, y, weights, tested, seed):
    """The river loop a user would write: predict if tested, then learn w times/with w."""
    models = make_replicas(spec, learner, folds, seed)
    out = np.full((len(folds), len(y)), -1)
    for j, (f, m) in enumerate(zip(folds, models)):
        for i in range(len(y)):
            x = {"0": X[i, 0], "1": X[i, 1], "2": X[i, 2]}
            if tested[i, f]:
                p = m.predict_one(x)
                out[j, i] = 0 if p is None else p
            if weights[i, f]:
                if spec.name == "ht":
                    m.learn_one(x, int(y[i]), w=int(weights[i, f]))
                else:
                    for _ in range(int(weights[i, f])):
                        m.learn_one(x, int(y[i]))
    return out


def test_host_equals_plain_river_loop():
    X, y = sea(1500)
    v = Validation("bootstrap", 4, prequential=False)
    specs = [parse_learner("ht(grace_period=50)"), parse_learner("nb")]
    slots = [(0, 1), (1, 0), (1, 3), (0, 2)]
    host = LearnerHost(specs, slots, ["0", "1", "2"], seed=9)
    got = np.hstack([host.process(b) for b in batches(X, y, v, 400)])
    a = FoldAssigner(v, seed=3).assign(len(y))
    w, t = a.weights, a.tested(False)
    for j, (learner, fold) in enumerate(slots):
        ref = plain_loop(specs[learner], learner, [fold], X, y, w, t, seed=9)[0]
        assert (got[j] == ref).all()
    assert ((got >= 0) == t[:, [f for _, f in slots]].T).all()


def test_missing_features_are_left_out():
    d = to_dicts(np.array([[np.nan, 2.0], [1.0, 2.0]]), ["a", "b"])
    assert d == [{"b": 2.0}, {"a": 1.0, "b": 2.0}]


def test_host_survives_pickle_and_continues_identically():
    X, y = sea(800)
    v = Validation("cv", 3, prequential=True)
    bs = list(batches(X, y, v, 200))
    host = LearnerHost([parse_learner("ht")], [(0, 0), (0, 2)], ["0", "1", "2"], seed=1)
    for b in bs[:2]:
        host.process(b)
    copy = pickle.loads(pickle.dumps(host))
    for b in bs[2:]:
        assert (host.process(b) == copy.process(b)).all()


def test_parts_rejoined_in_a_new_layout_continue_as_the_plain_river_loop():
    """The Ray engine's rebalancing moves replicas between hosts: split a host into parts,
    join them again in another layout halfway, and every slot still predicts exactly what a
    plain river loop over its replica does."""
    X, y = sea(1200)
    v = Validation("bootstrap", 3, prequential=True)
    specs = [parse_learner("ht(grace_period=50)"), parse_learner("nb")]
    slots = [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)]
    host = LearnerHost(specs, slots, ["0", "1", "2"], seed=4)
    bs = list(batches(X, y, v, 300))
    first = [host.process(b) for b in bs[:2]]
    layout = [[(1, 2), (0, 0)], [(0, 2), (1, 0)], [(0, 1), (1, 1)]]
    parts = [pickle.loads(pickle.dumps(host.part(g))) for g in layout]  # as Ray moves them
    moved = LearnerHost.join([parts[2].part([(1, 1)]), parts[0], parts[1]])
    moved = LearnerHost.join([moved, parts[2].part([(0, 1)])])
    assert sorted(moved.slots) == slots
    rest = [moved.process(b) for b in bs[2:]]
    a = FoldAssigner(v, seed=3).assign(len(y))
    w, t = a.weights, a.tested(True)
    for learner, fold in slots:
        ref = plain_loop(specs[learner], learner, [fold], X, y, w, t, seed=4)[0]
        before = np.hstack([p[slots.index((learner, fold))] for p in first])
        after = np.hstack([p[moved.slots.index((learner, fold))] for p in rest])
        assert (np.r_[before, after] == ref).all()


def test_host_counts_each_replicas_seconds_and_keeps_them_through_parts():
    X, y = sea(600)
    v = Validation("cv", 2, prequential=True)
    host = LearnerHost(
        [parse_learner("ht"), parse_learner("majority")], [(0, 0), (1, 0), (0, 1)],
        ["0", "1", "2"], seed=1,
    )
    t0 = time.perf_counter()
    for b in batches(X, y, v, 200):
        host.process(b)
    elapsed = time.perf_counter() - t0
    assert all(b > 0 for b in host.busy)
    assert sum(host.busy) <= elapsed
    assert host.part([(0, 1), (1, 0)]).busy == [host.busy[2], host.busy[1]]
    joined = LearnerHost.join([host.part([(1, 0)]), host.part([(0, 0), (0, 1)])])
    assert joined.busy == [host.busy[1], host.busy[0], host.busy[2]]


def test_join_refuses_shared_slots_and_a_pickled_host_predicts_as_the_original():
    # Hosts pickled by versions before LearnerHost.busy no longer load (their __setstate__
    # defaults went with the history, commit c7440a3); a host pickled now does.
    host = LearnerHost([parse_learner("nb")], [(0, 0), (0, 1)], ["0", "1", "2"], seed=1)
    with pytest.raises(ValueError, match="share a slot"):
        LearnerHost.join([host, host.part([(0, 1)])])
    with pytest.raises(ValueError, match="one host or more"):
        LearnerHost.join([])
    revived = pickle.loads(pickle.dumps(host))
    X, y = sea(200)
    b = next(batches(X, y, Validation("cv", 2, prequential=True), 200))
    assert (revived.process(b) == host.process(b)).all()
    assert revived.busy[0] > 0
