"""Regression runs: replicas equal plain river loops, fold measures equal scikit-learn on each
fold's rows, the fold tests equal scipy's, Ray equals in-process, bad input gets one line."""

from __future__ import annotations

import inspect

import numpy as np
import pandas as pd
import pytest
from cli_errors import one_line_error
from river import metrics
from scipy import stats as sps
from sklearn.metrics import mean_absolute_error, r2_score, root_mean_squared_error

import distval
from distval.aggregator.numeric import RegressionAggregator
from distval.config import RunConfig
from distval.engine.loop import LocalEvaluation, iter_batches, open_config_stream
from distval.learners.registry import REGRESSORS, parse_learner
from distval.learners.replicas import make_replicas, replica_seed

K = 4


def _plain_loop(spec: str, learner: int, fold: int, batches, names):
    """A plain river loop over one fold's rows: predict the rows it tests, then learn each
    row with its weight: ``learn_one(x, y, w=w)`` where ``learn_one`` declares ``w`` (river's
    trees), else w calls (a pipeline passes w on to LinearRegression's gradient step, which
    is not w updates)."""
    [model] = make_replicas(parse_learner(spec), learner, [fold], seed=1, regression=True)
    takes_w = "w" in inspect.signature(model.learn_one).parameters
    preds = []
    for b in batches:
        for x, y, w, t in zip(b.X.tolist(), b.y.tolist(), b.weights[:, fold].tolist(),
                              b.tested[:, fold].tolist()):
            d = dict(zip(names, x))
            if t:
                preds.append(model.predict_one(d))
            if w and takes_w:
                model.learn_one(d, y, w=w)
            for _ in range(0 if takes_w else w):
                model.learn_one(d, y)
    return np.array(preds)


@pytest.mark.parametrize("scheme", ["bootstrap", "cv"])
def test_each_replica_is_a_plain_river_loop_and_the_fold_measures_are_sklearns(scheme):
    cfg = RunConfig(stream="friedman", n_rows=1500, learners=("htr", "linreg"), n_folds=K,
                    scheme=scheme, test_every=500, forgetting="cumulative")
    assert cfg.task == "regression" and cfg.measure == "rmse"
    stream = open_config_stream(cfg)
    batches = list(iter_batches(stream, cfg))
    local = LocalEvaluation(cfg, stream)
    got = [local.host.process(b) for b in batches]
    for b, p in zip(batches, got):
        snap = local.aggregator.update(b.start, b.y, [(np.arange(2 * K), p)])
    pred = np.concatenate(got, axis=1)
    y = np.concatenate([b.y for b in batches])
    tested = np.concatenate([b.tested for b in batches])
    folds = pd.DataFrame(snap.folds)
    for i, spec in enumerate(cfg.learners):
        for f in range(K):
            plain = _plain_loop(spec, i, f, batches, stream.feature_names)
            rows = tested[:, f]
            np.testing.assert_array_equal(pred[i * K + f, rows], plain)
            assert np.isnan(pred[i * K + f, ~rows]).all()
            row = folds[(folds.learner == spec) & (folds.fold == f)].iloc[0]
            assert row["rmse"] == pytest.approx(root_mean_squared_error(y[rows], plain), 1e-9)
            assert row["mae"] == pytest.approx(mean_absolute_error(y[rows], plain), 1e-9)
            assert row["r2"] == pytest.approx(r2_score(y[rows], plain), 1e-9)
            river_rmse, river_r2 = metrics.RMSE(), metrics.R2()
            for yt, yp in zip(y[rows].tolist(), plain.tolist()):
                river_rmse.update(yt, yp)
                river_r2.update(yt, yp)
            assert row["rmse"] == pytest.approx(river_rmse.get(), 1e-9)
            assert row["r2"] == pytest.approx(river_r2.get(), 1e-9)


def test_fold_tests_and_verdict_follow_scipy_on_the_paired_windows():
    rng = np.random.default_rng(5)
    n, k = 4000, 8
    y = rng.normal(size=n)
    pred = np.concatenate([y + rng.normal(0, s, (k, n)) for s in (0.8, 1.0)])
    pred[rng.random(pred.shape) < 0.2] = np.nan
    agg = RegressionAggregator(["a", "b"], k, test_every=n)
    snap = agg.update(0, y, [(np.arange(2 * k), pred)])
    va, vb = snap.paired["value_a"], snap.paired["value_b"]
    both = ~np.isnan(pred[:k]) & ~np.isnan(pred[k:])
    for f in range(k):  # the paired RMSE: both learners on the rows the fold tested with both
        rows = both[f]
        assert va[f] == pytest.approx(root_mean_squared_error(y[rows], pred[f, rows]), 1e-9)
        assert vb[f] == pytest.approx(root_mean_squared_error(y[rows], pred[k + f, rows]), 1e-9)
    tests = {t: i for i, t in enumerate(snap.tests["test"].tolist())}
    w = sps.wilcoxon(-va, -vb)
    assert snap.tests["pvalue"][tests["wilcoxon"]] == pytest.approx(w.pvalue, rel=1e-9)
    s = sps.binomtest(int((va < vb).sum()), k)
    assert snap.tests["pvalue"][tests["sign"]] == pytest.approx(s.pvalue, rel=1e-9)
    sign = np.sign(np.abs(y - pred[k:]) - np.abs(y - pred[:k]))
    some = both.any(axis=0)  # rows some fold tested with both learners
    per_row = np.where(both, sign, 0.0).sum(axis=0)[some] / both.sum(axis=0)[some]
    assert snap.verdicts["rows"][0] == some.sum()
    assert snap.verdicts["mean"][0] == pytest.approx(per_row.mean(), rel=1e-12)
    assert snap.verdicts["decision"][0] == "A" and "a better than b" in snap.verdicts["line"][0]


