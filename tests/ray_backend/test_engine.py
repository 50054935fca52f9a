"""The Ray engine on a real local Ray: identical numbers to the in-process engine (faults:
test_recovery.py)."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import distval
import distval.columns
from distval.config import RunConfig
from distval.engine.loop import (
    LocalEvaluation,
    Step,
    iter_batches,
    iter_inprocess,
    open_config_stream,
)
from distval.engine.run import Run
from distval.ray_backend.engine import RayRun, balance_slots, deal_slots, spread, warm_up

pytestmark = pytest.mark.ray

SMALL = {
    "stream": "sea(noise=0.1)",
    "n_rows": 2400,
    "learners": ("ht", "persistent"),
    "n_folds": 4,
    "test_every": 600,
    "batch_size": 300,
}


def test_slots_are_dealt_evenly_and_completely():
    groups = deal_slots(2, 10, 3)
    assert sorted(s for g in groups for s in g) == [(i, f) for i in range(2) for f in range(10)]
    assert [len(g) for g in groups] == [7, 7, 6]
    assert len(deal_slots(2, 3, 50)) == 6  # never more actors than slots: one fold per actor


@pytest.mark.parametrize("seed", range(40))
def test_balanced_layout_is_within_graham_bound_of_the_best_by_brute_force(seed):
    """Longest processing time first: every slot once, and the busiest group within
    4/3 - 1/(3m) of the best layout found by trying every assignment (Graham 1969)."""
    rng = np.random.default_rng(seed)
    n_slots, m = int(rng.integers(2, 8)), int(rng.integers(2, 4))
    costs = {(i % 2, i // 2): float(c) for i, c in enumerate(rng.exponential(1.0, n_slots))}
    groups = balance_slots(costs, m)
    assert sorted(s for g in groups for s in g) == sorted(costs)
    slots = list(costs)
    best = min(
        max(sum(costs[s] for s, g in zip(slots, pick) if g == k) for k in range(m))
        for pick in itertools.product(range(m), repeat=n_slots)
    )
    got = max(sum(costs[s] for s in g) for g in groups)
    assert got <= (4 / 3 - 1 / (3 * m)) * best + 1e-12
    mean = sum(costs.values()) / len(groups)
    assert spread(groups, costs) == pytest.approx(got / mean - 1)


def ray_run(opts: dict, **kw):
    """The Ray backend on a configuration, with RayRun's own options."""
    cfg = RunConfig(**opts)
    stream = open_config_stream(cfg)
    run = Run(cfg, stream)
    for step in RayRun(cfg, stream, **kw).steps():
        run.feed(step)
    return run.close()


# warm_up_batches: 0 = the actors do everything; 3 = the driver takes 900 rows and hands
# over between test points (every 600 rows).
@pytest.mark.parametrize(
    ("scheme", "prequential", "n_actors", "warm_up_batches"),
    [
        ("cv", True, 1, 0),
        ("split", False, 2, 3),
        ("bootstrap", True, 3, 0),
        ("cv", False, 3, 3),
        # the four above cover every scheme, both modes, 1-3 actors and both hand-overs
        pytest.param("split", True, 1, 3, marks=pytest.mark.slow),
        pytest.param("bootstrap", False, 2, 0, marks=pytest.mark.slow),
        pytest.param("bootstrap", True, 2, 3, marks=pytest.mark.slow),
    ],
)
def test_ray_results_equal_in_process_results(
    ray_local, assert_same_rows, scheme, prequential, n_actors, warm_up_batches
):
    opts = SMALL | {"scheme": scheme, "prequential": prequential}
    local = distval.evaluate(**opts)
    remote = ray_run(opts, n_actors=n_actors, warm_up_batches=warm_up_batches)
    assert_same_rows(local.fold_rows, remote.fold_rows)
    assert_same_rows(local.test_rows, remote.test_rows)
    assert ray_local.is_initialized()  # a Ray the caller started is left running


