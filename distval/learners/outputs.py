"""What a learner host makes of its replicas' answers: a regressor's values, class
probabilities from river's dicts, and a failing learner's exception in a few words."""

from __future__ import annotations

import traceback
from typing import Any

import numpy as np

from distval.errors import DistvalError

__all__ = ["_described", "_predictor", "_probabilities", "_values", "_wide"]


def _values(preds: list[Any], tested: np.ndarray, label: str, fold: int,
            start: int) -> np.ndarray:
    """A regressor's predictions of a batch as floats, NaN on the rows its fold did not test;
    refused unless every tested row's is a finite number.

    >>> _values([1.5, -1, 2], np.array([True, False, True]), "htr", 0, 0).tolist()
    [1.5, nan, 2.0]
    """
    try:
        values = np.asarray(preds, dtype=np.float64)
        bad = tested & ~np.isfinite(values)
    except (TypeError, ValueError):
        values = np.zeros(len(preds))
        bad = tested & ~np.array([isinstance(v, (int, float, np.number)) for v in preds])
    if bad.any():
        i = int(np.argmax(bad))
        raise DistvalError(
            f"learner {label!r} (fold {fold}) predicted {preds[i]!r} for row {start + i}: a "
            "regressor must predict a finite number"
        )
    return np.where(tested, values, np.nan)


def _predictor(model: Any, dicts: list[Any] | None) -> Any:
    """``model.predict_one``; with ``dicts``, a function that also appends each row's
    ``predict_proba_one`` to it and predicts its most probable class (river's
    ``Classifier.predict_one``), or calls ``predict_one`` where the model overrides it."""
    if dicts is None:
        return model.predict_one
    from river import base

    proba_one, predict_one, add = model.predict_proba_one, model.predict_one, dicts.append
    plain = getattr(type(model), "predict_one", None) is base.Classifier.predict_one

    def predict(x: dict[str, Any]) -> Any:
        p = proba_one(x)
        add(p)
        if not plain:
            return predict_one(x)
        return max(p, key=p.get) if p else None

    return predict


def _probabilities(dicts: list[Any], n_classes: int) -> np.ndarray:
    """(rows, classes) from the probability dicts of the rows a replica tested, in order,
    each row over its sum; uniform where a dict is empty.

    >>> _probabilities([{0: 0.2, 1: 0.6}, {}], 3).round(2).tolist()
    [[0.25, 0.75, 0.0], [0.33, 0.33, 0.33]]
    """
    p = np.zeros((len(dicts), n_classes))
    for i, d in enumerate(dicts):
        for k, v in d.items():
            if isinstance(k, (int, np.integer)) and 0 <= k < n_classes:
                p[i, k] = v
    total = p.sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, p / total, 1.0 / n_classes)


def _wide(a: np.ndarray, c: int) -> np.ndarray:
    """(slots, rows, classes) probabilities padded with zeros to ``c`` classes."""
    return a if a.shape[2] >= c else np.pad(a, ((0, 0), (0, 0), (0, c - a.shape[2])))


def _described(exc: BaseException) -> str:
    """A learner's exception in a few words: its type and message, or, for one without a
    message (a bare ``raise NotImplementedError``), the method that raised it.

    >>> def learn_one():
    ...     raise NotImplementedError
    >>> try:
    ...     learn_one()
    ... except NotImplementedError as e:
    ...     _described(e)
    'NotImplementedError in learn_one (the learner does not implement it)'
    """
    name = type(exc).__name__
    if str(exc):
        return f"{name}: {exc}"
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" in {frames[-1].name}" if frames else ""
    if isinstance(exc, NotImplementedError):
        return f"{name}{where} (the learner does not implement it)"
    return f"{name}{where}"
