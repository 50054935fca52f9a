"""What a stream's run will cost, from a short probe: ``distval suite --plan`` without
measured costs.

A probe runs the stream as a real run does (the same batches, fold routing and aggregator)
but hosts **one replica per learner** (fold 0) instead of ``n_folds``: the replicas of a
learner see the same rows in distribution, so the host's CPU per batch times ``n_folds`` is
the full host's, at a fraction of the cost. Reading the stream and the aggregator (fed every
slot, each fold's predictions taken from the learner's probed replica) are measured as they
are. The per-row cost of a learner that grows a model (Hoeffding trees, forests) rises with
the rows it has seen, and it rises more slowly as the model grows, so the probe's batch costs
are fitted by a per-row cost ``a + b sqrt(x)`` at row ``x`` (:func:`fit_cost`; ``b`` is
never negative: a falling cost is projected flat) and the rows after the probe are charged
its integral. Of the shapes tried on measured cost curves (flat, ``ln x``, ``sqrt(x)``,
linear), the square root came closest when extrapolating a probe of a sixth to a third of
a stream: a flat cost misses the growth of forests, a linear one over-shoots the trees whose
growth slows. The one-off costs of a process (imports, numba's compiled kernels, the JVM of MOA
learners: :func:`warm_up`) and each stream's set-up are charged to every stream, as a Ray
worker that starts with that stream pays them.

:func:`probe_streams` probes every stream in turn, a batch at a time, until the probes'
CPU would pass ``budget`` (10 %) of the smallest stream's projected cost, or their wall time
:data:`PROBE_SECONDS` (20 s); at least ``min_batches`` batches each. The probes' CPU over
their wall time is the share of a core this process gets now, under the machine's load;
beside it, the threads the machine ran at once besides this one (:func:`running_elsewhere`),
for the load that still leaves one process a whole core.

>>> cfg = RunConfig(stream="sea", n_rows=4000, learners=("nb",), n_folds=2, test_every=500)
>>> [curve] = probe_streams([cfg], budget=1.0).curves
>>> 1500 <= curve.rows <= 4000, curve.cpu(8000) > curve.cpu(4000) > 0
(True, True)
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from distval.config import RunConfig
from distval.engine.loop import LocalEvaluation, iter_batches, open_config_stream
from distval.errors import DistvalError
from distval.evaluation import evaluate

__all__ = [
    "CostCurve", "Probes", "StreamProbe", "affordable", "fit_cost", "probe_streams",
    "running_elsewhere", "warm_up",
]

#: Share of the smallest stream's projected CPU the probes may spend (``--plan``).
BUDGET = 0.10
#: Wall seconds the probes may take in all (after their first ``MIN_BATCHES`` batches each):
#: ``--plan`` stays short whatever the streams' lengths (``--n-rows 1000000`` included).
PROBE_SECONDS = 20.0
#: Batches every stream is probed on, whatever the budget.
MIN_BATCHES = 4
#: Rows of the probe's batches at most (more points for the fit than the run's batches).
PROBE_BATCH = 250


def _g(x: float | np.ndarray) -> np.ndarray:
    """``2/3 x^(3/2)``, the integral of ``sqrt(x)`` from 0."""
    return 2.0 / 3.0 * np.asarray(x, dtype=float) ** 1.5


@dataclass(frozen=True)
class CostCurve:
    """CPU-seconds of a stream's run: ``fixed`` (one-off and set-up costs), ``measured``
    (the probe's ``rows`` rows, scaled to every replica) and, past them, the integral of the
    per-row cost ``per_row + growth * sqrt(x)`` at row ``x``.

    >>> c = CostCurve(fixed=1.0, measured=2.0, rows=1000, per_row=0.002, growth=0.0)
    >>> c.cpu(1000), c.cpu(3000)
    (3.0, 7.0)
    """

    fixed: float
    measured: float
    rows: int
    per_row: float
    growth: float

    def cpu(self, n: int) -> float:
        """Projected CPU-seconds of the first ``n`` rows (``n`` at least the probe's)."""
        extra = self.per_row * (n - self.rows) + self.growth * float(_g(n) - _g(self.rows))
        return self.fixed + self.measured + max(0.0, extra)


def fit_cost(ends: Sequence[int], costs: Sequence[float]) -> tuple[float, float]:
    """``(a, b)`` of the per-row cost ``a + b sqrt(x)`` at row ``x`` that fits the CPU of
    consecutive batches ending at rows ``ends`` (the first starts at row 0) in least
    squares: a batch's cost is the integral ``a n + b (G(end) - G(start))``,
    ``G(x) = 2/3 x^(3/2)``. The growth ``b`` is taken one standard error towards 0 (never
    below: a falling cost is projected flat) and ``a`` fitted again with it, so that the
    noise of a few batches is not extrapolated as growth; with fewer than three batches the
    cost is the flat mean ``sum(costs) / rows``.

    >>> a, b = fit_cost([100, 200, 300], [0.1, 0.1, 0.1])
    >>> round(a, 6), round(b, 6)
    (0.001, 0.0)
    """
    e = np.asarray(ends, dtype=float)
    c = np.asarray(costs, dtype=float)
    s = np.r_[0.0, e[:-1]]
    n, grown = e - s, _g(e) - _g(s)
    flat = (float(c.sum() / e[-1]), 0.0)
    if len(e) < 3:
        return flat
    design = np.column_stack([n, grown])
    (a, b), *_ = np.linalg.lstsq(design, c, rcond=None)
    residual = c - design @ np.array([a, b])
    sigma2 = float(residual @ residual) / (len(e) - 2)
    se = math.sqrt(max(0.0, sigma2 * float(np.linalg.pinv(design.T @ design)[1, 1])))
    b = max(0.0, float(b) - se)
    if b == 0.0:
        return flat
    a = float(n @ (c - b * grown) / (n @ n))
    if a + b * math.sqrt(e[-1]) <= 0:
        return flat
    return a, b


def affordable(spent: float, round_cost: float, projected: Sequence[float],
               budget: float) -> bool:
    """Whether another round of probes, costing about as much as the last
    (``round_cost``), keeps the CPU ``spent`` on probing within ``budget`` times the
    smallest ``projected`` stream.

    >>> affordable(3.0, 1.0, [50.0, 40.0], 0.1), affordable(3.5, 1.0, [50.0, 40.0], 0.1)
    (True, False)
    """
    return spent + round_cost <= budget * min(projected)


def warm_up(config: RunConfig) -> float:
    """CPU-seconds of a run of a few rows of ``config`` in this process: the one-off costs
    a process pays before its first run goes at full speed (imports, numba's compiled
    kernels, the JVM), paid here once so that the probes after it are warm."""
    every = min(config.test_every, 100)
    tiny = dataclasses.replace(
        config, n_rows=2 * every, test_every=every, planned_rows=None, batch_size=every
    )
    cpu = time.process_time()
    # a setting that needs more rows raises DistvalError: the probes will pay the costs
    with warnings.catch_warnings(), contextlib.suppress(DistvalError):
        warnings.simplefilter("ignore")
        evaluate(tiny, checkpoint_seconds=None)
    return time.process_time() - cpu


class StreamProbe:
    """A stream's run, a batch at a time, on one replica per learner; ``ends`` and
    ``costs``: the rows done and the CPU-seconds of each batch, scaled to ``n_folds``
    replicas per learner; ``snapshot``: the aggregator's last test point.

    >>> p = StreamProbe(RunConfig(stream="sea", n_rows=750, learners=("nb",), n_folds=4,
    ...                           test_every=250))
    >>> while p.step():
    ...     pass
    >>> p.ends, p.scale
    ([250, 500, 750], 4)
    """

    def __init__(self, config: RunConfig) -> None:
        cpu = time.process_time()
        config = dataclasses.replace(config, batch_size=min(config.batch_size, PROBE_BATCH))
        stream = open_config_stream(config)
        self.local = LocalEvaluation(config, stream)
        n_learners, self.scale = len(config.learners), config.n_folds
        self.host = self.local.host.part([(i, 0) for i in range(n_learners)])
        # the probed replica of each of the run's slots, (learner, fold) in order
        self._probed = np.repeat(np.arange(n_learners), self.scale)
        self._ids = np.arange(n_learners * self.scale)
        self._batches = iter_batches(stream, config)
        self.ends: list[int] = []
        self.costs: list[float] = []
        self.snapshot: Any = None  # the aggregator's last, as a run would record it
        self.setup = time.process_time() - cpu
        self.spent = self.setup

    @property
    def rows(self) -> int:
        return self.ends[-1] if self.ends else 0

    def step(self) -> bool:
        """Run the next batch; False at the end of the stream."""
        t0 = time.process_time()
        batch = next(self._batches, None)
        if batch is None:
            return False
        t1 = time.process_time()
        out = self.host.process(batch)
        t2 = time.process_time()
        full: Any
        if isinstance(out, tuple):  # predictions and class probabilities
            full = (out[0][self._probed], out[1][self._probed])
        else:
            full = out[self._probed]
        snap = self.local.aggregator.update(
            batch.start, batch.scored_y, [(self._ids, full)], arrived=len(batch),
            release=batch.release,
        )
        self.snapshot = snap or self.snapshot
        t3 = time.process_time()
        self.spent += t3 - t0
        self.ends.append(self.rows + len(batch))
        self.costs.append((t1 - t0) + self.scale * (t2 - t1) + (t3 - t2))
        return True

    def curve(self, once: float = 0.0) -> CostCurve:
        """The cost curve from the batches so far, ``once`` (the process's one-off costs)
        and this stream's set-up charged as fixed."""
        a, b = fit_cost(self.ends, self.costs)
        return CostCurve(once + self.setup, float(sum(self.costs)), self.rows, a, b)


def running_elsewhere() -> float | None:
    """Threads running or ready to run on this machine now besides this one (Linux's
    ``/proc/loadavg``: the running count includes the reader); None where it cannot say.

    >>> n = running_elsewhere()
    >>> n is None or n >= 0
    True
    """
    try:
        with open("/proc/loadavg") as fh:
            running = int(fh.read().split()[3].split("/")[0])
    except (OSError, ValueError, IndexError):
        return None
    return float(max(0, running - 1))


@dataclass
class Probes:
    """The probes' result: a cost curve per stream, the one-off costs (``once``), the
    CPU-seconds the probing took in all (``spent``), its wall seconds (``wall``) and the
    mean of :func:`running_elsewhere` over its rounds (``elsewhere``; None: not known)."""

    curves: list[CostCurve]
    once: float
    spent: float
    wall: float = 0.0
    elsewhere: float | None = None


def probe_streams(
    configs: Sequence[RunConfig],
    *,
    budget: float = BUDGET,
    others: Sequence[float] = (),
    min_batches: int = MIN_BATCHES,
    seconds: float = PROBE_SECONDS,
) -> Probes:
    """Probe each stream of ``configs`` (their ``n_rows`` is the run's length), a batch of
    each in turn, until another round would take the CPU spent past ``budget`` times the
    smallest projected cost (of these streams and of ``others``, the CPU-seconds of
    streams whose cost is known), or every stream is probed to its end; at least
    ``min_batches`` batches each, and no new round once the wall time would pass
    ``seconds``."""
    start, wall0 = time.process_time(), time.perf_counter()
    once = warm_up(configs[0]) if configs else 0.0
    probes = [StreamProbe(c) for c in configs]
    lengths = [c.n_rows for c in configs]
    active = list(range(len(probes)))
    seen: list[float] = []
    while active:
        before, round0 = time.process_time(), time.perf_counter()
        now_elsewhere = running_elsewhere()
        if now_elsewhere is not None:
            seen.append(now_elsewhere)
        for j in list(active):
            if not probes[j].step():
                active.remove(j)
        if any(len(probes[j].costs) < min_batches for j in active):
            continue
        curves = [p.curve(once) for p in probes]
        projected = [
            c.cpu(n if n is not None else c.rows) for c, n in zip(curves, lengths, strict=True)
        ]
        now, wall = time.process_time(), time.perf_counter()
        if not affordable(now - start, now - before, [*projected, *others], budget):
            break
        if wall - wall0 + (wall - round0) > seconds:
            break
    return Probes([p.curve(once) for p in probes], once, time.process_time() - start,
                  time.perf_counter() - wall0, float(np.mean(seen)) if seen else None)
