"""Per-fold measures under five forgetting mechanisms.

What they mean: [Methods: measures](methods.md#measures) and [forgetting](methods.md#forgetting).

Three modules, one concept each:

- :mod:`distval.metrics.confusion`: the measures as functions of confusion counts
  (:func:`measures`, :data:`MEASURES`) and the packed row codes of the windows;
- :mod:`distval.metrics.trackers`: the per-slot state under each forgetting mechanism
  (:class:`Tracker` and its subclasses, :func:`make_tracker`);
- :mod:`distval.metrics.kernels`: the compiled (numba) batch loops the trackers call,
  compiled by :func:`distval.metrics.jit.njit` (cached in the user's cache directory);
- :mod:`distval.metrics.probabilistic`: log-loss, Brier score and ROC AUC from the class
  probabilities, on each slot's window (:class:`ScoreWindows`).

>>> import numpy as np
>>> t = make_tracker("cumulative", n_slots=1)
>>> t.update(np.array([0, 1]), np.array([[0, 0]]), np.array([True, True]))
>>> float(t.get()["accuracy"][0])
0.5
"""

from __future__ import annotations

from distval.metrics.confusion import FORGETTING, MAX_CLASSES, MEASURES, measures, pack, unpack
from distval.metrics.probabilistic import (
    LOWER_IS_BETTER,
    PROBA_MEASURES,
    Scored,
    ScoreWindows,
    proba_measures,
)
from distval.metrics.trackers import (
    ADWINWindow,
    Cumulative,
    ExponentialEstimators,
    Fading,
    SlidingWindow,
    Tracker,
    make_tracker,
)

__all__ = [
    "FORGETTING",
    "LOWER_IS_BETTER",
    "MAX_CLASSES",
    "MEASURES",
    "PROBA_MEASURES",
    "ADWINWindow",
    "Cumulative",
    "ExponentialEstimators",
    "Fading",
    "ScoreWindows",
    "Scored",
    "SlidingWindow",
    "Tracker",
    "make_tracker",
    "measures",
    "pack",
    "proba_measures",
    "unpack",
]
