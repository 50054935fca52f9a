"""A user learner that opts in to the label-sequence protocol and records every call."""

from __future__ import annotations

from river import base


class Recorder(base.Classifier):
    """Predicts the last observed label; records observed labels and training calls."""

    def __init__(self) -> None:
        self.observed: list = []
        self.learned: list = []

    def learn_one(self, x: dict, y, w: int = 1) -> None:
        self.learned.append((x["i"], y, w))

    def observe_label(self, y) -> None:
        self.observed.append(y)

    def predict_one(self, x: dict, **kwargs):
        return self.observed[-1] if self.observed else None

    def predict_proba_one(self, x: dict) -> dict:
        p = self.predict_one(x)
        return {} if p is None else {p: 1.0}
