"""Paired windows: both learners of a pair measured on the same rows, per fold.

Each learner's own ADWIN (:class:`~distval.metrics.ADWINWindow`) decides its own window, so
at the end of Electricity one learner's fold may be measured over its last 1,300 rows and the
other's over its last 280: comparing those two numbers compares two stretches of the stream.
The trackers here keep, for every (pair, fold), the rows that fold tested with *both*
learners, and forget them the same way on both sides:

- ``adwin`` (default): one ADWIN per (pair, fold) over the per-row difference in 0/1 loss,
  ``loss_B - loss_A`` in {-1, 0, 1}, fed to ADWIN as ``(loss_B - loss_A + 1) / 2`` in [0, 1]
  (the range ADWIN's bound assumes; Bifet & Gavalda 2007). The window is the recent stretch
  over which the *difference* is stable, and it covers the same rows for A and B;
- ``window``: the last ``window`` rows both tested; ``fading``: every such row, the one j
  paired rows old weighted ``fading ** j``; ``cumulative``: every such row.

For each (pair, fold) and each side the tracker keeps the confusion matrix and persistent
hits of those rows, so every measure of :func:`~distval.metrics.measures` (accuracy, kappa,
kappa-M, ...) is available for A and for B over exactly the same rows; the accuracy
difference ``acc_A - acc_B`` is the mean of the per-row loss differences in the window.

>>> y = np.array([0, 1, 0, 1])
>>> pred_a = np.array([[[0, 1, 0, 0]]])        # (pairs, folds, rows): A misses row 3
>>> pred_b = np.array([[[1, 1, -1, 0]]])       # B misses rows 0 and 3, skips row 2
>>> t = PairedTracker("cumulative", n_pairs=1, n_folds=1)
>>> t.update(y, pred_a, pred_b, np.ones(4, bool))
>>> t.widths.tolist(), t.difference().tolist()   # rows 0, 1, 3: A 2/3 right, B 1/3
([[3.0]], [[0.3333333333333333]])
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from distval.errors import DistvalError
from distval.metrics import Tracker, make_tracker
from distval.metrics.kernels import (
    RING,
    ADWINState,
    adwin_settings,
    adwin_values_batch,
    paired_adwin_batch,
)
from distval.metrics.trackers import (
    Windows,
    _bucket_counts,
    _int_rows,
    _regrow,
    _room,
    window_settings,
)

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = ["PAIRED_FORGETTING", "ADWINMeans", "PairedADWIN", "PairedTracker"]

#: Forgetting mechanisms of the paired trackers.
PAIRED_FORGETTING = ("adwin", "window", "fading", "cumulative")


class ADWINMeans:
    """One ADWIN per slot over values in [0, 1]: only each window's mean and width.

    The same ADWIN as :class:`PairedADWIN` and :class:`~distval.metrics.ADWINWindow`
    (river's arithmetic, river's defaults) without the rows' confusion codes: what a
    comparison of accuracies needs, in constant memory per slot. Feeding it
    ``(loss_B - loss_A + 1) / 2`` gives the paired window of the loss difference.

    >>> a = ADWINMeans(1)
    >>> a.update(np.r_[np.zeros(3000), np.ones(3000)][None, :])
    >>> int(a.widths[0]) < 3200, round(float(a.means[0]), 2)
    (True, 1.0)
    """

    def __init__(self, n_slots: int, delta: float = 0.002) -> None:
        self.delta = delta
        self._params = adwin_settings(delta)
        self._adwin = ADWINState.empty(n_slots)

    def update(self, values: np.ndarray) -> None:
        """Take (slots, rows) values in [0, 1] (NaN: the slot has no value on that row)."""
        adwin_values_batch(
            np.ascontiguousarray(values, dtype=np.float64), self._adwin, self._params
        )

    @property
    def widths(self) -> np.ndarray:
        return self._adwin.widths()

    @property
    def means(self) -> np.ndarray:
        """Each window's mean (NaN for an empty window)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            out: np.ndarray = self._adwin.stat[:, 0] / self._adwin.stat[:, 2]
        return out

    @property
    def n_detections(self) -> np.ndarray:
        return self._adwin.detections()


class PairedADWIN(Tracker):
    """The rows inside one ADWIN per (pair, fold) run on the per-row loss difference.

    Slots ``0 .. m-1`` are side A of the ``m`` (pair, fold) comparisons, slots ``m .. 2m-1``
    side B, in the same order; ``pred`` rows are -1 where a slot did not test the row (a row
    counts only where both sides tested it). ADWIN keeps river's defaults (clock 32, 5
    buckets, minimum length 5, grace 10) and, after a change, the recent part of its window.

    >>> rng = np.random.default_rng(1)
    >>> y = np.zeros(6000, dtype=np.int64)
    >>> a_wrong = rng.random(6000) < 0.2
    >>> b_wrong = np.r_[rng.random(3000) < 0.2, rng.random(3000) < 0.5]  # B worsens
    >>> t = PairedADWIN(1)
    >>> t.update(y, np.stack([a_wrong, b_wrong]).astype(np.int64), np.ones(6000, bool))
    >>> 2500 < int(t.widths[0]) < 3300, int(t.widths[1]) == int(t.widths[0])
    (True, True)
    """

    name = "adwin"

    def __init__(self, n_comparisons: int, n_classes: int = 2, delta: float = 0.002) -> None:
        super().__init__(2 * n_comparisons, n_classes)
        self.delta = delta
        self._params = adwin_settings(delta)
        self._adwin = ADWINState.empty(n_comparisons)
        self._bc = _bucket_counts(n_comparisons, 1, RING, self.n_classes, sides=2)

    def update(self, y: np.ndarray, pred: np.ndarray, per_ok: np.ndarray) -> None:
        self._check(y, pred)
        self._bc = _room(self._bc, self._adwin.stat[:, 2], len(y))
        paired_adwin_batch(
            *_int_rows(y, pred, per_ok), self.C, self.P, self._adwin, self._bc, self._params
        )

    def grow(self, n_classes: int) -> None:
        old = self.n_classes
        super().grow(n_classes)
        self._bc = _regrow(self._bc, old, self.n_classes, sides=2)

    @property
    def widths(self) -> np.ndarray:
        out: np.ndarray = np.concatenate([self._adwin.stat[:, 2], self._adwin.stat[:, 2]])
        return out

    @property
    def n_detections(self) -> np.ndarray:
        """Changes ADWIN has detected in each comparison's difference."""
        return self._adwin.detections()


