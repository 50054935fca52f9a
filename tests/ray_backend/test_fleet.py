"""Warm actors kept in a running Ray between runs: leased again, the same numbers, ended
once idle for the seconds they were kept."""

from __future__ import annotations

import time

import pytest

import distval
import distval.columns
from distval.config import RunConfig
from distval.engine.loop import open_config_stream
from distval.ray_backend.engine import RayRun
from distval.ray_backend.fleet import code_key

pytestmark = pytest.mark.ray

SMALL = {"stream": "sea(noise=0.1)", "n_rows": 1800, "learners": ("nb", "persistent"),
         "n_folds": 3, "test_every": 600, "batch_size": 300}


def _rows(steps):
    return [r for s in steps if s.snapshot is not None
            for r in distval.columns.rows_of(s.snapshot.folds)]


def test_a_second_run_leases_the_first_runs_actors_and_they_end_once_idle(
    ray_local, assert_same_rows
):
    """Run A keeps its actors 2 s (in the run they outlast a longer pause: no actor is
    lost); run B (other learners, same code) leases every one of them (the same Ray actor
    ids) and starts on them from its first row, each building its share of B's fresh
    state where A's replicas were; both give the in-process numbers. Once back in the
    pool and idle for longer than they were kept, the actors are gone (a call to any of
    them fails)."""
    ray = ray_local
    keep = 2.0
    a_cfg = RunConfig(**SMALL)
    b_cfg = RunConfig(**(SMALL | {"learners": ("nb", "majority")}))
    a = RayRun(a_cfg, open_config_stream(a_cfg), n_actors=2, warm_up_batches=1,
               keep_actors=keep)
    time.sleep(keep + 1.0)  # in a run, an actor outlasts its keep without calls
    a_rows = _rows(a.steps())
    assert a.recoveries == 0
    a_ids = sorted(h._actor_id.hex() for h in a.actors.all)
    b = RayRun(b_cfg, open_config_stream(b_cfg), n_actors=2, warm_up_batches=0,
               keep_actors=keep)  # a fresh start on them, as a joined run's on warm actors
    assert b.actors.leased == 3
    assert sorted(h._actor_id.hex() for h in b.actors.all) == a_ids
    b_rows = _rows(b.steps())
    assert_same_rows(distval.evaluate(a_cfg).fold_rows, a_rows)
    assert_same_rows(distval.evaluate(b_cfg).fold_rows, b_rows)
    time.sleep(keep + 2.0)
    for handle in b.actors.all:
        with pytest.raises(ray.exceptions.RayActorError):
            ray.get(handle.ping.remote(), timeout=10)


def test_the_pool_is_named_by_the_code(tmp_path, monkeypatch):
    """An edited source file of distval (a new modification time) names another pool."""
    import distval.ray_backend.fleet as fleet

    before = code_key()
    path = fleet.__file__
    import os

    stat = os.stat(path)
    try:
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1))
        assert code_key() != before
    finally:
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert code_key() == before
