"""Mini-batch learners (``sklearn:`` specs, river's ``learn_many`` with ``mini_batch``): each
fold replica equals a plain loop of scikit-learn's (river's) predict / partial_fit
(learn_many) over the same blocks of that fold's rows, the rows and weights taken from the
fold assigner directly, never from the host."""

from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest
from river import linear_model, naive_bayes
from sklearn.linear_model import PassiveAggressiveClassifier, SGDClassifier
from sklearn.metrics import log_loss
from sklearn.naive_bayes import GaussianNB

import distval
from distval.config import RunConfig
from distval.engine.loop import iter_batches, open_config_stream
from distval.errors import DistvalError
from distval.learners import LearnerHost, learner_spec, parse_learner, replica_seed
from distval.learners.schema import Schema
from distval.routing.validation import FoldAssigner

B = 100  # the block size; the engine's batches (70 rows, cut every 130) straddle blocks
OPTS = {"stream": "sea(noise=0.1)", "n_rows": 1200, "n_folds": 3, "seed": 11,
        "batch_size": 70, "test_every": 130}


def stream_rows(cfg: RunConfig) -> tuple[np.ndarray, np.ndarray, list[str]]:
    stream = open_config_stream(cfg)
    chunks = list(stream.chunks(10_000))
    return (np.vstack([c.X for c in chunks]), np.concatenate([c.y for c in chunks]),
            list(stream.feature_names))


def routing(cfg: RunConfig, n: int) -> tuple[np.ndarray, np.ndarray]:
    a = FoldAssigner(cfg.validation, seed=cfg.seed).assign(n)
    return a.weights, a.tested(cfg.prequential)


def sklearn_loop(make, X, y, weights, tested, weighted=True):
    """Each fold: for each block of B stream rows, predict the rows the fold tests with
    ``predict``, then ``partial_fit`` the rows it trains on (classes announced)."""
    k = weights.shape[1]
    preds = np.full((k, len(y)), -1)
    for f in range(k):
        model, fitted = make(f), False
        for lo in range(0, len(y), B):
            test = np.flatnonzero(tested[lo:lo + B, f]) + lo
            if len(test):
                preds[f, test] = model.predict(X[test]) if fitted else 0
            train = np.flatnonzero(weights[lo:lo + B, f]) + lo
            if len(train):
                w = weights[train, f]
                if weighted:
                    model.partial_fit(X[train], y[train], classes=[0, 1],
                                      sample_weight=w.astype(float))
                else:
                    model.partial_fit(np.repeat(X[train], w, axis=0), np.repeat(y[train], w),
                                      classes=[0, 1])
                fitted = True
    return preds


def river_loop(make, X, y, names, weights, tested, weighted=True):
    """The same with river's predict_many / learn_many; an empty answer (no class learned
    yet) predicts class 0."""
    k = weights.shape[1]
    preds = np.full((k, len(y)), -1)
    for f in range(k):
        model = make()
        for lo in range(0, len(y), B):
            test = np.flatnonzero(tested[lo:lo + B, f]) + lo
            if len(test):
                got = np.asarray(model.predict_many(pd.DataFrame(X[test], columns=names)))
                preds[f, test] = got.astype(int) if got.ndim == 1 else 0
            train = np.flatnonzero(weights[lo:lo + B, f]) + lo
            if len(train):
                w = weights[train, f]
                if weighted:
                    model.learn_many(pd.DataFrame(X[train], columns=names),
                                     pd.Series(y[train]), w=pd.Series(w.astype(float)))
                else:
                    model.learn_many(pd.DataFrame(np.repeat(X[train], w, axis=0), columns=names),
                                     pd.Series(np.repeat(y[train], w)))
    return preds


def host_predictions(cfg: RunConfig) -> np.ndarray:
    stream = open_config_stream(cfg)
    k = cfg.n_folds
    host = LearnerHost(cfg.specs, [(0, f) for f in range(k)], stream.feature_names, cfg.seed,
                       Schema.of(stream))
    got = [host.process(b) for b in iter_batches(stream, cfg)]
    return np.concatenate(got, axis=1)


SCHEMES = [("bootstrap", True), ("cv", False), ("split", True)]


@pytest.mark.parametrize(("scheme", "prequential"), SCHEMES)
def test_sgd_replicas_equal_a_plain_sklearn_loop_over_the_same_blocks(scheme, prequential):
    cfg = RunConfig(**OPTS, scheme=scheme, prequential=prequential,
                    learners=[f"sklearn:SGDClassifier(loss='log_loss', mini_batch={B})"])
    X, y, _ = stream_rows(cfg)
    weights, tested = routing(cfg, len(y))
    expected = sklearn_loop(
        lambda f: SGDClassifier(loss="log_loss", random_state=replica_seed(cfg.seed, 0, f)),
        X, y, weights, tested,
    )
    got = host_predictions(cfg)
    assert (expected[tested.T] >= 0).all()
    np.testing.assert_array_equal(got, expected)


