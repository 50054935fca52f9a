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


@pytest.mark.parametrize("learner", ["ht", "nb", "arf(n_models=3)"])
def test_a_restored_host_goes_on_with_its_cost_and_rivers_bytes_of_the_restored_model(learner):
    """A host pickled at row 400 (a checkpoint, a move to a Ray actor, a killed actor's
    recovery) keeps its rows, CPU and RAM-hours. Its bytes are river's walk of the models it
    holds: after row 400 those of the restored
    models, which equal, exactly, river's ``_raw_memory_usage`` of the uninterrupted host's
    models pickled and loaded apart at row 400 and trained on the same rows. They are
    not the never-pickled models' bytes: Python's containers come back from a pickle
    without their spare room (docs/cost.md says why distval does not hide that)."""
    straight, cut = _host(learner, 2), _host(learner, 2)
    batches = _batches(800, 100, 2)
    for b in batches[:4]:
        straight.process(b)
        cut.process(b)
    straight.cost.drain()
    cut.cost.drain()
    # a copy of the uninterrupted host, pickled and loaded apart from the one that goes on
    reference = pickle.loads(pickle.dumps(straight, protocol=4))
    carried = [x.tolist() for x in (cut.cost.rows, cut.cost.cpu, cut.cost.ram_hours)]
    cut = pickle.loads(pickle.dumps(cut, protocol=4))  # what a checkpoint or a move does
    # carried over, not restarted
    assert [x.tolist() for x in (cut.cost.rows, cut.cost.cpu, cut.cost.ram_hours)] == carried
    for b in batches[4:]:
        straight.process(b)
        cut.process(b)
        reference.process(b)
        walked = [float(m._raw_memory_usage) for m in reference.models]  # river's own walk
        assert cut.cost.drain()["bytes"].tolist() == walked
    a = straight.cost.drain()
    assert a["rows"][-2:].tolist() == cut.cost.rows.tolist() == [800, 800]
    # CPU and RAM-hours: each process's own, equal within the CPU noise of a shared machine
    assert cut.cost.cpu.sum() == pytest.approx(straight.cost.cpu.sum(), rel=0.5)
    assert cut.cost.ram_hours.sum() == pytest.approx(a["ram_hours"][-2:].sum(), rel=0.5)


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
