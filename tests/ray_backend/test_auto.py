"""``backend="auto"``: in-process at once, Ray only for a job its own speed shows to be long."""

from __future__ import annotations

import math

import pytest

import distval
from distval.config import RunConfig
from distval.engine.loop import open_config_stream
from distval.engine.run import Run
from distval.errors import DistvalWarning
from distval.ray_backend.auto import iter_auto, projected_seconds

OPTS = {
    "stream": "sea(noise=0.1)",
    "n_rows": 3600,
    "learners": ("ht", "nb"),
    "n_folds": 4,
    "test_every": 600,
    "batch_size": 300,
}


def auto_run(opts: dict, **kw):
    cfg = RunConfig(**opts)
    stream = open_config_stream(cfg)
    run = Run(cfg, stream, backend="auto")
    for step in iter_auto(cfg, stream, **kw):
        run.feed(step)
    return run.close()


def test_projection_uses_the_measured_speed():
    assert projected_seconds(3.0, 1000, 4000) == pytest.approx(9.0)
    assert projected_seconds(3.0, 4000, 4000) == 0.0
    assert math.isinf(projected_seconds(0.1, 10, None))


def test_a_fast_job_stays_in_process_and_never_starts_ray(monkeypatch):
    """Nor does it pickle its learners to learn whether Ray could take them (a pickled
    river learner runs about 11 % slower afterwards on Python 3.11)."""
    ray = pytest.importorskip("ray")
    import distval.ray_backend.auto as auto

    asked: list[object] = []
    monkeypatch.setattr(auto, "unpicklable", lambda hosts: asked.append(hosts))
    was_up = ray.is_initialized()
    res = auto_run(OPTS)
    assert res.evaluated_by == {"driver": 3600}
    assert ray.is_initialized() == was_up
    assert asked == []


def test_a_long_job_with_a_learner_pickle_refuses_stays_in_process_and_says_so():
    """Ray moves learners by pickling them: a long job whose learner holds a lock stays
    in-process with one warning naming it, and starts no Ray."""
    ray = pytest.importorskip("ray")
    was_up = ray.is_initialized()
    with pytest.warns(DistvalWarning, match=r"^learner 'locked_learner:LockedNB': cannot "
                      r"pickle .*: the run stays in-process$"):
        res = auto_run(OPTS | {"learners": ("nb", "locked_learner:LockedNB")},
                       threshold=0.0, cores=2)
    assert res.evaluated_by == {"driver": 3600} and ray.is_initialized() == was_up


@pytest.mark.ray
def test_a_long_job_moves_to_ray_with_the_same_numbers(ray_local, assert_same_rows):
    # threshold 0: the first projection (after the first batch, from its learners' seconds)
    # asks for Ray; the hand-over comes at the next batch boundary (waiting there for the
    # actors, so the test does not depend on their speed): one batch of 300 rows in process.
    local = distval.evaluate(**OPTS)
    moved = auto_run(OPTS, threshold=0.0, cores=2, wait_for_ray=True)
    assert moved.evaluated_by["driver"] == 300
    assert moved.evaluated_by.get("actors", 0) > 0
    assert sum(moved.evaluated_by.values()) == 3600
    assert_same_rows(local.fold_rows, moved.fold_rows)
    assert_same_rows(local.test_rows, moved.test_rows)


def test_one_core_never_moves_to_ray():
    """With one core Ray cannot run learners side by side: the first batch decides for
    in-process, however long the job."""
    ray = pytest.importorskip("ray")
    was_up = ray.is_initialized()
    res = auto_run(OPTS, threshold=0.0, cores=1)
    assert res.evaluated_by == {"driver": 3600} and ray.is_initialized() == was_up


def test_a_file_read_up_to_n_rows_is_not_taken_for_an_endless_stream(tmp_path):
    """Before: a CSV's length is unknown until read, so ``auto`` projected an infinite time
    and moved even a 400-row run to Ray; ``n_rows`` bounds it."""
    ray = pytest.importorskip("ray")
    import numpy as np

    rng = np.random.default_rng(0)
    x = rng.normal(size=(2000, 3))
    y = (x.sum(axis=1) > 0).astype(int)
    lines = ["a,b,c,label", *(f"{r[0]},{r[1]},{r[2]},{t}" for r, t in zip(x, y))]
    path = tmp_path / "data.csv"
    path.write_text("\n".join(lines) + "\n")
    opts = {**OPTS, "stream": str(path), "target": "label", "n_rows": 400, "test_every": 200,
            "batch_size": 100}
    cfg = RunConfig(**opts)
    assert open_config_stream(cfg).n_rows is None  # the reader does not know the length
    was_up = ray.is_initialized()
    res = auto_run(opts, cores=2, wait_for_ray=True)  # the old code then moved to Ray
    assert res.evaluated_by == {"driver": 400}
    assert ray.is_initialized() == was_up
