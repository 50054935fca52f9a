"""Recovery on a real local Ray: actors killed mid-run, while starting or during the
hand-over are rebuilt from the last complete checkpoint, and the numbers are those of the
in-process engine; once ``max_recoveries`` are spent the run stops with its results on disk."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest

import distval
from distval.config import RunConfig
from distval.engine.loop import open_config_stream
from distval.engine.run import Run
from distval.errors import DistvalError
from distval.ray_backend.engine import RayRun
from tests.ray_backend.test_cost_ray import assert_cost_survives_the_kills
from tests.ray_backend.test_engine import DELAYED, SMALL, _fold_rows

pytestmark = pytest.mark.ray


def run_with_fault(kill, *, max_recoveries=3, output_dir=None, opts=None, warm_up_batches=1,
                   checkpoint_every=3, at=(3, 6), **balance):
    cfg = RunConfig(**SMALL | {"n_rows": 4800} | (opts or {}))
    stream = open_config_stream(cfg)
    run = Run(cfg, stream, output_dir=output_dir)
    killed, victims = [], []
    ray_run = RayRun(
        cfg,
        stream,
        n_actors=2,
        checkpoint_every=checkpoint_every,
        largest_parcel=2,  # parcels of one and two batches replayed after a fault
        warm_up_batches=warm_up_batches,  # 1: the first checkpoint is the state handed over
        max_recoveries=max_recoveries,
        **balance,
    )
    try:
        for index, step in enumerate(ray_run.steps()):
            run.feed(step)
            # Two kills: after step at[0] (3), then after step at[1] (6) or later once the
            # first has been noticed (the driver has rebuilt the actors).
            actors = ray_run.actors
            if len(killed) < 2 and index >= at[len(killed)] and actors not in victims:
                import ray

                ray.kill(kill(actors), no_restart=True)
                killed.append(index)
                victims.append(actors)
    except BaseException:
        run.close(interrupted=True)  # as distval.evaluate does
        raise
    return cfg, run.close(), killed, ray_run.balance


# "learner": no warm-up, so each actor built its share of the fresh state itself
# (RayRun.start_fresh: the driver sent the recipe, no replica), and no checkpoint ever: both
# kills rebuild every actor from that recipe and replay every parcel. "aggregator": from the
# checkpoints, the first the state the driver handed over. "moving": a move at every parcel
# (rebalancing), so a kill finds replicas moved since the first checkpoint.
# "moving" is slow: the delayed-labels kill below with "moving" kills while replicas move too.
@pytest.mark.parametrize(
    "which", ["learner", "aggregator", pytest.param("moving", marks=pytest.mark.slow)]
)
def test_a_killed_actor_is_rebuilt_and_results_are_unchanged(ray_local, assert_same_rows, which):
    def kill(actors):
        return actors.aggregator if which == "aggregator" else actors.learners[1]

    # Without "moving" no look at the balance at all: the default look every 20 s would come
    # on a slow (shared) machine and find nothing to move, which the assertion below forbids.
    balance: dict = {"rebalance_seconds": None}
    if which == "moving":
        balance = {"rebalance_seconds": 0.0, "min_gain": -1.0}
    if which == "learner":
        balance |= {"warm_up_batches": 0, "checkpoint_every": 10_000, "at": (1, 4)}
    cfg, result, killed, looks = run_with_fault(kill, **balance)
    assert all(moved for *_, moved in looks) and (len(looks) > 2) == (which == "moving")
    assert len(killed) >= 1  # the second kill needs the first to be noticed in time
    clean = distval.evaluate(cfg)
    assert_same_rows(clean.fold_rows, result.fold_rows)
    assert_same_rows(clean.test_rows, result.test_rows)


@pytest.mark.parametrize(("opts", "which"), [(DELAYED[0], "learner"), (DELAYED[1], "moving")])
def test_delayed_labels_survive_a_killed_actor_with_the_in_process_numbers(
    ray_local, assert_same_rows, opts, which
):
    """A learner actor killed twice mid-stream, replicas moving between actors: the rows
    in flight (their predictions kept by the hosts) come back from the checkpoints and
    the numbers are those of the in-process run."""
    balance = {"rebalance_seconds": 0.0, "min_gain": -1.0} if which == "moving" else {}
    cfg, result, killed, _ = run_with_fault(
        lambda actors: actors.learners[1], opts=opts, **balance
    )
    assert killed
    clean = distval.evaluate(cfg)
    final = clean.final_folds()
    assert (final[final["forgetting"] == "cumulative"]["n"] == 4800).all()  # every row scored
    assert_same_rows(clean.fold_rows, result.fold_rows)
    assert_same_rows(clean.test_rows, result.test_rows)
    assert_cost_survives_the_kills(result, clean)  # and each replica's cost with it


def test_when_recovery_is_exhausted_the_run_stops_with_results_on_disk(ray_local, tmp_path):
    out = tmp_path / "run"
    with pytest.raises(DistvalError, match="died"):
        run_with_fault(lambda actors: actors.learners[0], max_recoveries=0, output_dir=out)
    positions = pq.read_table(out / "folds.parquet").column("position").to_pylist()
    assert min(positions) == 600  # what was computed before the failure is on disk
    assert json.loads((out / "summary.json").read_text())["interrupted"] is True


def test_an_actor_lost_during_the_hand_over_is_replaced(ray_local, assert_same_rows, monkeypatch):
    """The driver's state handed to the actors is the first checkpoint: a learner actor
    killed as it is handed over is rebuilt from it, and the numbers do not change."""
    import ray

    from distval.ray_backend.fleet import Fleet

    load, killed = Fleet.load, []

    def load_after_a_kill(self, states):
        if not killed:
            ray.kill(self.learners[1], no_restart=True)
            killed.append(True)
        load(self, states)

    monkeypatch.setattr(Fleet, "load", load_after_a_kill)
    cfg = RunConfig(**SMALL)
    ray_run = RayRun(cfg, open_config_stream(cfg), n_actors=2, warm_up_batches=2)
    steps = list(ray_run.steps())
    assert killed and ray_run.recoveries == 1
    assert_same_rows(distval.evaluate(cfg).fold_rows, _fold_rows(steps))
    # the tests' own Ray was started here: nothing is kept warm, the actors ended
    assert ray_run.keep_actors == 0.0
    with pytest.raises(ray.exceptions.RayActorError):
        ray.get(ray_run.actors.learners[0].ping.remote(), timeout=10)


def test_an_actor_lost_while_starting_is_replaced(ray_local, assert_same_rows):
    import ray

    cfg = RunConfig(**SMALL)
    ray_run = RayRun(cfg, open_config_stream(cfg), n_actors=2)  # warm up until all are up
    ray.kill(ray_run.actors.learners[0], no_restart=True)
    steps = list(ray_run.steps())
    assert ray_run.recoveries == 1
    assert_same_rows(distval.evaluate(cfg).fold_rows, _fold_rows(steps))
