"""Cost measured inside Ray's learner actors: the same numbers as in-process, and a learner
of known CPU per row within 10 % (real local Ray)."""

from __future__ import annotations

import pytest

import distval
from distval.results.cost import cost_summary
from tests.helpers.costly_learner import LEARN_CPU


def test_cost_on_ray_actors_matches_a_busy_loop_and_the_inprocess_bytes(ray_local):
    opts = dict(stream="sea", n_rows=400, test_every=100, n_folds=2, seed=3,
                learners={"busy": "tests.helpers.costly_learner:Busy", "ht": "ht"})
    remote = distval.evaluate(**opts, backend="ray", n_actors=2)
    local = distval.evaluate(**opts)
    r = cost_summary(remote.series.table("cost"))
    lo = cost_summary(local.series.table("cost"))
    assert r is not None and lo is not None
    # every row predicted by both folds (bootstrap tests all), learned with Poisson weights
    rows = r["busy"]["rows"]
    assert rows == 400
    # same trees, same rows; river's walk of a replica that travelled to an actor (pickled)
    # counts its containers without the spare room they had here: not byte-exact
    assert r["ht"]["bytes_final"] == pytest.approx(lo["ht"]["bytes_final"], rel=0.25)
    predict = r["busy"]["cpu_predict_s"]
    # two folds predict every row, each call spending 2 * LEARN_CPU of its thread's CPU
    assert predict == pytest.approx(2 * rows * 2 * LEARN_CPU, rel=0.10)
