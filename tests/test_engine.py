"""The in-process engine end to end: determinism, batch-size independence, files on disk."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from sklearn.metrics import accuracy_score

import distval
from distval.config import RunConfig
from distval.engine.loop import Fresh, Step, iter_batches, open_config_stream
from distval.engine.run import Run
from distval.errors import DistvalError

SMALL = {
    "stream": "sea(noise=0.1)",
    "n_rows": 3000,
    "learners": ("ht", "persistent"),
    "n_folds": 3,
    "test_every": 1000,
}


def test_batches_cut_at_test_points_and_route_like_one_assigner():
    cfg = RunConfig(**SMALL | {"batch_size": 700})
    batches = list(iter_batches(open_config_stream(cfg), cfg))
    ends = [b.start + len(b) for b in batches]
    assert {1000, 2000, 3000} <= set(ends)
    assert [b.start for b in batches] == [0, *ends[:-1]]
    one = list(iter_batches(open_config_stream(cfg), RunConfig(**SMALL | {"batch_size": 3000})))
    assert (np.vstack([b.weights for b in batches]) == np.vstack([b.weights for b in one])).all()


def test_a_share_of_the_fresh_state_built_apart_predicts_as_that_share_of_the_whole():
    """``Fresh.host(slots)`` (what a Ray actor builds for itself) against the same slots
    of the whole fresh host (what the in-process run builds), after the same batches:
    equal predictions and probabilities, seeded forests included (each replica's seed
    comes from its slot alone, not from the slots built beside it)."""
    cfg = RunConfig(**SMALL | {"learners": ("arf(n_models=3)", "nb"), "n_folds": 4,
                               "scheme": "bootstrap", "measure": "log_loss", "n_rows": 1000,
                               "batch_size": 250})
    stream = open_config_stream(cfg)
    fresh = Fresh.of(cfg, stream)
    whole = fresh.host()
    share = [(0, 3), (0, 1), (1, 2)]
    apart = fresh.host(share)
    at = [whole.slots.index(s) for s in share]
    for batch in iter_batches(stream, cfg):
        (labels, proba), (labels_apart, proba_apart) = whole.process(batch), apart.process(batch)
        np.testing.assert_array_equal(labels[at], labels_apart)
        np.testing.assert_array_equal(proba[at], proba_apart)
    assert len(np.unique(labels[at], axis=0)) > 1  # the forests' replicas differ


@pytest.mark.parametrize("scheme", ["cv", "split", "bootstrap"])
@pytest.mark.parametrize("prequential", [True, False])
def test_results_do_not_depend_on_batch_size(scheme, prequential, assert_same_rows):
    opts = SMALL | {"scheme": scheme, "prequential": prequential}
    a = distval.evaluate(**opts, batch_size=1000)
    b = distval.evaluate(**opts, batch_size=128)
    assert_same_rows(a.fold_rows, b.fold_rows, exact=False)  # fading sums: rounding only
    assert_same_rows(a.test_rows, b.test_rows, exact=False)


def test_same_seed_same_results_other_seed_other_results(assert_same_rows):
    a = distval.evaluate(**SMALL, seed=4)
    b = distval.evaluate(**SMALL, seed=4)
    c = distval.evaluate(**SMALL, seed=5)
    assert_same_rows(a.fold_rows, b.fold_rows)
    assert not a.final_folds()["accuracy"].equals(c.final_folds()["accuracy"])


def test_cumulative_accuracy_equals_a_direct_recount():
    """Rerun the same replicas by hand (river loop) and recount accuracy with scikit-learn."""
    from distval.learners import make_replicas, parse_learner
    from distval.learners.batch import to_dicts

    cfg = RunConfig(**SMALL | {"scheme": "cv", "prequential": False})
    res = distval.evaluate(cfg)
    stream = open_config_stream(cfg)
    reps = make_replicas(parse_learner("ht"), 0, range(3), cfg.seed)
    truth, preds = [[] for _ in range(3)], [[] for _ in range(3)]
    for b in iter_batches(stream, cfg):
        for x, y, w, t in zip(
            to_dicts(b.X, stream.feature_names), b.y.tolist(), b.weights, b.tested
        ):
            for f, m in enumerate(reps):
                if t[f]:
                    p = m.predict_one(x)
                    truth[f].append(y)
                    preds[f].append(0 if p is None else p)
                if w[f]:
                    m.learn_one(x, y, w=int(w[f]))
    got = res.final_folds().query("learner == 'ht' and forgetting == 'cumulative'")
    expect = [accuracy_score(truth[f], preds[f]) for f in range(3)]
    assert got.sort_values("fold")["accuracy"].tolist() == pytest.approx(expect)
    assert got["n"].sum() == 3000  # non-prequential cv: every row tested by exactly one fold


def test_output_directory_holds_what_was_returned(tmp_path):
    out = tmp_path / "run"
    res = distval.evaluate(**SMALL, output_dir=out)
    assert sorted(p.name for p in out.iterdir()) == [
        "config.json",
        "cost.parquet",
        "folds.parquet",
        "paired.parquet",
        "q.parquet",
        "summary.json",
        "summary.md",
        "tests.parquet",
        "verdicts.parquet",
    ]
    pd.testing.assert_frame_equal(pq.read_table(out / "q.parquet").to_pandas(), res.q())
    for name, table in (("paired", res.paired()), ("verdicts", res.verdicts())):
        pd.testing.assert_frame_equal(pq.read_table(out / f"{name}.parquet").to_pandas(), table)
    folds = pq.read_table(out / "folds.parquet").to_pandas()
    pd.testing.assert_frame_equal(folds, res.folds())
    assert sorted(folds["position"].unique()) == [1000, 2000, 3000]
    summary = json.loads((out / "summary.json").read_text())
    ht = res.final_folds().query("learner == 'ht' and forgetting == 'cumulative'")["accuracy"]
    assert summary["learners"]["ht"]["cumulative"]["accuracy"]["mean"] == pytest.approx(ht.mean())
    assert "| ht |" in (out / "summary.md").read_text()
    with pytest.raises(DistvalError, match="not empty"):
        distval.evaluate(**SMALL, output_dir=out)
    distval.evaluate(**SMALL, output_dir=out, overwrite=True)


class Boom(Exception):
    pass


def test_an_interrupted_run_keeps_what_it_computed(tmp_path, monkeypatch):
    """A failure mid-stream still leaves the time series so far and a summary on disk."""
    from distval.learners import host

    calls = {"n": 0}
    original = host.LearnerHost.process

    def flaky(self, batch):
        calls["n"] += 1
        if calls["n"] == 4:
            raise KeyboardInterrupt
        return original(self, batch)

    monkeypatch.setattr(host.LearnerHost, "process", flaky)
    out = tmp_path / "run"
    with pytest.raises(KeyboardInterrupt):
        distval.evaluate(**SMALL, batch_size=500, output_dir=out)
    folds = pq.read_table(out / "folds.parquet").to_pandas()
    assert sorted(folds["position"].unique()) == [1000]
    assert json.loads((out / "summary.json").read_text())["interrupted"] is True


def test_config_or_options_not_both():
    with pytest.raises(DistvalError, match="not both"):
        distval.evaluate(RunConfig(), n_folds=3)


def test_drift_events_and_q_statistic_reach_the_files(tmp_path):
    out = tmp_path / "drift"
    res = distval.evaluate(
        stream="sea",
        n_rows=4000,
        learners=("majority", "persistent"),
        n_folds=2,
        test_every=1000,
        drift=True,
        ph_lambda=1.0,
        ph_delta=0.0,
        output_dir=out,
    )
    events = pq.read_table(out / "events.parquet").to_pandas()
    pd.testing.assert_frame_equal(events, res.events())
    assert len(events) and set(events["detector"]) <= {
        "ph_cumulative",
        "ph_window",
        "ph_fading",
        "ph_ratio_window",
        "ph_ratio_fading",
    }
    qs = pq.read_table(out / "q.parquet").to_pandas()
    q = qs[qs.forgetting == "cumulative"].iloc[-1]
    m = res.final_folds().query("forgetting == 'cumulative'")
    loss = {lab: ((1 - g["accuracy"]) * g["n"]).sum() for lab, g in m.groupby("learner")}
    assert q["q"] == pytest.approx(np.log(loss["majority"] / loss["persistent"]))
    assert (q["errors_a"], q["errors_b"]) == pytest.approx((loss["majority"], loss["persistent"]))


def test_auto_backend_keeps_small_jobs_in_process(tmp_path):
    distval.evaluate(**SMALL, backend="auto", output_dir=tmp_path / "a")
    assert json.loads((tmp_path / "a" / "config.json").read_text())["backend"] == "auto"
    summary = json.loads((tmp_path / "a" / "summary.json").read_text())
    assert summary["evaluated_by"] == {"driver": SMALL["n_rows"]}


def test_the_live_status_keeps_the_leader_and_the_verdict_on_an_80_column_terminal():
    from tqdm import tqdm

    from distval.engine.run import _BAR_FORMAT, live_status, status_width

    res = distval.evaluate(stream="sea", n_rows=4000, learners=("nb", "majority"), n_folds=3,
                           test_every=1000)
    width = status_width(80, "sea", 4000)
    status = live_status(res.final, res.config, width=width)
    line = tqdm.format_meter(4000, 4000, 1.0, ncols=80, prefix="sea", bar_format=_BAR_FORMAT,
                             postfix=status)
    assert len(line) <= 80
    verdict = res.summary()["verdicts"][0]
    # the verdict first (nb beats the majority class on SEA), the leader first after it
    assert verdict["decision"] == "A" and status.startswith("nb>majority +"), status


def _resumed_rows(cfg, at):
    """(every fold row of a run never stopped, those of the same run resumed from its
    checkpoint number ``at``, pickled as on disk), in-process."""
    import pickle

    from distval.columns import rows_of
    from distval.engine.loop import iter_inprocess

    whole, saved = [], []
    for step in iter_inprocess(cfg, open_config_stream(cfg), checkpoint_seconds=0.0):
        if step.checkpoint is not None:
            saved.append((len(whole), pickle.dumps(step.checkpoint, protocol=4)))
        if step.snapshot is not None:
            whole.append(rows_of(step.snapshot.folds))
    n, data = saved[at]
    checkpoint = pickle.loads(data)
    after = [rows_of(s.snapshot.folds)
             for s in iter_inprocess(cfg, open_config_stream(cfg), resume=checkpoint)
             if s.snapshot is not None]
    flat = [r for rows in whole for r in rows]
    return flat, [r for rows in whole[:n] + after for r in rows], checkpoint.rows


# delayed and partial labels: their schedule and the rows waiting are part of the state
@pytest.mark.parametrize(
    "opts",
    [{}, {"scheme": "cv", "prequential": False},
     {"delay": 350, "label_probability": 0.7, "measure": "log_loss"},
     pytest.param({"learners": ("moa:trees.HoeffdingTree", "moa:bayes.NaiveBayes")},
                  marks=pytest.mark.moa)],
)
def test_a_checkpoint_resumes_to_the_rows_of_the_run_never_stopped(opts, assert_same_rows):
    """A checkpoint (pickled as in a results directory) holds the state after its rows:
    the run resumed from it gives every later row of the uninterrupted run. (MOA: the JVM
    replicas, checkpointed between the overlapped host and aggregator threads.)"""
    cfg = RunConfig(**SMALL | {"batch_size": 250, "test_every": 500} | opts)
    whole, resumed, rows = _resumed_rows(cfg, at=5)
    assert 0 < rows < 3000 and rows % 250 == 0
    assert_same_rows(whole, resumed)


def test_the_progress_line_shows_the_phase_the_backend_marked():
    cfg = RunConfig(stream="sea", n_rows=300, learners=("nb",), n_folds=2, test_every=100)
    run = Run(cfg, open_config_stream(cfg), backend="ray")
    assert "(starting Ray)" in run.progress_line(1.0)  # before the backend marks anything
    for event, phase in [("ray_init_start", "starting Ray"), ("ray_init_end", "actors starting"),
                         ("hand_over", "handing over"), ("first_actor_step", "actors")]:
        run.timeline.mark(event)
        run.feed(Step(0, None))
        assert run.progress_line(1.0).endswith(f"rows/s ({phase})")
    run.timeline.mark("shutdown_end")
    run.feed(Step(0, None))
    assert run.progress_line(1.0).endswith("rows/s")


def test_a_plain_progress_line_has_its_total_from_the_start_and_the_time_left(capsys):
    """Without a terminal: the first line comes with the first rows evaluated (not after
    the period of the later lines) and names the total; lines give the time left at the
    speed so far (2,000 rows to go at 1,000 rows in 4 s: 8 s); a Ray run whose actors
    evaluate without start marks (a resumed one) no longer says "starting Ray"."""
    cfg = RunConfig(stream="sea", n_rows=3000, learners=("nb",), n_folds=2, test_every=100)
    run = Run(cfg, open_config_stream(cfg), progress="lines", backend="ray")
    assert capsys.readouterr().err == ""  # nothing before a row: an error would stand alone
    run.feed(Step(1000, None, where="actors"))
    assert capsys.readouterr().err.startswith("distval: 1000/3000 rows (33 %), ")
    line = run.progress_line(4.0)
    assert line.startswith("1000/3000 rows (33 %), 250 rows/s, about 8 s left"), line
    assert line.endswith("(actors)"), line


def test_the_bar_shows_elapsed_time_and_eta_from_the_first_second(capsys):
    """A learner whose 2 replicas take 1.5 s each to start: before any row is done the bar
    is redrawn with its elapsed time moving ('0/600 [00:01<' or later); every redraw
    carries [elapsed<ETA]."""
    import re

    distval.evaluate(stream="sea", n_rows=600, learners=("odd_learners:SlowStart(seconds=1.5)",),
                     n_folds=2, test_every=300, progress=True)
    err = capsys.readouterr().err
    draws = [d for d in re.split(r"[\r\n]", err) if "rows" in d or "/600" in d]
    assert draws and all(re.search(r"\[\d\d:\d\d<[^\]]+\]", d) for d in draws), draws
    assert re.search(r" 0/600 \[00:0[1-9]<", err), draws


def test_with_three_learners_the_live_bar_names_every_learner_and_the_verdict():
    """At the width an 80-column terminal leaves beside the bar, a three-learner status
    names all three learners (mean over folds) and the clearest verdict."""
    from distval.aggregator.snapshot import Snapshot
    from distval.columns import VERDICT_SCHEMA, to_columns
    from distval.config import RunConfig
    from distval.engine.run import live_status, status_width

    cfg = RunConfig(learners=("ht", "nb", "majority"), n_folds=2)
    folds = {"learner": np.array(["ht", "ht", "nb", "nb", "majority", "majority"], dtype=object),
             "forgetting": np.array(["adwin"] * 6, dtype=object),
             "accuracy": np.array([0.9, 0.8, 0.7, 0.7, 0.6, 0.5])}
    v = {f: None for f in VERDICT_SCHEMA.names} | {
        "position": 100, "learner_a": "ht", "learner_b": "nb", "rows": 100, "mean": 0.15,
        "lower": 0.05, "upper": 0.25, "decision": "A", "folds": 2, "folds_favouring": 2}
    snap = Snapshot(100, folds, {}, verdicts=to_columns([v], VERDICT_SCHEMA))
    width = status_width(80, "elec2", 45312)
    status = live_status(snap, cfg, width=width)
    assert len(status) <= width
    assert all(f"{name} " in status for name in ("ht", "nb", "majority")), status
    assert status.startswith("ht>nb +15.0"), status  # the verdict, then the numbers
    assert status.index("ht 85%") < status.index("nb 70%")  # the leader first, in percent