def test_parcels_of_many_batches_give_the_in_process_numbers(ray_local, assert_same_rows):
    """Parcels grow as fast as the sizer allows when the actors look very fast (doubling, up
    to 8 batches): the same rows as in-process, test points inside parcels included."""
    opts = SMALL | {"n_rows": 6000, "batch_size": 200, "learners": ("nb", "majority")}
    cfg = RunConfig(**opts)
    stream = open_config_stream(cfg)
    run = Run(cfg, stream)
    ray_run = RayRun(cfg, stream, n_actors=2, warm_up_batches=1, largest_parcel=8,
                     rebalance_seconds=None)  # a look drains the parcels and resets the rate
    ray_run.sizer.rate = 1e12
    for step in ray_run.steps():
        run.feed(step)
    assert ray_run.parcels == [2, 4, 8, 8, 7]  # doubling from one batch, up to 8
    assert sum(ray_run.parcels) == 6000 // 200 - 1
    local = distval.evaluate(**opts)
    assert_same_rows(local.fold_rows, run.close().fold_rows)
    assert_same_rows(local.test_rows, run.result.test_rows)


def test_replicas_moved_between_actors_give_the_in_process_numbers(ray_local, assert_same_rows):
    """A look at the balance after every parcel, and a move at every look (min_gain -1):
    the replicas change actors as trained and the numbers stay the in-process ones."""
    opts = SMALL | {"n_rows": 3600, "learners": ("ht", "nb")}
    cfg = RunConfig(**opts)
    stream = open_config_stream(cfg)
    run = Run(cfg, stream)
    ray_run = RayRun(cfg, stream, n_actors=2, warm_up_batches=1, largest_parcel=1,
                     rebalance_seconds=0.0, min_gain=-1.0)
    layouts = []
    for step in ray_run.steps():
        run.feed(step)
        layouts.append(ray_run.groups)
    assert len(ray_run.balance) >= 5 and all(moved for *_, moved in ray_run.balance)
    assert any(g != deal_slots(2, 4, 2) for g in layouts)  # some slots did change actors
    local = distval.evaluate(**opts)
    assert_same_rows(local.fold_rows, run.close().fold_rows)
    assert_same_rows(local.test_rows, run.result.test_rows)


def test_default_run_on_ray_equals_in_process(ray_local, assert_same_rows):
    """distval.evaluate on Ray: the driver works while the actors start, then hands over."""
    opts = SMALL | {"n_rows": 3600, "learners": ("ht", "nb")}
    local = distval.evaluate(**opts)
    remote = distval.evaluate(**opts, backend="ray", n_actors=2)
    assert_same_rows(local.fold_rows, remote.fold_rows)
    assert_same_rows(local.test_rows, remote.test_rows)
    # the paired windows, the confidence sequences and the verdict lines too
    assert_same_rows(local.paired().to_dict("records"), remote.paired().to_dict("records"))
    assert_same_rows(local.verdicts().to_dict("records"), remote.verdicts().to_dict("records"))


def test_warm_up_evaluates_the_batches_asked_then_hands_over(assert_same_rows):
    cfg = RunConfig(**SMALL)
    stream = open_config_stream(cfg)
    local = LocalEvaluation(cfg, stream)
    run = Run(cfg, stream)
    batches = iter_batches(stream, cfg)
    *steps, rest = warm_up(local, batches, lambda done: done < 3)
    for step in steps:
        run.feed(step)
    assert (rest.start, len(rest)) == (900, 300)  # the fourth batch of 300 is left
    assert local.aggregator.position == run.result.n_rows == 900
    assert {r["position"] for r in run.result.fold_rows} == {600}  # the first test point
    for step in warm_up(local, itertools.chain([rest], batches), lambda done: True):
        assert isinstance(step, Step)  # no batch is left over
        run.feed(step)
    run.snapshot(local.aggregator.finish())
    assert_same_rows(distval.evaluate(cfg).fold_rows, run.close().fold_rows)


#: Delayed labels (rows still waiting are in every host's state, with their predictions and
#: probabilities), partial labels, a time-column delay whose labels arrive out of row order,
#: and the probabilistic measures (their windows are in the aggregator's state).
DELAYED = [
    {"delay": 350, "label_probability": 0.7, "measure": "log_loss"},
    {"delay": 1.5, "delay_column": "0", "learners": ("ht", "nb"), "measure": "auc"},
]


