"""Fold routing: the structural properties of docs/methods.md (validation schemes) on 10^5 rows."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from distval.errors import DistvalError
from distval.routing.validation import FoldAssigner, Validation

N, K = 100_000, 10


def assign_all(scheme, prequential=False, fold_choice="random", seed=3, n=N, k=K, sizes=None):
    a = FoldAssigner(Validation(scheme, k, prequential, fold_choice), seed=seed)
    sizes = sizes or [n]
    parts = [a.assign(s) for s in sizes]
    w = np.vstack([p.weights for p in parts])
    t = np.vstack([p.tested(prequential) for p in parts])
    return w, t


def test_cv_tests_one_fold_and_trains_the_others():
    w, t = assign_all("cv")
    assert (t.sum(axis=1) == 1).all()
    assert (w.sum(axis=1) == K - 1).all()
    assert (w[t] == 0).all()  # the tested fold never trains on the row
    counts = t.sum(axis=0)
    assert stats.chisquare(counts).pvalue > 1e-4  # fold chosen uniformly


def test_split_trains_one_fold_and_tests_the_others():
    w, t = assign_all("split")
    assert (t.sum(axis=1) == K - 1).all()
    assert (w.sum(axis=1) == 1).all()
    assert (w[t] == 0).all()
    assert stats.chisquare(w.sum(axis=0)).pvalue > 1e-4


def test_bootstrap_weights_are_poisson_one():
    w, t = assign_all("bootstrap")
    m = w.size
    assert abs(w.mean() - 1.0) < 4 / math.sqrt(m)  # Poisson(1): sd 1
    p0 = math.exp(-1)
    assert abs((w == 0).mean() - p0) < 4 * math.sqrt(p0 * (1 - p0) / m)
    assert (t == (w == 0)).all()
    assert abs((w == 2).mean() - p0 / 2) < 4 * math.sqrt(p0 / 2 / m)


@pytest.mark.parametrize("scheme", ["cv", "split", "bootstrap"])
def test_prequential_tests_every_fold_with_the_same_training(scheme):
    w_pre, t_pre = assign_all(scheme, prequential=True, n=5000)
    w_non, _ = assign_all(scheme, prequential=False, n=5000)
    assert t_pre.all()
    assert (w_pre == w_non).all()


@pytest.mark.parametrize("scheme", ["cv", "split"])
def test_round_robin_is_row_index_mod_k(scheme):
    w, t = assign_all(scheme, fold_choice="round-robin", n=1000, seed=None)
    special = t if scheme == "cv" else w.astype(bool)
    assert (np.argmax(special, axis=1) == np.arange(1000) % K).all()


@settings(max_examples=40, deadline=None)
@given(
    scheme=st.sampled_from(["cv", "split", "bootstrap"]),
    sizes=st.lists(st.integers(1, 300), min_size=1, max_size=8),
)
def test_same_seed_same_assignment_for_any_batch_size(scheme, sizes):
    n = sum(sizes)
    w1, t1 = assign_all(scheme, n=n, sizes=[n], seed=11)
    w2, t2 = assign_all(scheme, n=n, sizes=sizes, seed=11)
    assert (w1 == w2).all() and (t1 == t2).all()


def test_different_seeds_differ():
    w1, _ = assign_all("bootstrap", n=1000, seed=1)
    w2, _ = assign_all("bootstrap", n=1000, seed=2)
    assert (w1 != w2).any()


def test_assigner_survives_pickle_mid_stream():
    a = FoldAssigner(Validation("bootstrap", 5), seed=4)
    a.assign(123)
    b = pickle.loads(pickle.dumps(a))
    assert b.position == 123
    assert (a.assign(50).weights == b.assign(50).weights).all()
    v = Validation("split", 3, False, "round-robin")
    assert pickle.loads(pickle.dumps(v)) == v


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n_folds": 1}, "at least 2 folds"),
        ({"n_folds": 2.5}, "integer"),
        ({"scheme": "holdout"}, "unknown validation scheme"),
        ({"fold_choice": "first"}, "unknown fold choice"),
    ],
)
def test_bad_validation(kwargs, message):
    with pytest.raises(DistvalError, match=message):
        Validation(**kwargs)
