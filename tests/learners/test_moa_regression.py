"""MOA regressors in distval's fold replicas, against MOA itself driven through the JVM."""

from __future__ import annotations

import numpy as np
import pytest

import distval
from distval.config import RunConfig
from distval.engine.loop import LocalEvaluation, iter_batches, open_config_stream
from distval.errors import DistvalError
from distval.learners.replicas import replica_seed

pytestmark = pytest.mark.moa

K = 3


def _moa_loop(cli: str, seed: int, header, batches, fold: int) -> np.ndarray:
    """A plain MOA loop over one fold's rows: MOA's own object made from the CLI text,
    seeded, predicting the rows the fold tests (its first vote) and training on each row
    with the fold's weight."""
    import jpype

    cls = jpype.JClass("moa.options.ClassOption")
    classifier = jpype.JClass("moa.classifiers.Classifier")
    dense = jpype.JClass("com.yahoo.labs.samoa.instances.DenseInstance")
    model = cls.cliStringToObject(cli, classifier, None)
    model.prepareForUse()
    if model.isRandomizable():
        model.setRandomSeed(seed)
    model.resetLearning()
    model.setModelContext(header)
    preds = []
    for b in batches:
        for x, y, w, t in zip(b.X.tolist(), b.y.tolist(), b.weights[:, fold].tolist(),
                              b.tested[:, fold].tolist()):
            inst = dense(1.0, jpype.JArray(jpype.JDouble)([*x, y]))
            inst.setDataset(header)
            if t:
                votes = list(model.getVotesForInstance(inst))
                preds.append(votes[0] if votes else 0.0)
            if w:
                inst.setWeight(float(w))
                model.trainOnInstance(inst)
    return np.array(preds)


def _moa_evaluator(y: np.ndarray, pred: np.ndarray, header) -> dict[str, float]:
    """MOA's BasicRegressionPerformanceEvaluator fed (target, prediction) pairs."""
    import jpype

    evaluator = jpype.JClass("moa.evaluation.BasicRegressionPerformanceEvaluator")()
    dense = jpype.JClass("com.yahoo.labs.samoa.instances.DenseInstance")
    example = jpype.JClass("moa.core.InstanceExample")
    d = header.numAttributes() - 1
    for yt, yp in zip(y.tolist(), pred.tolist()):
        inst = dense(1.0, jpype.JArray(jpype.JDouble)([0.0] * d + [yt]))
        inst.setDataset(header)
        evaluator.addResult(example(inst), jpype.JArray(jpype.JDouble)([yp]))
    return {str(m.getName()): float(m.getValue()) for m in evaluator.getPerformanceMeasurements()}


@pytest.mark.parametrize("cli", ["trees.FIMTDD", "rules.AMRulesRegressor"])
def test_a_moa_regressor_replica_is_moa_and_its_measures_are_moas_evaluators(cli):
    cfg = RunConfig(stream="friedman", n_rows=1200, learners=(f"moa:{cli}",), n_folds=K,
                    task="regression", test_every=400, forgetting="cumulative")
    stream = open_config_stream(cfg)
    batches = list(iter_batches(stream, cfg))
    local = LocalEvaluation(cfg, stream)
    got = [local.host.process(b) for b in batches]
    for b, p in zip(batches, got):
        snap = local.aggregator.update(b.start, b.y, [(np.arange(K), p)])
    pred = np.concatenate(got, axis=1)
    y = np.concatenate([b.y for b in batches])
    tested = np.concatenate([b.tested for b in batches])
    header = local.host.moa._header_obj
    for f in range(K):
        plain = _moa_loop(cli, replica_seed(cfg.seed, 0, f), header, batches, f)
        np.testing.assert_array_equal(pred[f, tested[:, f]], plain)
        moa = _moa_evaluator(y[tested[:, f]], plain, header)
        assert snap.folds["mae"][f] == pytest.approx(moa["mean absolute error"], rel=1e-9)
        assert snap.folds["rmse"][f] == pytest.approx(moa["root mean squared error"], rel=1e-9)


def test_a_moa_classifier_in_a_regression_run_is_refused():
    with pytest.raises(DistvalError, match="is not a MOA regressor"):
        distval.evaluate(stream="friedman", n_rows=200, learners=("moa:trees.HoeffdingTree",),
                         task="regression", n_folds=2)