@pytest.mark.slow  # test_recovery's killed-actor runs of both DELAYED options cover it
@pytest.mark.parametrize("opts", DELAYED)
def test_delayed_labels_on_ray_equal_in_process(ray_local, assert_same_rows, opts):
    local = distval.evaluate(**SMALL | opts)
    remote = ray_run(SMALL | opts, n_actors=2, warm_up_batches=3)
    assert_same_rows(local.fold_rows, remote.fold_rows)
    assert_same_rows(local.test_rows, remote.test_rows)


def test_two_node_cluster_joined_by_address():
    """A head and a second node (ray.cluster_utils.Cluster) joined by address: actors on both
    nodes, numbers identical to the in-process engine (runs in its own process, since this
    session's Ray is already started)."""
    script = textwrap.dedent(
        """
        import os, sys
        os.environ["RAY_AUTH_MODE"] = "disabled"
        import pandas as pd
        import ray
        from ray.cluster_utils import Cluster
        import distval
        cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
        cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()
        opts = dict(stream="sea", n_rows=1200, learners=("ht", "nb"), n_folds=4,
                    test_every=600, batch_size=300)
        ray.init(address=cluster.address)
        nodes = {n["NodeID"] for n in ray.nodes() if n["Alive"]}
        remote = distval.evaluate(**opts, backend="ray", n_actors=4)
        ray.shutdown()
        cluster.shutdown()
        local = distval.evaluate(**opts)
        pd.testing.assert_frame_equal(local.folds(), remote.folds())
        pd.testing.assert_frame_equal(local.tests(), remote.tests())
        print("nodes", len(nodes))
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=400
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert "nodes 2" in out.stdout


def _fold_rows(steps):
    return [r for s in steps if s.snapshot is not None for r in distval.columns.rows_of(
        s.snapshot.folds)]


def test_checkpoints_of_the_actors_resume_to_the_uninterrupted_numbers(
    ray_local, assert_same_rows
):
    """A checkpoint yielded by the actors (a host per actor) holds the state after exactly
    the rows of the steps before it: resumed in-process or on Ray, the steps after it give
    the rows of the run that was never stopped."""
    cfg = RunConfig(**SMALL | {"n_rows": 4800})
    steps = list(
        RayRun(cfg, open_config_stream(cfg), n_actors=2, warm_up_batches=1, largest_parcel=2,
               checkpoint_seconds=0.0, rebalance_seconds=None).steps()
    )
    at = [i for i, s in enumerate(steps) if s.checkpoint and len(s.checkpoint.hosts) == 2]
    assert len(at) >= 2
    i = at[len(at) // 2]
    cp = steps[i].checkpoint
    assert cp.rows == sum(s.rows for s in steps[:i]) and 0 < cp.rows < 4800
    clean = distval.evaluate(cfg).fold_rows
    assert_same_rows(clean, _fold_rows(steps))
    before = _fold_rows(steps[:i])
    local = iter_inprocess(cfg, open_config_stream(cfg), resume=cp)
    assert_same_rows(clean, before + _fold_rows(local))
    remote = RayRun(cfg, open_config_stream(cfg), n_actors=2, warm_up_batches=1).steps(cp)
    assert_same_rows(clean, before + _fold_rows(remote))


def lpt(costs: dict, m: int) -> list[set]:
    """Longest processing time first, written out independently: the costliest slot first,
    each to the group with the least summed cost (ties: the first such group)."""
    groups: list[set] = [set() for _ in range(m)]
    loads = [0.0] * m
    for slot, cost in sorted(costs.items(), key=lambda kv: (-kv[1], kv[0])):
        k = min(range(m), key=lambda j: (loads[j], j))
        groups[k].add(slot)
        loads[k] += cost
    return groups


def test_the_hand_over_places_replicas_by_their_warm_up_costs(
    ray_local, assert_same_rows, monkeypatch
):
    """The layout handed over is LPT on the seconds each replica took in the driver's
    warm-up (the host's own record, read at the hand-over): the same groups as an
    independent LPT, within Graham's bound of the best layout found by trying every
    assignment, and not the round-robin deal (Hoeffding trees cost far more than
    persistent learners). The numbers are the in-process ones."""
    from distval.ray_backend import engine as ray_engine

    seen: list[dict] = []
    take_over = ray_engine.RayRun.take_over

    def recording(self, local, rest, batches):
        seen.append(dict(zip(local.host.slots, local.host.busy)))  # before the hand-over
        return take_over(self, local, rest, batches)

    monkeypatch.setattr(ray_engine.RayRun, "take_over", recording)
    cfg = RunConfig(**SMALL)
    run = Run(cfg, open_config_stream(cfg))
    ray_run = RayRun(cfg, open_config_stream(cfg), n_actors=3, warm_up_batches=2,
                     rebalance_seconds=None)
    for step in ray_run.steps():
        run.feed(step)
    (costs,) = seen
    assert set(costs) == {(i, f) for i in range(2) for f in range(4)}
    assert min(costs.values()) > 0
    groups = ray_run.groups
    assert [set(g) for g in groups] == lpt(costs, 3)
    best = min(
        max(sum(c for (s, c), g in zip(costs.items(), pick) if g == k) for k in range(3))
        for pick in itertools.product(range(3), repeat=len(costs))
    )
    got = max(sum(costs[s] for s in g) for g in groups)
    assert got <= (4 / 3 - 1 / 9) * best + 1e-12
    assert groups != deal_slots(2, 4, 3)
    assert_same_rows(distval.evaluate(cfg).fold_rows, run.close().fold_rows)
    assert_same_rows(distval.evaluate(cfg).test_rows, run.result.test_rows)


def test_round_robin_placement_keeps_the_deal(ray_local):
    cfg = RunConfig(**SMALL)
    ray_run = RayRun(cfg, open_config_stream(cfg), n_actors=3, warm_up_batches=0,
                     placement="round-robin", rebalance_seconds=None)
    costs = {(i, f): 1.0 + 10 * (i == 0) for i in range(2) for f in range(4)}
    assert ray_run.placed(costs) == deal_slots(2, 4, 3)
    cost_run = RayRun(cfg, open_config_stream(cfg), n_actors=3, warm_up_batches=0)
    assert cost_run.placed({**costs, (1, 3): 0.0}) == deal_slots(2, 4, 3)  # a cost unknown
    assert [set(g) for g in cost_run.placed(costs)] == lpt(costs, 3)
    for r in (ray_run, cost_run):
        r.actors.kill()


def test_summary_json_holds_the_ray_runs_timeline(tmp_path):
    """A Ray run in a fresh process (its own private Ray) that hands over after two batches
    (the driver then waits for the actors, so the hand-over happens on a slow machine too):
    the phases in summary.json in the order they happen, within the run, and the same
    measures as in-process."""
    out = tmp_path / "run"
    opts = {"stream": "sea", "n_rows": 3000, "learners": ("ht", "nb"), "n_folds": 4,
            "test_every": 600, "batch_size": 300}
    script = textwrap.dedent(f"""
        from distval.config import RunConfig
        from distval.engine.run import Run
        from distval.engine.loop import open_config_stream
        from distval.ray_backend.engine import iter_ray
        cfg = RunConfig(**{opts!r})
        stream = open_config_stream(cfg)
        run = Run(cfg, stream, output_dir={str(out)!r}, backend="ray")
        for step in iter_ray(cfg, stream, n_actors=2, warm_up_batches=2,
                             timeline=run.timeline):
            run.feed(step)
        run.close()
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    summary = json.loads((out / "summary.json").read_text())
    t = summary["timeline"]
    order = ["ray_init_start", "ray_init_end", "actors_up", "hand_over", "first_actor_step",
             "last_actor_step", "shutdown_start", "shutdown_end"]
    assert list(t) == order  # summary.json keeps them in time order
    assert all(t[a] <= t[b] for a, b in itertools.pairwise(order))
    assert t["ray_init_start"] >= 0 and t["shutdown_end"] <= summary["elapsed_seconds"]
    assert summary["evaluated_by"] == {"driver": 600, "actors": 2400}
    local = distval.evaluate(**opts, output_dir=tmp_path / "local")
    inproc = json.loads((tmp_path / "local" / "summary.json").read_text())
    assert inproc["timeline"] == {}
    assert summary["learners"] == inproc["learners"] == local.summary()["learners"]