class PairedTracker:
    """Both learners of every pair, per fold, over the rows that fold tested with both.

    ``kind`` is one of :data:`PAIRED_FORGETTING`. :meth:`update` takes the batch's true
    classes ``y``, the predictions of side A and side B as (pairs, folds, rows) arrays (-1:
    not tested) and the Persistent classifier's hits ``per_ok``. :meth:`get` returns
    :func:`~distval.metrics.measures` of each side as (pairs, folds) arrays; :meth:`difference`
    the accuracy difference A - B, which is the mean of ``loss_B - loss_A`` over the rows.
    """

    def __init__(
        self, kind: str, n_pairs: int, n_folds: int, n_classes: int = 2, **settings: Unpack[Windows]
    ) -> None:
        if kind not in PAIRED_FORGETTING:
            raise DistvalError(
                f"unknown paired forgetting {kind!r}; choose one of {', '.join(PAIRED_FORGETTING)}"
            )
        self.kind = kind
        self.n_pairs, self.n_folds = int(n_pairs), int(n_folds)
        m = self.n_pairs * self.n_folds
        self.tracker: Tracker
        if kind == "adwin":
            self.tracker = PairedADWIN(m, n_classes, delta=window_settings(settings)[2])
        else:
            self.tracker = make_tracker(kind, 2 * m, n_classes, **settings)
        self._got: dict[str, np.ndarray] | None = None
        self._accuracy: tuple[np.ndarray, np.ndarray] | None = None

    @property
    def name(self) -> str:
        return self.kind

    def update(
        self, y: np.ndarray, pred_a: np.ndarray, pred_b: np.ndarray, per_ok: np.ndarray
    ) -> None:
        """Take one batch; ``pred_a`` / ``pred_b`` are (pairs, folds, rows)."""
        n = len(y)
        both = (pred_a >= 0) & (pred_b >= 0)
        pa = np.where(both, pred_a, -1).reshape(-1, n)
        pb = np.where(both, pred_b, -1).reshape(-1, n)
        self.tracker.update(y, np.concatenate([pa, pb]), per_ok)
        self._got = self._accuracy = None

    def _measures(self) -> dict[str, np.ndarray]:
        if self._got is None:
            self._got = self.tracker.get()
        return self._got

    def get(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """(measures of side A, measures of side B), each value shaped (pairs, folds)."""
        m = self.n_pairs * self.n_folds
        shape = (self.n_pairs, self.n_folds)
        got = self._measures()
        sides: list[dict[str, Any]] = [{}, {}]
        for key, v in got.items():
            for side in (0, 1):
                part = v[side * m : (side + 1) * m]
                sides[side][key] = part.reshape(shape + part.shape[1:])
        return sides[0], sides[1]

    def accuracy(self) -> tuple[np.ndarray, np.ndarray]:
        """(pairs, folds) accuracy of side A and of side B over the paired rows (NaN: none);
        the diagonal of the confusion counts over their total, without the other measures;
        worked out once per batch.

        >>> t = PairedTracker("cumulative", 1, 1)
        >>> t.update(np.array([0, 1]), np.array([[[0, 1]]]), np.array([[[0, 0]]]), np.ones(2, bool))
        >>> [x.tolist() for x in t.accuracy()]
        [[[1.0]], [[0.5]]]
        """
        if self._accuracy is not None:
            return self._accuracy
        C = self.tracker.C
        total = C.sum(axis=(1, 2))
        right = np.trace(C, axis1=1, axis2=2)
        acc = np.full(total.shape, np.nan)
        np.divide(right, total, out=acc, where=total > 0)
        m = self.n_pairs * self.n_folds
        shape = (self.n_pairs, self.n_folds)
        self._accuracy = acc[:m].reshape(shape), acc[m:].reshape(shape)
        return self._accuracy

    def difference(self) -> np.ndarray:
        """(pairs, folds) accuracy of A minus accuracy of B over the same rows (NaN: none)."""
        a, b = self.accuracy()
        out: np.ndarray = a - b
        return out

    @property
    def widths(self) -> np.ndarray:
        """(pairs, folds) paired rows each comparison's state covers (faded: their weight)."""
        m = self.n_pairs * self.n_folds
        out: np.ndarray = self.tracker.widths[:m].reshape(self.n_pairs, self.n_folds)
        return out
