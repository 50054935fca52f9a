"""A river classifier that sleeps instead of computing: ``cost_us`` microseconds per
prediction, paid in sleeps of at least ``quantum_us`` (oversleep credited back, up to one
quantum), so many replicas can "work" at once on a few cores while the engine's own costs
stay real.

Ray workers import it by name (``sleepy:SleepClassifier(cost_us=48.0)``) when this folder
is on their ``PYTHONPATH``; :mod:`bench_scale` puts it there.

>>> s = SleepClassifier(cost_us=10.0)
>>> [s.predict_one({"x": 1.0}) for _ in range(3)], s.owed()
([0, 0, 0], 3e-05)
"""

from __future__ import annotations

import time

from river import base


class SleepClassifier(base.Classifier):
    """Predicts 0 after charging ``cost_us``; learning is free."""

    def __init__(self, cost_us: float = 100.0, quantum_us: float = 2000.0) -> None:
        self.cost_us = cost_us
        self.quantum_us = quantum_us
        self._debt = 0.0
        self._charged = 0.0

    def learn_one(self, x: dict, y: object, w: float = 1.0) -> None:
        return None

    def predict_one(self, x: dict, **kwargs: object) -> int:
        self._debt += self.cost_us * 1e-6
        self._charged += self.cost_us * 1e-6
        if self._debt >= self.quantum_us * 1e-6:
            t0 = time.perf_counter()
            time.sleep(self._debt)
            # oversleep is credited back, but no more than one quantum: a stall (a process
            # descheduled, a pause at start-up) must not buy rows for free later
            self._debt = max(self._debt - (time.perf_counter() - t0), -self.quantum_us * 1e-6)
        return 0

    def predict_proba_one(self, x: dict, **kwargs: object) -> dict:
        return {0: 1.0}

    def owed(self) -> float:
        """Seconds charged so far."""
        return round(self._charged, 9)
