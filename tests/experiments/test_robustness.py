"""Robustness over permuted copies (zliobaite-controlled-permutations, Sect. 5)."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from scipy import stats

import distval
from distval.cli import main
from distval.config import RunConfig
from distval.errors import DistvalError
from distval.experiments.robustness import run_robustness
from distval.streams import bundled_path
from distval.streams.permutations import (
    average_neighbour_distance,
    copy_seed,
    time_permutation,
)
from tests.helpers.changed_files import write_csv

CFG = RunConfig(
    stream="elec2",
    n_rows=2000,
    learners=("majority", "persistent"),
    n_folds=2,
    test_every=1000,
    seed=3,
)


def _final(directory):
    return json.loads((directory / "summary.json").read_text())


def test_robustness_run_matches_independent_evaluations(tmp_path):
    out = tmp_path / "rob"
    res = run_robustness(CFG, permute="time:p=0.5", repeats=3, output_dir=out)
    assert sorted(p.name for p in out.iterdir()) == [
        "accuracy.png",
        "original",
        "robustness.json",
        "robustness.md",
        "time-01",
        "time-02",
        "time-03",
    ]
    assert (out / "accuracy.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # the original copy is the plain evaluation
    plain = distval.evaluate(CFG)
    pd.testing.assert_frame_equal(
        pd.read_parquet(out / "original" / "folds.parquet"), plain.folds(), check_exact=True
    )
    # copy 2 equals an evaluation of a file holding the rows in that copy's order
    order = time_permutation(2000, 0.5, copy_seed(CFG.seed, 2))
    table = pq.read_table(bundled_path()).slice(0, 2000).take(order)
    pq.write_table(table, tmp_path / "perm.parquet")
    alone = distval.evaluate(dataclasses.replace(CFG, stream=str(tmp_path / "perm.parquet")))
    copy2 = pd.read_parquet(out / "time-02" / "folds.parquet")
    pd.testing.assert_frame_equal(copy2, alone.folds(), check_exact=True)
    assert res.copies[2].and_ == pytest.approx(average_neighbour_distance(order))

    # spread and ranking statistics recomputed from the copies' own summary files
    rob = json.loads((out / "robustness.json").read_text())
    names = ["original", "time-01", "time-02", "time-03"]
    acc = np.array(
        [
            [
                _final(out / c)["learners"][lab]["cumulative"]["accuracy"]["mean"]
                for lab in CFG.labels
            ]
            for c in names
        ]
    )
    for j, lab in enumerate(CFG.labels):
        got = rob["learners"][lab]["accuracy"]
        assert got["original"] == pytest.approx(acc[0, j])
        assert got["mean"] == pytest.approx(acc[1:, j].mean())
        assert got["std"] == pytest.approx(acc[1:, j].std(ddof=1))
    ranks = [tuple(np.argsort(-row, kind="stable")) for row in acc]
    assert rob["ranking_equal_to_original"]["count"] == sum(r == ranks[0] for r in ranks[1:])
    for row, r in zip(acc, rob["rankings"], strict=True):
        assert r["ranking"][0] == CFG.labels[int(np.argmax(row))]
        tau = stats.kendalltau(row, acc[0]).statistic
        assert r["kendall_tau"] == pytest.approx(tau)
    md = (out / "robustness.md").read_text()
    assert md == res.to_markdown()
    assert "Kendall" in md and "time-03" in md


def test_rerun_reuses_finished_copies_and_other_settings_need_overwrite(tmp_path):
    cfg = RunConfig(stream="sea", n_rows=800, learners=("majority", "persistent"), n_folds=2,
                    test_every=400)  # fmt: skip
    out = tmp_path / "r"
    first = run_robustness(cfg, permute="speed:p=0.4", repeats=2, output_dir=out)
    # an interrupted copy: its summary says so, so it is recomputed
    s = json.loads((out / "speed-02" / "summary.json").read_text())
    (out / "speed-02" / "summary.json").write_text(json.dumps(s | {"interrupted": True}))
    stamp = (out / "speed-01" / "folds.parquet").stat().st_mtime_ns
    again = run_robustness(cfg, permute="speed:p=0.4", repeats=2, output_dir=out)
    assert [c.reused for c in again.copies] == [True, True, False]
    assert (out / "speed-01" / "folds.parquet").stat().st_mtime_ns == stamp
    assert [c.values for c in again.copies] == [c.values for c in first.copies]
    with pytest.raises(DistvalError, match="another run"):
        run_robustness(cfg, permute="shape:k=100", repeats=2, output_dir=out)
    with pytest.raises(DistvalError, match="other settings"):
        run_robustness(cfg, permute="speed:p=0.3", repeats=2, output_dir=out)
    other = run_robustness(cfg, permute="shape:k=100", repeats=2, output_dir=out, overwrite=True)
    assert not any(c.reused for c in other.copies)


def test_copies_of_a_file_changed_since_are_computed_again_with_one_line(tmp_path, capsys):
    """Copies of a CSV stream, the CSV then replaced by another of the same shape and size
    with other values: the rerun says so in one line and computes every copy again, with
    the numbers of a fresh study of the new file (not the old file's)."""
    data = tmp_path / "data.csv"
    write_csv(data, 0)
    cfg = RunConfig(stream=str(data), learners=("nb", "majority"), n_folds=2, test_every=200)
    out = tmp_path / "r"
    old = run_robustness(cfg, permute="speed:p=0.4", repeats=2, output_dir=out)
    capsys.readouterr()
    write_csv(data, 1)
    again = run_robustness(cfg, permute="speed:p=0.4", repeats=2, output_dir=out)
    err = capsys.readouterr().err
    fresh = run_robustness(cfg, permute="speed:p=0.4", repeats=2, output_dir=tmp_path / "f")
    assert [c.values for c in again.copies] == [c.values for c in fresh.copies]
    assert old.copies[0].values["nb"]["accuracy"] > 0.8 > again.copies[0].values["nb"][
        "accuracy"]
    assert not any(c.reused for c in again.copies)
    said = [x for x in err.splitlines() if "changed" in x]
    assert said == [f"distval: the stream {data} changed since its copies in {out} were "
                    "computed (its content changed); they are computed again"]


def test_bad_arguments_are_clear_errors(tmp_path):
    with pytest.raises(DistvalError, match="repeats"):
        run_robustness(CFG, permute="time", repeats=0, output_dir=tmp_path / "a")
    with pytest.raises(DistvalError, match="bad permutation spec 'twist'"):
        run_robustness(CFG, permute="twist", repeats=2, output_dir=tmp_path / "a")
    with pytest.raises(DistvalError, match="backend"):
        run_robustness(CFG, permute="time", repeats=2, output_dir=tmp_path / "a", backend="x")


def test_cli_permute(tmp_path, capsys):
    out = tmp_path / "cli"
    code = main(
        ["run", "--stream", "sea", "--n-rows", "600", "--learners", "majority", "persistent",
         "--folds", "2", "--test-every", "300", "--permute", "shape:k=n", "--repeats", "2",
         "--output", str(out), "--no-progress", "--backend", "inprocess"]
    )  # fmt: skip
    assert code == 0
    text = capsys.readouterr().out
    assert "distval robustness" in text and "shape-02" in text
    assert json.loads((out / "robustness.json").read_text())["repeats"] == 2
    code = main(["run", "--stream", "sea", "--permute", "time:p=2", "--output", str(tmp_path)])
    assert code == 2
    assert "bad permutation spec 'time:p=2'" in capsys.readouterr().err


@pytest.mark.ray
def test_ray_copies_equal_in_process_copies(ray_local, tmp_path):
    cfg = RunConfig(stream="sea", n_rows=600, learners=("majority", "persistent"), n_folds=2,
                    test_every=300)  # fmt: skip
    local = run_robustness(cfg, permute="time:p=0.5", repeats=2, output_dir=tmp_path / "a")
    remote = run_robustness(
        cfg, permute="time:p=0.5", repeats=2, output_dir=tmp_path / "b", backend="ray"
    )
    assert [c.values for c in remote.copies] == [c.values for c in local.copies]
    for name in ("original", "time-01", "time-02"):
        pd.testing.assert_frame_equal(
            pd.read_parquet(tmp_path / "a" / name / "folds.parquet"),
            pd.read_parquet(tmp_path / "b" / name / "folds.parquet"),
            check_exact=True,
        )


@pytest.mark.ray
def test_a_copy_given_actors_runs_on_ray_with_the_in_process_numbers(ray_local):
    """With fewer copies than cores a copy's replicas go to Ray actors (the study runner sets
    ``actors``); on the session's 2-CPU Ray both ways give the same summary."""
    from distval.engine.loop import open_config_stream
    from distval.experiments.robustness import _copy, _plans
    from distval.experiments.study import Part
    from distval.streams.permutations import parse_permutation
    from distval.streams.permuted import StreamData

    data = StreamData.read(open_config_stream(CFG))
    plan, extra = _plans(CFG, parse_permutation("time:p=0.5"), ["original", "time-1"], data)[1]
    alone = _copy(CFG, data, Part("time-1", 1.0, (plan, extra), replicas=4)).summary()
    spread = _copy(CFG, data, Part("time-1", 1.0, (plan, extra), replicas=4, actors=2)).summary()
    assert alone["backend"] == "inprocess" and spread["backend"] == "ray"
    assert spread["learners"] == alone["learners"] and spread["tests"] == alone["tests"]


def test_each_copy_reports_its_rows_done_to_the_progress_line(tmp_path, monkeypatch):
    """The copies' progress line weighs each copy by its rows and hears the rows done after
    every batch of each copy (strictly between 0 and the rows, before the copy finishes)."""
    from distval.experiments.study import StudyProgress

    calls = []
    rows, finish = StudyProgress.rows, StudyProgress.finish
    weights = {}
    monkeypatch.setattr(StudyProgress, "rows",
                        lambda self, name, done: (calls.append((name, done)),
                                                  weights.update(self.weights),
                                                  rows(self, name, done)))
    monkeypatch.setattr(StudyProgress, "finish",
                        lambda self, name: (calls.append((name, None)), finish(self, name)))
    cfg = dataclasses.replace(CFG, batch_size=500)
    run_robustness(cfg, permute="speed:p=0.5", repeats=1, output_dir=tmp_path, progress=True)
    for name in ("original", "speed-01"):
        mine = [done for n, done in calls if n == name]
        end = mine.index(None)
        assert mine[:end] == [500, 1000, 1500, 2000], mine
    assert weights == {"original": 2000.0, "speed-01": 2000.0}
