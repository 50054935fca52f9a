"""River classifiers whose predictions are not classes of the stream, for the refusal tests."""

from __future__ import annotations

from river import dummy, linear_model


class PredictsMinusOne(dummy.PriorClassifier):
    """Predicts -1 (the marker of rows a fold did not test) from row ``after`` on."""

    def __init__(self, after: int = 50):
        super().__init__()
        self.after = after
        self.seen = 0

    def predict_one(self, x, **kwargs):
        self.seen += 1
        return -1 if self.seen > self.after else super().predict_one(x)


class PredictsUnseen(PredictsMinusOne):
    """Predicts class index 7 (the stream has two classes) from row ``after`` on."""

    def predict_one(self, x, **kwargs):
        self.seen += 1
        return 7 if self.seen > self.after else dummy.PriorClassifier.predict_one(self, x)


class LearnsNothing(dummy.PriorClassifier):
    """A classifier whose ``learn_one`` is left unimplemented (a bare NotImplementedError)."""

    def learn_one(self, x, y, **kwargs):
        raise NotImplementedError


class SlowStart(dummy.PriorClassifier):
    """Sleeps ``seconds`` on its first prediction, as a learner that loads slowly does."""

    def __init__(self, seconds: float = 2.5):
        super().__init__()
        self.seconds = seconds
        self.started = False

    def predict_one(self, x, **kwargs):
        if not self.started:
            import time

            time.sleep(self.seconds)
            self.started = True
        return super().predict_one(x)


class PredictsBadNumber(linear_model.LinearRegression):
    """A regressor that predicts ``value`` (NaN, inf, None or a string) from its ``after``-th
    prediction on."""

    def __init__(self, value: str = "nan", after: int = 50):
        super().__init__()
        self.value, self.after, self.seen = value, after, 0

    def predict_one(self, x, **kwargs):
        self.seen += 1
        if self.seen <= self.after:
            return super().predict_one(x, **kwargs)
        return {"nan": float("nan"), "inf": float("inf"), "none": None}.get(self.value,
                                                                             self.value)