@pytest.mark.filterwarnings("ignore::FutureWarning")  # PassiveAggressive: deprecated in 1.8
def test_without_sample_weight_the_rows_are_repeated():
    cfg = RunConfig(**OPTS, learners=[f"sklearn:PassiveAggressiveClassifier(mini_batch={B})"])
    X, y, _ = stream_rows(cfg)
    weights, tested = routing(cfg, len(y))
    assert weights.max() >= 3  # bootstrap: some rows weigh 2, 3, ...
    expected = sklearn_loop(
        lambda f: PassiveAggressiveClassifier(random_state=replica_seed(cfg.seed, 0, f)),
        X, y, weights, tested, weighted=False,
    )
    np.testing.assert_array_equal(host_predictions(cfg), expected)


def test_river_learn_many_equals_a_plain_river_loop_over_the_same_blocks():
    cfg = RunConfig(**OPTS, learners=[f"river.linear_model:LogisticRegression(mini_batch={B})"])
    X, y, names = stream_rows(cfg)
    weights, tested = routing(cfg, len(y))
    expected = river_loop(linear_model.LogisticRegression, X, y, names, weights, tested)
    np.testing.assert_array_equal(host_predictions(cfg), expected)


def test_a_river_learn_many_without_weights_gets_the_rows_repeated():
    cfg = RunConfig(**OPTS, learners=[f"river.naive_bayes:GaussianNB(mini_batch={B})"])
    X, y, names = stream_rows(cfg)
    weights, tested = routing(cfg, len(y))
    expected = river_loop(naive_bayes.GaussianNB, X, y, names, weights, tested, weighted=False)
    assert (expected[:, :B] == 0).all() and expected[:, B:].any()
    np.testing.assert_array_equal(host_predictions(cfg), expected)


def test_every_measure_is_that_of_the_plain_loop_rows():
    """Through the aggregator: each fold's accuracy and row count (cumulative) are those of
    the plain loop's predictions of the rows it tested."""
    cfg = RunConfig(**OPTS, scheme="cv", prequential=False, forgetting="cumulative",
                    learners=[f"sklearn:naive_bayes.GaussianNB(mini_batch={B})", "nb"])
    X, y, _ = stream_rows(cfg)
    weights, tested = routing(cfg, len(y))
    preds = sklearn_loop(lambda f: GaussianNB(), X, y, weights, tested)
    res = distval.evaluate(cfg)
    folds = res.final_folds()
    mine = folds[folds.learner == cfg.labels[0]].sort_values("fold")
    for f, row in enumerate(mine.itertuples()):
        rows = tested[:, f]
        assert row.n == rows.sum()
        assert row.accuracy == pytest.approx(np.mean(preds[f, rows] == y[rows]), abs=1e-12)
    assert len(res.final_tests()) > 0  # tests between the two learners apply unchanged


def test_a_host_pickled_mid_block_goes_on_as_the_one_that_was_not():
    cfg = RunConfig(**OPTS, learners=[f"sklearn:SGDClassifier(mini_batch={B})"])
    stream = open_config_stream(cfg)
    host = LearnerHost(cfg.specs, [(0, 0), (0, 1)], stream.feature_names, cfg.seed,
                       Schema.of(stream))
    batches = list(iter_batches(stream, cfg))
    host.process(batches[0])  # 70 rows: the first block is not complete
    copy = pickle.loads(pickle.dumps(host))
    for b in batches[1:]:
        np.testing.assert_array_equal(host.process(b), copy.process(b))


def test_replicas_get_their_own_seeds():
    from distval.learners import make_replicas

    reps = make_replicas(parse_learner("sklearn:SGDClassifier"), 2, [0, 1], seed=5)
    assert [r.model.random_state for r in reps] == [replica_seed(5, 2, 0), replica_seed(5, 2, 1)]
    assert reps[0].size == 256 and reps[0].weighted


def test_an_estimator_object_is_a_template_and_records_its_text():
    spec = learner_spec(SGDClassifier(loss="log_loss", alpha=1e-3))
    assert spec.text == "sklearn:SGDClassifier(alpha=0.001, loss='log_loss')"
    assert parse_learner(spec.text).build().get_params() == spec.build().get_params()


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("sklearn:RandomForestClassifier", "has no partial_fit"),
        ("sklearn:SGDRegressor", "is not a classifier"),
        ("sklearn:NoSuchThing", "names no scikit-learn estimator"),
        ("ht(mini_batch=50)", "has no learn_many"),
        ("sklearn:SGDClassifier(mini_batch=0)", "must be a positive integer"),
        ("sklearn:SGDClassifier(nonsense=1)", "bad parameter"),
    ],
)
def test_bad_specs_are_refused_before_the_run(text, match):
    with pytest.raises(DistvalError, match=match):
        RunConfig(learners=[text])


