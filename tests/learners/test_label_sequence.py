"""The label-sequence protocol (issue 16.2): learners that use previous labels of the stream
observe every label in stream order, without training on it (zliobaite2015 §4.4, Table 5)."""

from __future__ import annotations

import numpy as np
import pyarrow.parquet as pq
import pytest

from distval.config import RunConfig
from distval.evaluation import evaluate
from distval.learners import parse_learner
from distval.learners.batch import Batch
from distval.learners.host import LearnerHost
from distval.routing.validation import FoldAssigner, Validation
from distval.streams import bundled_path

ELEC = bundled_path("elec2")

SCHEMES = ("cv", "split", "bootstrap")
N = 4000


def persistence_hits(labels: list) -> np.ndarray:
    """Row t is a hit when its label equals the one before; row 0 is compared with the first
    class, which is its own label (class indices follow first appearance)."""
    return np.array([True] + [a == b for a, b in zip(labels[1:], labels[:-1])])


@pytest.fixture(scope="module")
def elec_labels() -> list:
    table = pq.read_table(ELEC)
    return table.column(table.num_columns - 1).to_pylist()[:N]


@pytest.mark.parametrize("scheme", SCHEMES)
def test_persistent_has_kappa_per_zero_and_accuracy_p_t_under_every_scheme(scheme, elec_labels):
    cfg = RunConfig(
        stream=str(ELEC), n_rows=N, learners=("persistent",), scheme=scheme, n_folds=5,
        forgetting="cumulative", test_every=1000, batch_size=333, tests=(),
    )
    folds = evaluate(cfg).final_folds()
    p_t = persistence_hits(elec_labels).mean()
    assert len(folds) == 5
    assert (folds["kappa_per"] == 0.0).all()
    np.testing.assert_allclose(folds["accuracy"], p_t, rtol=0, atol=1e-15)


@pytest.mark.parametrize("scheme", SCHEMES)
def test_persistent_matches_the_stream_baseline_without_prequential(scheme):
    cfg = RunConfig(
        stream=str(ELEC), n_rows=N, learners=("persistent",), scheme=scheme, n_folds=4,
        prequential=False, forgetting="cumulative", test_every=1000, tests=(),
    )
    folds = evaluate(cfg).final_folds()
    assert (folds["kappa_per"] == 0.0).all()
    np.testing.assert_array_equal(folds["accuracy"], folds["p_per"])


def routed(y, scheme, prequential, k=3, seed=2):
    a = FoldAssigner(Validation(scheme, n_folds=k), seed=seed).assign(len(y))
    X = np.arange(len(y), dtype=np.float64)[:, None]
    return Batch(0, X, y, a.weights, a.tested(prequential))


def markov(n, seed):
    rng = np.random.default_rng(seed)
    y = np.zeros(n, dtype=np.int64)
    for t in range(1, n):
        y[t] = y[t - 1] if rng.random() < 0.8 else rng.integers(0, 3)
    return y


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("prequential", [True, False])
def test_a_user_learner_observes_every_label_and_trains_with_the_scheme_weights(
    scheme, prequential
):
    y = markov(500, seed=1)
    batch = routed(y, scheme, prequential)
    host = LearnerHost([parse_learner("label_recorder:Recorder")], [(0, f) for f in range(3)],
                       ["i"], seed=1)
    half = 217  # two batches: the label sequence carries across batch boundaries
    preds = np.hstack([
        host.process(Batch(0, batch.X[:half], y[:half], batch.weights[:half],
                           batch.tested[:half])),
        host.process(Batch(half, batch.X[half:], y[half:], batch.weights[half:],
                           batch.tested[half:])),
    ])
    prev = np.r_[0, y[:-1]]
    for f, model in enumerate(host.models):
        assert model.observed == y.tolist()
        w = batch.weights[:, f]
        assert model.learned == [(float(i), int(y[i]), int(w[i])) for i in np.flatnonzero(w)]
        tested = batch.tested[:, f]
        np.testing.assert_array_equal(preds[f][tested], prev[tested])
        assert (preds[f][~tested] == -1).all()


@pytest.mark.parametrize("scheme", SCHEMES)
def test_temporal_wrappers_condition_on_the_stream_and_train_with_the_scheme_weights(scheme):
    y = markov(400, seed=3)
    batch = routed(y, scheme, prequential=True)
    specs = [parse_learner("tc(base='nb')"), parse_learner("ta(base='nb', lags=3)")]
    slots = [(i, f) for i in range(2) for f in range(3)]
    host = LearnerHost(specs, slots, ["i"], seed=1)
    host.process(batch)
    for (learner, f), model in zip(slots, host.models):
        w = batch.weights[:, f].astype(np.float64)
        if learner == 0:
            assert model._prev == y[-1]
            # Priors: the weight of every trained row of the class; transitions: that weight
            # at (previous stream label, label), from row 1 on.
            for c in range(3):
                assert model._prior.get(c, 0.0) == pytest.approx(w[y == c].sum())
                for d in range(3):
                    on = (y[:-1] == c) & (y[1:] == d)
                    got = model._trans.get(c, {}).get(d, 0.0)
                    assert got == pytest.approx(w[1:][on].sum())
        else:
            assert model._history == y[-3:][::-1].tolist()


def test_persistent_inside_a_wrapper_sees_the_labels_too():
    y = markov(200, seed=5)
    host = LearnerHost([parse_learner("tc(base='persistent')")], [(0, 0)], ["i"], seed=1)
    host.process(routed(y, "bootstrap", True, k=2))
    assert host.models[0].model.predict_one({}) == y[-1]


def test_persistent_kappa_per_is_exactly_0_except_under_ewma_as_the_protocol_says():
    """Issue 30 item 7: the protocol's docstring said Persistent's kappa-per is exactly 0
    under every scheme; under ``--forgetting ewma`` (Algorithm 1's estimate of P(T) as the
    baseline) it is not, and the docstring now says so."""
    import distval.learners.labels as labels

    values = {}
    for forgetting in ("cumulative", "window", "adwin", "ewma"):
        res = evaluate(
            stream="elec2", learners=("persistent",), n_rows=4000, n_folds=4,
            forgetting=forgetting, test_every=4000,
        )  # fmt: skip
        final = res.final_folds()
        values[forgetting] = final[final["forgetting"] == forgetting]["kappa_per"].to_numpy()
    for forgetting in ("cumulative", "window", "adwin"):
        assert (values[forgetting] == 0).all(), forgetting
    assert (values["ewma"] != 0).all()
    doc = " ".join(labels.__doc__.split())
    assert "exactly 0 under ``cumulative``, ``window`` and ``adwin``" in doc
    assert "Under ``--forgetting ewma`` it is close to 0 but not 0" in doc
