"""The end summary: aligned text for a terminal, Markdown for summary.md, and what ran."""

from __future__ import annotations

import pytest

import distval
from distval.config import RunConfig
from distval.engine import Run, open_config_stream
from distval.results import EvaluationResult


def test_a_ray_run_says_which_part_evaluated_the_rows():
    res = EvaluationResult(RunConfig(learners=("nb", "ht")), n_rows=5000, backend="ray")
    res.evaluated_by = {"driver": 5000}
    text = res.to_text()
    assert "Rows evaluated: 5000 by the driver." in text
    assert "Ray's actors evaluated no row" in text and "Ray's actors" in res.to_markdown()
    res.evaluated_by = {"driver": 2000, "actors": 3000}
    assert "2000 by the driver, 3000 by the Ray actors" in res.to_text()
    assert "evaluated no row" not in res.to_text()
    assert "Rows evaluated" not in EvaluationResult(RunConfig(), backend="inprocess").to_text()


def test_repr_is_short_and_text_tables_are_aligned():
    res = distval.evaluate(stream="sea", n_rows=600, learners=("nb", "majority"), n_folds=2,
                           test_every=200)
    text = repr(res)
    assert len(text.splitlines()) <= 6 and "nb: accuracy" in text and "wilcoxon" in text
    lines = res.to_text().splitlines()
    rule = next(i for i, line in enumerate(lines) if set(line) <= {"-", " "} and line)
    widths = [len(part) for part in lines[rule].split("  ")]
    header = lines[rule - 1]
    assert header.startswith("learner".ljust(widths[0]))


@pytest.mark.ray
def test_a_short_ray_job_reports_that_the_driver_did_everything(ray_local):
    from distval.ray_backend.engine import RayRun

    cfg = RunConfig(stream="sea", n_rows=5000, learners=("nb", "majority"), n_folds=2)
    stream = open_config_stream(cfg)
    run = Run(cfg, stream, backend="ray")
    # the driver warms up on every batch: what happens when actors boot slower than the stream
    for step in RayRun(cfg, stream, n_actors=2, warm_up_batches=10**6).steps():
        run.feed(step)
    res = run.close()
    assert res.evaluated_by == {"driver": 5000}
    assert res.summary()["evaluated_by"] == {"driver": 5000}
    assert "Ray's actors evaluated no row" in res.to_text()
