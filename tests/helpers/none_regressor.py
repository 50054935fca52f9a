"""A river regressor that predicts None (no prediction) from row ``after`` on."""

from __future__ import annotations

from river import linear_model


class PredictsNone(linear_model.LinearRegression):
    """river's linear regression, predicting None from its ``after``-th prediction on."""

    def __init__(self, after: int = 50):
        super().__init__()
        self.after = after
        self.seen = 0

    def predict_one(self, x, **kwargs):
        self.seen += 1
        return None if self.seen > self.after else super().predict_one(x)
