"""A river classifier that breaks after a while, for the error-reporting tests."""

from __future__ import annotations

from river import dummy


class BreaksAt(dummy.NoChangeClassifier):
    def __init__(self, after: int = 100):
        super().__init__()
        self.after = after
        self.seen = 0

    def learn_one(self, x, y):
        self.seen += 1
        if self.seen > self.after:
            raise ValueError("cannot learn any more")
        super().learn_one(x, y)
