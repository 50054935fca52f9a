"""What the live page draws, checked against the run's own tables read with pandas: per fold
and their mean, the baselines, each pair's confidence sequence, the tests' p-values; the
same state from a saved directory; a regression run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import distval
from distval.evaluation import resume
from distval.live import LiveState

RUN = {"stream": "sea", "n_rows": 2000, "learners": ("nb", "majority"), "n_folds": 3,
       "test_every": 500}


def points(series: dict[str, list[Any]]) -> pd.Series:
    return pd.Series(series["y"], index=series["x"], dtype=float)


def test_the_charts_hold_the_numbers_of_the_results_tables(tmp_path: Path) -> None:
    state = LiveState(tmp_path)
    res = distval.evaluate(**RUN, output_dir=tmp_path, overwrite=True, observer=state)
    charts = json.loads(state.to_json())["charts"]
    folds = res.folds()
    primary = folds[folds["forgetting"] == res.config.forgetting]
    for learner, drawn in charts["folds"].items():
        mine = primary[primary["learner"] == learner]
        want = 100 * mine.groupby("position")["accuracy"].mean()  # percent, as the text
        pd.testing.assert_series_equal(points(drawn["mean"]), want, check_names=False,
                                       check_index_type=False)
        for fold, line in drawn["folds"].items():
            one = mine[mine["fold"] == int(fold)].set_index("position")["accuracy"]
            assert points(line).tolist() == (100 * one).tolist()
    persistent = 100 * primary.groupby("position")["p_per"].mean()
    assert np.allclose(points(charts["baselines"]["no-change (Persistent)"]), persistent)
    verdicts = res.verdicts()
    (pair,) = charts["pairs"]
    assert points(pair["lower"]).tolist() == (100 * verdicts["lower"]).tolist()  # points
    assert points(pair["upper"]).tolist() == (100 * verdicts["upper"]).tolist()
    tests = res.tests()
    wil = tests[(tests["test"] == "wilcoxon") & tests["pvalue"].notna()]
    assert points(charts["tests"]["wilcoxon nb/majority"]).tolist() == wil["pvalue"].tolist()
    assert charts["verdicts"] == [v["line"] for v in res.summary()["verdicts"]]
    assert charts["baseline"] == res.summary()["baseline"]["line"]
    # a finished run's directory gives the page the same numbers
    saved = json.loads(LiveState.from_directory(tmp_path).to_json())
    assert saved["charts"] == charts and saved["status"]["state"] == "finished"


def test_the_state_is_sent_again_only_when_it_changed(tmp_path: Path) -> None:
    state = LiveState(tmp_path)
    distval.evaluate(**RUN, observer=state)
    now = json.loads(state.to_json())
    assert json.loads(state.to_json(since=now["status"]["version"]))["charts"] is None
    assert json.loads(state.to_json(since=now["status"]["version"] - 1))["charts"] is not None


def test_a_regression_run(tmp_path: Path) -> None:
    state = LiveState(tmp_path)
    res = distval.evaluate(stream="friedman", n_rows=1200, learners=("linreg", "htr"),
                           task="regression", n_folds=3, test_every=400, observer=state)
    charts = json.loads(state.to_json())["charts"]
    folds = res.folds()
    primary = folds[folds["forgetting"] == res.config.forgetting]
    measure = res.config.measure
    assert charts["measure"] == measure
    for learner, drawn in charts["folds"].items():
        want = primary[primary["learner"] == learner].groupby("position")[measure].mean()
        assert np.allclose(points(drawn["mean"]), want)  # RMSE: the target's units
    assert charts["axes"]["folds"] == "RMSE (target units)"
    # the verdict's tested share of rows, in percent of the rows, as its line says it
    assert charts["axes"]["verdict"].endswith("(% of rows)")
    (pair,) = charts["pairs"]
    assert np.allclose(points(pair["mean"]), 100 * res.verdicts()["mean"].to_numpy())
    assert charts["verdicts"] == [v["line"] for v in res.summary()["verdicts"]]
    assert charts["baselines"] == {}


@pytest.mark.ray
def test_a_ray_run_is_watched_from_the_driver(ray_local: Any) -> None:
    """The learners run in Ray actors after one batch in the driver; the driver's run tells
    the page, which says where the rows were evaluated and the phase at each check."""
    from distval.config import RunConfig
    from distval.engine.loop import open_config_stream
    from distval.engine.run import Run
    from distval.ray_backend.engine import RayRun

    phases: list[str] = []

    class Watch(LiveState):
        def snapshot(self, run: Any, snap: Any) -> None:
            phases.append(run.progress().phase)
            super().snapshot(run, snap)

    state = Watch()
    cfg = RunConfig(**RUN)
    stream = open_config_stream(cfg)
    run = Run(cfg, stream, backend="ray", observer=state)
    ray_run = RayRun(cfg, stream, n_actors=2, warm_up_batches=1, timeline=run.timeline)
    for step in ray_run.steps():
        run.feed(step)
    res = run.close()
    page = json.loads(state.to_json())
    by = res.evaluated_by
    assert by["actors"] > 0 and by["driver"] > 0 and by["actors"] + by["driver"] == 2000
    assert page["status"]["engine"] == \
        f"in-process (driver) {by['driver']:,} rows, Ray actors {by['actors']:,} rows"
    assert page["status"]["rows"] == RUN["n_rows"] and page["status"]["state"] == "finished"
    assert phases[-1] == "actors"
    assert page["charts"]["verdicts"] == [v["line"] for v in res.summary()["verdicts"]]


def test_delayed_labels_leave_the_first_checks_empty() -> None:
    """Labels 600 rows late: the folds have scored nothing at the first check (no point
    drawn there, JSON null rather than NaN), and the curves start when they have."""
    state = LiveState()
    res = distval.evaluate(**RUN, delay=600, observer=state)
    text = state.to_json()
    assert "NaN" not in text
    drawn = json.loads(text)["charts"]["folds"]["nb"]["mean"]
    folds = res.folds()
    nb = folds[(folds["forgetting"] == res.config.forgetting) & (folds["learner"] == "nb")]
    want = nb.groupby("position")["accuracy"].mean()  # NaN where no fold has scored
    assert drawn["x"] == want.index.tolist()
    assert [y is None for y in drawn["y"]] == want.isna().tolist()
    assert drawn["y"][0] is None and drawn["y"][-1] is not None


def test_a_resumed_run_is_shown_from_its_checkpoint(tmp_path: Path) -> None:
    def stop(n: int) -> None:
        if n >= 1000:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        distval.evaluate(**RUN, output_dir=tmp_path, overwrite=True, checkpoint_seconds=0,
                         progress=stop)
    start: list[int] = []

    class Watch(LiveState):
        def started(self, run: Any) -> None:
            start.append(run.resumed_from.rows)  # the checkpoint's row
            super().started(run)

    state = Watch(tmp_path)
    res = resume(tmp_path, observer=state)
    page = json.loads(state.to_json())
    assert page["status"]["state"] == "finished" and page["status"]["rows"] == res.n_rows
    checks = sorted(set(res.folds()["position"]))
    assert 0 < start[0] <= 1000
    assert page["charts"]["folds"]["nb"]["mean"]["x"] == [x for x in checks if x > start[0]]
    assert page["charts"]["verdicts"] == [v["line"] for v in res.summary()["verdicts"]]
    # its cost counts the rows before the checkpoint too: the summary's line, RAM-hours and all
    summary = (tmp_path / "summary.md").read_text().splitlines()
    assert [f"- {p}" for p in page["charts"]["prices"]] == [
        x for x in summary if x.startswith("- cost:")]


def test_the_cost_under_the_verdicts_is_the_summarys(tmp_path: Path) -> None:
    """The page's cost (the line after each verdict, the table) is what the summary prints,
    and its numbers are those of cost.parquet read with pandas: each learner's CPU seconds
    summed over folds at the last position, rows per CPU second, MB at the end."""
    state = LiveState(tmp_path)
    res = distval.evaluate(**RUN, output_dir=tmp_path, overwrite=True, observer=state)
    charts = json.loads(state.to_json())["charts"]
    summary = (tmp_path / "summary.md").read_text().splitlines()
    assert [f"- {p}" for p in charts["prices"]] == [x for x in summary if x.startswith("- cost:")]
    assert len(charts["prices"]) == len(charts["verdicts"]) == 1
    cost = pd.read_parquet(tmp_path / "cost.parquet")
    last = cost[cost["position"] == cost["position"].max()].groupby("learner")
    table = charts["cost"]
    assert table["columns"][:4] == ["learner", "CPU s", "learn / predict", "rows/s"]
    assert [r[0] for r in table["rows"]] == list(res.config.labels)
    for name, cpu, _, rate, mb, *_ in table["rows"]:
        assert cpu == f"{last['cpu'].sum()[name]:.2f}"
        assert rate == f"{last['rows'].max()[name] / last['cpu'].sum()[name]:,.0f}"
        assert mb == f"{last['bytes'].sum()[name] / 1e6:.3g}"
    # nb ahead of the majority class: its CPU per row against the other's, as a ratio
    per_row = last["cpu"].sum() / last["rows"].max()
    ratio = per_row["nb"] / per_row["majority"]
    assert charts["prices"][0].startswith(
        f"cost: nb costs {ratio:.2g}× majority's CPU per row" if ratio < 10
        else f"cost: nb costs {ratio:.0f}× majority's CPU per row")
    # a run that measures nothing has no cost to show
    bare = LiveState()
    distval.evaluate(**RUN, cost=False, observer=bare)
    nothing = json.loads(bare.to_json())["charts"]
    assert nothing["cost"] is None and nothing["prices"] == [None]
