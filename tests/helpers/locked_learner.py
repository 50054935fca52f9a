"""A river classifier that cannot be pickled (it holds a lock), as some third-party
learners do, for the checkpoint tests."""

from __future__ import annotations

import threading

from river.naive_bayes import GaussianNB


class LockedNB(GaussianNB):
    """river's Gaussian naive Bayes holding a ``threading.Lock``."""

    def __init__(self) -> None:
        super().__init__()
        self._lock = threading.Lock()

    def learn_one(self, x, y, **kwargs):
        with self._lock:
            super().learn_one(x, y, **kwargs)
