"""The probe behind ``distval suite --plan``: the cost curve's fit, the budget rule, and a
probe that runs what the real run runs (one replica per learner)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from scipy.integrate import quad
from scipy.optimize import curve_fit

from distval.config import RunConfig
from distval.evaluation import evaluate
from distval.experiments.study import duration
from distval.experiments.suite.plan import SuitePlan
from distval.experiments.suite.probe import (
    CostCurve,
    StreamProbe,
    affordable,
    fit_cost,
    probe_streams,
)

ENDS = [250, 1000, 1700, 3000, 4100, 5000]  # batches of unequal size, as at test points


def _batch_costs(a, b, ends):
    """CPU of each batch under a per-row cost a + b sqrt(x), by numerical integration."""
    starts = [0, *ends[:-1]]
    return [quad(lambda x: a + b * np.sqrt(x), s, e)[0] for s, e in zip(starts, ends)]


@pytest.mark.parametrize(("a", "b"), [(2e-3, 0.0), (1e-3, 4e-5), (5e-4, 1e-4)])
def test_fit_recovers_a_growing_cost_curve_and_extrapolates_its_integral(a, b):
    got_a, got_b = fit_cost(ENDS, _batch_costs(a, b, ENDS))
    assert got_a == pytest.approx(a, rel=1e-6, abs=1e-12)
    assert got_b == pytest.approx(b, rel=1e-6, abs=1e-12)
    curve = CostCurve(fixed=1.5, measured=sum(_batch_costs(a, b, ENDS)), rows=ENDS[-1],
                      per_row=got_a, growth=got_b)
    whole = quad(lambda x: a + b * np.sqrt(x), 0, 40_000)[0]
    assert curve.cpu(40_000) == pytest.approx(1.5 + whole, rel=1e-9)


def test_fit_takes_the_growth_one_standard_error_towards_zero():
    rng = np.random.default_rng(7)
    costs = np.array(_batch_costs(1e-3, 3e-5, ENDS)) * rng.uniform(0.9, 1.1, len(ENDS))
    a, b = fit_cost(ENDS, costs)
    # the same least squares as a weighted fit of cost/rows against the mean of sqrt(x)
    # over the batch, sigma 1/rows (scipy's curve_fit; its covariance has M - 2 dof)
    e = np.array(ENDS, float)
    s = np.r_[0.0, e[:-1]]
    n = e - s
    z = (e**1.5 - s**1.5) * 2 / 3 / n
    (a0, b0), cov = curve_fit(lambda x, p, q: p + q * x, z, costs / n, sigma=1 / n)
    want_b = b0 - np.sqrt(cov[1, 1])
    assert 0 < want_b < b0 and b == pytest.approx(want_b, rel=1e-6)
    # a, fitted again with that growth: the weighted mean of what the growth leaves
    assert a == pytest.approx(np.sum(n * (costs - want_b * z * n)) / np.sum(n * n), rel=1e-6)
    assert a > a0


def test_noise_without_growth_is_not_extrapolated():
    # a flat cost with noise whose least-squares slope is positive (0.019 per batch), but
    # less than one standard error from 0
    costs = [1.0, 1.3, 0.9, 1.2, 1.0, 1.25]
    assert np.polyfit(np.arange(6), costs, 1)[0] > 0
    a, b = fit_cost([1000 * k for k in range(1, 7)], costs)
    assert b == 0.0 and a == pytest.approx(sum(costs) / 6000)


@pytest.mark.parametrize(
    ("ends", "costs"),
    [
        ([1000, 2000, 3000, 4000], [1.3, 1.1, 1.0, 0.9]),  # falling: never extrapolated down
        ([1000, 2000], [2.0, 3.0]),  # two batches: too few to tell growth from noise
    ],
)
def test_a_falling_or_unfittable_cost_is_projected_flat(ends, costs):
    a, b = fit_cost(ends, costs)
    assert b == 0.0 and a == pytest.approx(sum(costs) / ends[-1])


def test_the_budget_rule():
    # a round is affordable while the CPU spent plus one more round stays within the share
    assert affordable(spent=9.0, round_cost=1.0, projected=[300.0, 100.0], budget=0.1)
    assert not affordable(spent=9.5, round_cost=1.0, projected=[300.0, 100.0], budget=0.1)
    assert not affordable(spent=0.5, round_cost=1.0, projected=[300.0, 5.0], budget=0.1)


CFG = RunConfig(stream="sea", n_rows=3000, learners=("nb", "majority"), n_folds=4,
                test_every=500)


def test_probes_stop_at_the_minimum_when_a_known_stream_is_tiny():
    # a stream whose known cost is ~0 leaves no budget: every probe does its minimum
    probes = probe_streams([CFG, dataclasses.replace(CFG, stream="SEA(50)")],
                           others=[1e-9], min_batches=3)
    assert [c.rows for c in probes.curves] == [750, 750]  # batches of 250 rows


def test_probes_run_to_the_end_of_short_streams_with_budget_to_spare():
    probes = probe_streams([CFG], budget=1e9)
    [curve] = probes.curves
    assert curve.rows == 3000 and curve.cpu(3000) == pytest.approx(curve.fixed + curve.measured)
    assert probes.spent >= probes.once > 0


def test_the_probed_replica_is_fold_0_of_the_real_run():
    """The probe hosts fold 0 of each learner, trained and tested on the rows the run's
    fold 0 sees: its final measures are the run's fold 0's."""
    probe = StreamProbe(CFG)
    while probe.step():
        pass
    assert probe.ends == [250 * k for k in range(1, 13)] and probe.scale == 4
    folds = probe.snapshot.folds
    run = evaluate(CFG).final_folds()
    for learner in CFG.labels:
        mine = [acc for acc, lab, f, kind in zip(folds["accuracy"], folds["learner"],
                                                 folds["fold"], folds["forgetting"])
                if lab == learner and f == 0 and kind == "cumulative"]
        real = run[(run.learner == learner) & (run.fold == 0)
                   & (run.forgetting == "cumulative")].accuracy.tolist()
        assert len(mine) == len(real) == 1 and mine == pytest.approx(real)


def test_plan_text_gives_the_probes_share_of_the_smallest_stream():
    plan = SuitePlan(
        [
            {"name": "a", "rows": 20_000, "cpu_per_krow": 2.0, "done": False, "source": "p"},
            {"name": "b", "rows": 10_000, "cpu_per_krow": 3.0, "done": False, "source": "p"},
        ],
        probe_seconds=1.2, probe_wall=2.4,
    )
    text = plan.to_text()
    assert "The probes took 1.2 CPU-s in 2.4 s, 4 % of the smallest stream" in text  # 1.2 / 30
    # half a core for the probes: beside them, cores / 0.5 - 1 processes' worth of other
    # work, so each of the suite's k workers gets cores / (others + k) of a core (a fair
    # share), its own process cores / (others + 1); the workers run the idle-core schedule
    # (40 s and 30 s of CPU, LPT) after their start-up, the suite's process its start-up
    # and the statistics at the end
    import os

    from distval.experiments.suite.plan import FINISH_SECONDS, START_SECONDS

    cores = os.cpu_count() or 1
    others, k = cores / 0.5 - 1, min(cores, 2)
    idle = 70.0 if k == 1 else 40.0
    own = (START_SECONDS + FINISH_SECONDS) / min(1, cores / (others + 1))
    want = own + (START_SECONDS + idle) / min(1, cores / (others + k))
    assert plan.wall_now(cores) == pytest.approx(want)
    assert f"On this machine now: about {duration(want)} on its {cores} cores" in text
    ray = SuitePlan(plan.streams, probe_seconds=1.2, probe_wall=2.4, startup_seconds=3.6)
    assert ray.wall_now(cores) == pytest.approx(  # Ray's start, at the suite process's share
        want + 3.6 / min(1, cores / (others + 1)))
    assert "Ray's start and stop, 3.6 s when idle" in ray.to_text()
    # in-process: the streams one after another in the suite's own process
    alone = SuitePlan(plan.streams, probe_seconds=1.2, probe_wall=2.4, workers=1)
    assert alone.wall_now(cores) == pytest.approx(
        (START_SECONDS + FINISH_SECONDS + 70.0) / min(1, cores / (others + 1)))

    assert "probes" not in SuitePlan(plan.streams).to_text()
    assert "covered" not in text
    plan.streams[1]["probed"] = 1000  # a tenth of b's rows: the growth may be missed
    assert "A probe covered only 10 % of its stream" in plan.to_text()
    plan.streams[1]["probed"] = 2000
    assert "covered" not in plan.to_text()

def test_the_load_beside_a_probe_that_had_a_whole_core_is_the_threads_running():
    """A probe under a whole core measures the others by its share (fair sharing); one
    that had a whole core only says they left it room: the threads running beside it
    count, at most cores - 1, and 2 workers on 2 cores beside one busy thread get 2/3."""
    streams = [{"name": n, "rows": 1000, "cpu_per_krow": 3.0, "done": False, "source": "p"}
               for n in "ab"]
    idle = SuitePlan(streams, probe_seconds=2.0, probe_wall=2.0, elsewhere=0.0)
    busy = SuitePlan(streams, probe_seconds=2.0, probe_wall=2.0, elsewhere=1.0)
    crowded = SuitePlan(streams, probe_seconds=2.0, probe_wall=2.0, elsewhere=9.0)
    assert idle.share(2, 2) == 1.0 and busy.share(2, 2) == pytest.approx(2 / 3)
    assert crowded.others(2) == 1.0  # 9 threads beside it would have taken part of its core
    loaded = SuitePlan(streams, probe_seconds=1.0, probe_wall=4.0)  # a quarter of a core
    assert loaded.others(2) == pytest.approx(7.0)
    assert loaded.share(2, 2) == pytest.approx(2 / 9)


def test_the_probes_stop_at_their_wall_time_budget_on_a_long_stream():
    """``--plan`` on a million rows: with a CPU budget that would allow 100,000 rows of
    probing, a wall budget of 1 s stops the probe after its first batches, far from the
    stream's end (the projection still covers the million rows)."""
    from distval.experiments.suite.probe import probe_streams

    cfg = RunConfig(stream="sea", n_rows=1_000_000, learners=("nb",), n_folds=2,
                    test_every=500)
    probes = probe_streams([cfg], budget=0.1, seconds=1.0)
    (curve,) = probes.curves
    assert 1000 <= curve.rows <= 50_000
    assert curve.cpu(1_000_000) > curve.cpu(curve.rows) > 0