@pytest.mark.parametrize("warm_up_batches", [0, 3])  # 0: the actors do every batch
def test_ray_gives_the_in_process_numbers(ray_local, warm_up_batches):
    from distval.ray_backend.engine import RayRun
    from distval.results import EvaluationResult

    kw = dict(stream="planes2d", n_rows=2000, learners=("htr", "linreg"), n_folds=3,
              test_every=500, batch_size=250)
    here = distval.evaluate(**kw)
    cfg = RunConfig(**kw)
    there = EvaluationResult(cfg)
    rows = {"driver": 0, "actors": 0}
    for step in RayRun(cfg, open_config_stream(cfg), n_actors=2,
                       warm_up_batches=warm_up_batches).steps():
        rows[step.where] += step.rows
        if step.snapshot is not None:
            there.add(step.snapshot)
    assert rows["actors"] == 2000 - 250 * warm_up_batches
    pd.testing.assert_frame_equal(here.folds(), there.folds())
    pd.testing.assert_frame_equal(here.tests(), there.tests())
    pd.testing.assert_frame_equal(here.verdicts(), there.verdicts())


def test_the_result_directory_holds_the_tables(tmp_path):
    res = distval.evaluate(stream="trump", learners=("linreg", "river.linear_model:"
                           "BayesianLinearRegression"), n_folds=3, test_every=500,
                           output_dir=tmp_path / "r")
    back = pd.read_parquet(tmp_path / "r" / "folds.parquet")
    pd.testing.assert_frame_equal(back, res.folds())
    assert res.summary()["learners"]["linreg"]["adwin"]["rmse"]["mean"] > 0


RUN = ["run", "--backend", "inprocess", "--no-progress", "--n-rows", "200"]


def test_bad_input_gets_one_line(tmp_path, capsys):
    assert "mix regressors (htr)" in one_line_error(capsys, *RUN, "--learners", "htr", "nb")
    (tmp_path / "t.csv").write_text("a,b,y\n1,2,x\n2,3,z\n")
    line = one_line_error(capsys, *RUN, "--stream", str(tmp_path / "t.csv"), "--learners", "htr",
                     "--task", "regression")
    assert "not numbers" in line
    (tmp_path / "n.csv").write_text("a,b,y\n1,2,3.5\n2,3,\n3,4,5\n")
    line = one_line_error(capsys, *RUN, "--stream", str(tmp_path / "n.csv"), "--learners", "htr",
                     "--task", "regression")
    assert "row 2" in line and "finite target" in line
    line = one_line_error(capsys, *RUN, "--learners", "ht", "--task", "regression")
    assert "ht is a classifier" in line


def test_a_numeric_class_label_points_to_task_regression(tmp_path, capsys):
    rows = "\n".join(f"{i},{i * 0.37:.3f}" for i in range(300))
    (tmp_path / "c.csv").write_text("a,target\n" + rows + "\n")
    line = one_line_error(capsys, *RUN, "--stream", str(tmp_path / "c.csv"), "--learners", "nb",
                     "--output", str(tmp_path / "o"))
    assert "--task regression" in line


@pytest.mark.parametrize("name", sorted(REGRESSORS))
def test_every_builtin_regressor_learns_and_predicts_a_number(name):
    from river.datasets import synth

    model = parse_learner(name).build()
    rmse = metrics.RMSE()
    for x, y in synth.Friedman(seed=1).take(2000):
        rmse.update(y, model.predict_one(x))
        model.learn_one(x, y)
    assert isinstance(model.predict_one(x), float)
    assert rmse.get() < float(np.std([y for _, y in synth.Friedman(seed=1).take(2000)]))


def test_replica_seeds_differ_per_fold():
    reps = make_replicas(parse_learner("arfr(n_models=2)"), 0, [0, 1], seed=1, regression=True)
    assert [r.seed for r in reps] == [replica_seed(1, 0, 0), replica_seed(1, 0, 1)]


def test_a_suite_ranks_regressors_on_rmse_lowest_first(tmp_path):
    from scipy.stats import rankdata

    from distval.experiments.suite import suite

    res = suite(["friedman", "planes2d"], learners=("htr", "linreg"), n_rows=600, n_folds=2,
                test_every=300, output_dir=tmp_path, figures=False)
    rmse = np.array([[res.summaries[s]["learners"][lab]["cumulative"]["rmse"]["mean"]
                      for lab in ("htr", "linreg")] for s in ("friedman", "planes2d")])
    want = rankdata(rmse, axis=1).mean(axis=0)
    assert list(res.cross.average_ranks.values()) == pytest.approx(want.tolist())
    best = ["htr", "linreg"][int(np.argmin(rmse[1]))]
    row = next(r for r in res.to_markdown().splitlines() if r.startswith("| planes2d"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    # four significant digits, as every RMSE prints (Task.short_cell)
    assert cells[1 + ["htr", "linreg"].index(best)].startswith(f"**{rmse[1].min():.4g}")
    md = res.to_markdown()
    assert "the lowest value: an error" in md and "in the target's units" in md


def test_the_shipped_trump_stream_is_rivers_trump_approval():
    from river import datasets

    from distval.streams.regression import open_regression_stream

    s = open_regression_stream("trump")
    chunk = next(s.chunks(5000))
    rows = list(datasets.TrumpApproval())
    assert s.n_rows == len(rows) == 1001
    np.testing.assert_array_equal(chunk.y, [y for _, y in rows])
    np.testing.assert_array_equal(chunk.X, [[x[f] for f in s.feature_names] for x, _ in rows])
