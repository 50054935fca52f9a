"""The cost a learner host measures, against independent references: river's own
``_raw_memory_usage`` of the same object, a busy loop's CPU timed apart, a sleep."""

from __future__ import annotations

import pickle
import time

import numpy as np
import pytest
from river import datasets

from distval.learners import Batch, LearnerHost, parse_learner
from tests.helpers.costly_learner import LEARN_CPU


def _batches(n_rows: int, size: int, folds: int, seed: int = 1) -> list[Batch]:
    rows = list(datasets.synth.SEA(seed=seed).take(n_rows))
    X = np.array([[x[k] for k in sorted(x)] for x, _ in rows])
    y = np.array([int(t) for _, t in rows])
    rng = np.random.default_rng(seed)
    w = rng.poisson(1.0, (n_rows, folds)).astype(np.int32)
    return [Batch(s, X[s:s + size], y[s:s + size], w[s:s + size],
                  np.ones((len(y[s:s + size]), folds), bool))
            for s in range(0, n_rows, size)]


def _host(learner: str, folds: int, every: int | None = 100) -> LearnerHost:
    return LearnerHost([parse_learner(learner)], [(0, f) for f in range(folds)],
                       ["0", "1", "2"], seed=1, cost_every=every)


def test_bytes_are_rivers_raw_memory_usage_of_the_same_replica_at_the_same_row():
    host = _host("ht(grace_period=50)", 3)
    for b in _batches(1000, 100, 3):
        host.process(b)
        cols = host.cost.drain()
        expected = [m._raw_memory_usage for m in host.models]  # river's own walk, now
        assert cols["position"].tolist() == [b.start + 100] * 3
        assert cols["bytes"].tolist() == [float(e) for e in expected]
        assert set(cols["measure"]) == {"river _raw_memory_usage"}
    assert len(set(expected)) > 1  # the folds grew apart: a real per-replica size


def test_busy_learner_cpu_per_row_within_ten_percent_split_learn_and_predict():
    rows = 300
    host = LearnerHost([parse_learner("tests.helpers.costly_learner:Busy")], [(0, 0)],
                       ["0", "1", "2"], seed=1, cost_every=100)
    for b in _batches(rows, 100, 1):
        b = Batch(b.start, b.X, b.y, np.ones_like(b.weights), b.tested)  # learn every row
        host.process(b)
    cols = host.cost.drain()
    learn, predict = cols["cpu_learn"][-1], cols["cpu_predict"][-1]
    assert learn + predict == pytest.approx(3 * rows * LEARN_CPU, rel=0.10)  # by construction
    # the split follows the wall clock's shares (one cheap reading pair per tested row)
    assert predict / (learn + predict) == pytest.approx(2 / 3, abs=0.08)


def test_sleeping_learner_costs_next_to_no_cpu():
    host = LearnerHost([parse_learner("tests.helpers.costly_learner:Sleepy")], [(0, 0)],
                       ["0", "1", "2"], seed=1, cost_every=100)
    started = time.perf_counter()
    for b in _batches(200, 100, 1):
        host.process(Batch(b.start, b.X, b.y, np.ones_like(b.weights), b.tested))
    wall = time.perf_counter() - started
    cpu = host.cost.drain()["cpu"][-1]
    assert wall > 0.4  # 200 sleeps of 2 ms
    assert cpu < 0.05 * wall


def test_a_pickled_host_goes_on_with_its_cost_bytes_exactly_at_the_same_row():
    straight, cut = _host("ht", 2), _host("ht", 2)
    batches = _batches(800, 100, 2)
    for b in batches:
        straight.process(b)
    for b in batches[:4]:
        cut.process(b)
    cut.cost.drain()
    cut = pickle.loads(pickle.dumps(cut, protocol=4))  # what a checkpoint or a move does
    for b in batches[4:]:
        cut.process(b)
    a, b_ = straight.cost.drain(), cut.cost.drain()
    # river's walk of an unpickled model differs from the never-pickled one's (Python's
    # containers come back without their spare room), so the reference is river's own
    # measure of the uninterrupted replica after the same round trip, at the same row
    # (still a few bytes apart: the walk counts interned objects differently)
    again = [pickle.loads(pickle.dumps(m, protocol=4))._raw_memory_usage
             for m in straight.models]
    assert b_["bytes"][-2:] == pytest.approx(again, rel=0.005)  # not exact: see report
    assert a["rows"][-2:].tolist() == b_["rows"][-2:].tolist() == [800, 800]
    assert b_["ram_hours"][-2:] == pytest.approx(a["ram_hours"][-2:], rel=0.5)


def test_parts_and_joins_keep_each_slots_cost():
    host = _host("nb", 3)
    for b in _batches(200, 100, 3):
        host.process(b)
    before = host.cost.cpu.copy()
    joined = LearnerHost.join([host.part([(0, 2)]), host.part([(0, 0), (0, 1)])])
    assert joined.cost.cpu.tolist() == before[[2, 0, 1]].tolist()


def test_a_learner_that_cannot_be_measured_gives_an_empty_size_and_its_reason():
    import threading

    from distval.learners.cost import model_bytes

    class Opaque:
        lock = threading.Lock()

    size, measure, reason = model_bytes(Opaque())
    assert size is None and measure == "pickled size" and "pickle" in reason
