"""River classifiers of known cost, for the cost tests: one that spends a fixed amount of
its own thread's CPU time per call (known by construction, whatever the machine's load), one
that sleeps."""

from __future__ import annotations

import time

from river import dummy

#: Thread CPU seconds one learn_one spends; predict_one spends twice as much.
LEARN_CPU = 0.001


def spend(seconds: float) -> None:
    """Spin until this thread has used ``seconds`` more CPU time (``time.thread_time``)."""
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


class Busy(dummy.NoChangeClassifier):
    """Learning a row costs ``LEARN_CPU`` of thread CPU, predicting one ``2 * LEARN_CPU``."""

    def learn_one(self, x, y):
        spend(LEARN_CPU)
        super().learn_one(x, y)

    def predict_one(self, x):
        spend(2 * LEARN_CPU)
        return super().predict_one(x)


class Sleepy(dummy.NoChangeClassifier):
    """Sleeps 2 ms per row learned: wall time, no CPU."""

    def learn_one(self, x, y):
        time.sleep(0.002)
        super().learn_one(x, y)


class Unmeasured(dummy.NoChangeClassifier):
    """river's walk of this model fails (as it may on a third-party model holding an object
    it cannot size): its bytes cannot be measured."""

    @property
    def _raw_memory_usage(self) -> int:
        raise TypeError("this model cannot be sized")