def test_a_class_after_the_announced_ones_is_refused():
    cfg = RunConfig(stream="sea", learners=["sklearn:SGDClassifier(mini_batch=10)"], n_folds=2)
    host = LearnerHost(cfg.specs, [(0, 0)], ["x"], seed=1, schema=Schema(("x",)))
    from distval.learners import Batch

    X, ones = np.zeros((10, 1)), np.ones((10, 1), np.int32)
    host.process(Batch(0, X, np.tile([0, 1], 5), ones, ones.astype(bool)))
    with pytest.raises(DistvalError, match="class index 2 appeared"):
        host.process(Batch(10, X, np.full(10, 2), ones, ones.astype(bool)))


@pytest.mark.parametrize(
    ("learners", "match"),
    [
        (["sklearn:SGDClassifier", "nb", "--measure", "log_loss"], "no predict_proba"),
        (["sklearn:RandomForestClassifier", "nb"], "has no partial_fit"),
        (["sklearn:SGDRegressor", "nb"], "is not a classifier"),
    ],
)
def test_the_command_line_refuses_in_one_line(capsys, learners, match):
    from distval.cli import main

    code = main(["run", "--stream", "sea", "--n-rows", "500", "--no-progress",
                 "--backend", "inprocess", "--learners", *learners])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and err[0].startswith("distval: error: ")
    assert match in err[0]


def test_a_probabilistic_measure_gets_sklearns_probabilities():
    cfg = RunConfig(**OPTS, learners=[f"sklearn:SGDClassifier(loss='log_loss', mini_batch={B})"],
                    measure="log_loss", forgetting="cumulative")
    X, y, _ = stream_rows(cfg)
    weights, _ = routing(cfg, len(y))
    loss = []
    for f in range(cfg.n_folds):
        model = SGDClassifier(loss="log_loss", random_state=replica_seed(cfg.seed, 0, f))
        p = np.full((len(y), 2), 0.5)
        for lo in range(0, len(y), B):
            if lo:
                p[lo:lo + B] = model.predict_proba(X[lo:lo + B])
            train = np.flatnonzero(weights[lo:lo + B, f]) + lo
            model.partial_fit(X[train], y[train], classes=[0, 1],
                              sample_weight=weights[train, f].astype(float))
        loss.append(log_loss(y, p, labels=[0, 1]))
    folds = distval.evaluate(cfg).final_folds().sort_values("fold")
    np.testing.assert_allclose(folds.log_loss, loss, rtol=1e-9)


@pytest.mark.ray
def test_ray_gives_the_in_process_numbers(ray_local, assert_same_rows):
    opts = {**OPTS, "n_rows": 2000, "learners": [
        f"sklearn:SGDClassifier(loss='log_loss', mini_batch={B})",
        f"river.linear_model:LogisticRegression(mini_batch={B})"], "measure": "log_loss"}
    local = distval.evaluate(**opts)
    remote = distval.evaluate(**opts, backend="ray", n_actors=2)
    assert_same_rows(local.fold_rows, remote.fold_rows)
    assert_same_rows(local.test_rows, remote.test_rows)


def test_a_block_longer_than_the_stream_and_a_replaced_random_state_are_said():
    """Before: a mini-batch as long as the stream trained nothing without a word, and a
    `sklearn:` spec's random_state was replaced by the replicas' seeds silently."""
    import warnings as _warnings

    import distval
    from distval.errors import DistvalWarning

    with _warnings.catch_warnings(record=True) as caught:
        _warnings.simplefilter("always")
        distval.evaluate(stream="sea", n_rows=400, n_folds=2, test_every=200,
                         learners=("nb", "sklearn:SGDClassifier(random_state=7)"))
    said = [str(w.message) for w in caught if issubclass(w.category, DistvalWarning)]
    assert any("learns in blocks of 256 rows, as many as the stream's 400" in s
               for s in said) is False  # 256 < 400: it learns
    assert any("random_state=7 is replaced by each fold replica's own seed" in s
               for s in said)
    with _warnings.catch_warnings(record=True) as caught:
        _warnings.simplefilter("always")
        distval.evaluate(stream="sea", n_rows=400, n_folds=2, test_every=200,
                         learners=("nb", "sklearn:SGDClassifier(mini_batch=500)"))
    said = [str(w.message) for w in caught if issubclass(w.category, DistvalWarning)]
    assert any("learns in blocks of 500 rows, as many as the stream's 400 or more" in s
               for s in said)
