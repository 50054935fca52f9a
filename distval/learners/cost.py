"""What each replica costs, measured where it runs: thread CPU seconds in its own learn and
predict calls, the rows it went through, its model's bytes at test positions and the
RAM-hours accumulated as MOA's ``EvaluatePrequentialCV`` does (GB held times CPU-hours
spent, one increment per test position).

A :class:`CostBook` belongs to a :class:`~distval.learners.host.LearnerHost` (one entry per
slot): it is replica state, pickled with the host, so it follows a replica that moves
between Ray actors and comes back with a checkpoint. Only the replica's own calls are
timed, one pair of clock readings per replica and batch (river: plus one pair per tested
row, on the cheap wall clock, to split the batch's CPU between predicting and learning).

>>> book = CostBook(1, every=100)
>>> book.add(0, cpu=0.5, predict_wall=0.1, wall=0.5, rows=100)
>>> book.record(100, [(0, 0)], ["nb"], [(2**30, "pickled size", "")])
>>> cols = book.drain()
>>> cols["cpu_learn"].tolist(), cols["cpu_predict"].tolist(), cols["ram_hours"].round(8).tolist()
([0.4], [0.1], [0.00013889])
"""

from __future__ import annotations

import pickle
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["GB", "CostBook", "Size", "model_bytes"]

#: Bytes in one GB as MOA counts them (1024³).
GB = 1024.0**3

#: A model's size: bytes (None: not measured), the measure's name, why it is empty.
Size = tuple[int | None, str, str]


def model_bytes(model: Any) -> Size:
    """A river or mini-batch replica's bytes: river's ``_raw_memory_usage`` for a river
    estimator, else the pickled size (named as such); None with the reason when neither
    can be had.

    >>> from river import naive_bayes
    >>> m = naive_bayes.GaussianNB()
    >>> model_bytes(m) == (m._raw_memory_usage, "river _raw_memory_usage", "")
    True
    >>> import threading
    >>> model_bytes(threading.Lock())[0] is None
    True
    """
    inner = getattr(model, "model", model) if type(model).__name__ == "MiniBatchReplica" \
        else model
    if hasattr(type(inner), "_raw_memory_usage"):
        try:
            return int(inner._raw_memory_usage), "river _raw_memory_usage", ""
        except Exception as exc:  # a model river's walk cannot measure
            return None, "river _raw_memory_usage", f"{type(exc).__name__}: {exc}"
    try:
        return len(pickle.dumps(inner, protocol=4)), "pickled size", ""
    except Exception as exc:  # what pickle raises varies
        return None, "pickled size", f"cannot pickle it: {type(exc).__name__}: {exc}"


_EMPTY = {
    "position": np.zeros(0, np.int64), "learner": np.zeros(0, object),
    "fold": np.zeros(0, np.int32), "rows": np.zeros(0, np.int64),
    **{k: np.zeros(0) for k in ("cpu_learn", "cpu_predict", "cpu", "bytes")},
    "measure": np.zeros(0, object), "reason": np.zeros(0, object), "ram_hours": np.zeros(0),
}


class CostBook:
    """The cost of ``n`` slots so far, and the cost table's rows not yet written.

    ``every``: the test period (a row is recorded at each multiple); None: nothing is
    measured (the run's ``cost`` switch is off).
    """

    def __init__(self, n: int, every: int | None) -> None:
        self.every = every
        self.learn = np.zeros(n)
        self.predict = np.zeros(n)
        #: CPU seconds not told apart between learning and predicting (MOA's replicas).
        self.whole = np.zeros(n)
        self.split = np.ones(n, bool)
        self.rows = np.zeros(n, np.int64)
        self.ram_hours = np.zeros(n)
        self.bytes = np.full(n, np.nan)
        self._cpu_then = np.zeros(n)  # each slot's CPU at its last RAM-hours increment
        self._log: list[dict[str, np.ndarray]] = []

    @property
    def on(self) -> bool:
        return self.every is not None

    def due(self, end: int) -> bool:
        """Whether a batch that ends at row ``end`` ends at a test position."""
        return self.every is not None and end % self.every == 0

    def add(self, j: int, cpu: float, predict_wall: float | None, wall: float,
            rows: int) -> None:
        """Slot ``j`` spent ``cpu`` thread seconds on ``rows`` rows; ``predict_wall`` of
        its ``wall`` seconds predicting (None: not told apart)."""
        self.rows[j] += rows
        if predict_wall is None:
            self.whole[j] += cpu
            self.split[j] = False
            return
        share = min(max(predict_wall / wall, 0.0), 1.0) if wall > 0 else 0.0
        self.predict[j] += cpu * share
        self.learn[j] += cpu * (1.0 - share)

    @property
    def cpu(self) -> np.ndarray:
        return self.learn + self.predict + self.whole

    def record(self, position: int, slots: Sequence[tuple[int, int]], labels: Sequence[str],
               sizes: Sequence[Size]) -> None:
        """A test position: each slot's bytes now, its RAM-hours increment (bytes in GB times
        the CPU-hours since the last position, as MOA's task) and a row of the table."""
        b = np.array([np.nan if s[0] is None else float(s[0]) for s in sizes])
        cpu = self.cpu
        self.ram_hours += np.nan_to_num(b) / GB * (cpu - self._cpu_then) / 3600.0
        self._cpu_then = cpu
        self.bytes = b
        n = len(slots)
        self._log.append({
            "position": np.full(n, position, np.int64),
            "learner": np.array([labels[i] for i, _ in slots], dtype=object),
            "fold": np.array([f for _, f in slots], np.int32),
            "rows": self.rows.copy(),
            "cpu_learn": np.where(self.split, self.learn, np.nan),
            "cpu_predict": np.where(self.split, self.predict, np.nan),
            "cpu": cpu.copy(),
            "bytes": b,
            "measure": np.array([s[1] for s in sizes], dtype=object),
            "reason": np.array([s[2] or None for s in sizes], dtype=object),
            "ram_hours": self.ram_hours.copy(),
        })

    def drain(self) -> dict[str, np.ndarray]:
        """The rows recorded since the last drain, as the columns of
        :data:`distval.columns.COST_SCHEMA` (none: each column empty)."""
        if not self._log:
            return {k: v[:0] for k, v in _EMPTY.items()}
        out = {k: np.concatenate([c[k] for c in self._log]) for k in _EMPTY}
        self._log = []
        return out

    _ARRAYS = ("learn", "predict", "whole", "split", "rows", "ram_hours", "bytes", "_cpu_then")

    def part(self, at: Sequence[int]) -> CostBook:
        """The book of the slots at positions ``at`` (the rows not yet drained stay here)."""
        new = CostBook(0, self.every)
        idx = np.asarray(at, np.intp)
        for name in self._ARRAYS:
            setattr(new, name, getattr(self, name)[idx].copy())
        return new

    @classmethod
    def join(cls, books: Sequence[CostBook]) -> CostBook:
        """One book of ``books``' slots in their order, with their undrained rows."""
        new = cls(0, books[0].every)
        for name in cls._ARRAYS:
            setattr(new, name, np.concatenate([getattr(b, name) for b in books]))
        new._log = [c for b in books for c in b._log]
        return new
