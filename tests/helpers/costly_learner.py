"""River classifiers of known cost, for the cost tests: one that burns a fixed busy loop per
call (its CPU per row is what the loop costs, timed apart by the test), one that sleeps."""

from __future__ import annotations

import time

from river import dummy

#: Iterations of the busy loop per learn_one; predict_one runs twice as many.
LOOP = 20_000


def burn(n: int) -> int:
    """A fixed amount of CPU work: ``n`` iterations of integer arithmetic."""
    s = 0
    for i in range(n):
        s += i * i
    return s


class Busy(dummy.NoChangeClassifier):
    """Learning a row costs ``burn(LOOP)``, predicting one ``burn(2 * LOOP)``."""

    def learn_one(self, x, y):
        burn(LOOP)
        super().learn_one(x, y)

    def predict_one(self, x):
        burn(2 * LOOP)
        return super().predict_one(x)


class Sleepy(dummy.NoChangeClassifier):
    """Sleeps 2 ms per row learned: wall time, no CPU."""

    def learn_one(self, x, y):
        time.sleep(0.002)
        super().learn_one(x, y)
