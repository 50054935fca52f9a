"""Per-slot confusion state under five forgetting mechanisms, updated a batch at a time.

- :class:`Cumulative`: every row the slot has tested;
- :class:`SlidingWindow`: its last ``size`` tested rows;
- :class:`Fading`: every row, the one tested ``j`` rows ago weighted ``factor ** j``;
- :class:`ExponentialEstimators`: the exponentially weighted estimators of Zliobaite et al.
  2015, Algorithm 1 (its alpha is our decay ``1 - factor``), including their start values;
- :class:`ADWINWindow`: the rows inside an ADWIN window run on the slot's 0/1 loss.

Updates are vectorised numpy, and for the windows (sliding and ADWIN) one compiled pass over
the batch for all slots (:mod:`distval.metrics.kernels`); ADWIN is compiled with the
arithmetic of river's ``AdaptiveWindowing``, so its windows are river's to the row.

ADWIN after a change: the window keeps the recent sub-window ADWIN retains after a cut, as
MOA's ``AdwinClassificationPerformanceEvaluator`` does, rather than restarting from an empty
window as ``river.drift.ADWIN.update`` does on the row after a detection. MOA differs in
another way: it gives every statistic its own ADWIN (so accuracy and the majority-class
accuracy of kappa-M may cover different rows); here one ADWIN per slot decides the window of
all the measures.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypedDict

import numpy as np

from distval.errors import DistvalError, check_open_unit, check_positive_int
from distval.metrics.confusion import FORGETTING, class_count, kappa_family, measures
from distval.metrics.kernels import (
    LEVELS,
    RING,
    ADWINState,
    adwin_batch,
    adwin_settings,
    count_batch,
    sliding_batch,
)

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = [
    "MIN_SCORED",
    "ADWINWindow",
    "Cumulative",
    "ExponentialEstimators",
    "Fading",
    "SlidingWindow",
    "Tracker",
    "Windows",
    "make_tracker",
    "window_settings",
]

#: A fold's measures are shown (figures, the live line) once it has scored this many rows:
#: with delayed labels the first looks score a handful of rows (one row: 0 % or 100 %).
MIN_SCORED = 30


class Windows(TypedDict, total=False):
    """The forgetting mechanisms' settings, as every tracker's keywords take them."""

    #: Rows of the sliding window (``window``).
    window: int
    #: Factor of ``fading`` (and ``ewma``'s decay ``1 - fading``).
    fading: float
    #: ADWIN's confidence (``adwin``).
    adwin_delta: float


def window_settings(given: Windows) -> tuple[int, float, float]:
    """``given`` over the defaults, as (window, fading, adwin_delta): the one place they stand.

    >>> window_settings({"fading": 0.99})
    (1000, 0.99, 0.002)
    """
    unknown = set(given) - set(Windows.__annotations__)
    if unknown:
        raise TypeError(f"unexpected keyword argument {sorted(unknown)[0]!r}")
    return given.get("window", 1000), given.get("fading", 0.999), given.get("adwin_delta", 0.002)


class Tracker:
    """Confusion state of every slot under one forgetting mechanism.

    ``update(y, pred, per_ok)`` takes a batch: ``y`` (n,) true classes, ``pred`` (slots, n)
    predicted classes with -1 where the slot did not test the row, ``per_ok`` (n,) whether the
    Persistent classifier was right. ``get()`` returns :func:`measures` of every slot.
    """

    name = ""
    #: Whether :meth:`get` is :func:`measures` of the counts ``C`` and ``P`` alone (so the
    #: measures of several such trackers may be computed on their stacked counts).
    from_counts = True

    def __init__(self, n_slots: int, n_classes: int = 2) -> None:
        self.n_slots = n_slots
        self.n_classes = class_count(max(int(n_classes), 1))
        self.C = np.zeros((n_slots, self.n_classes, self.n_classes))
        self.P = np.zeros(n_slots)

    def grow(self, n_classes: int) -> None:
        """Make room for classes first seen mid-stream."""
        if class_count(n_classes) > self.n_classes:
            C = np.zeros((self.n_slots, n_classes, n_classes))
            C[:, : self.n_classes, : self.n_classes] = self.C
            self.C, self.n_classes = C, n_classes

    def update(self, y: np.ndarray, pred: np.ndarray, per_ok: np.ndarray) -> None:
        raise NotImplementedError

    def get(self) -> dict[str, np.ndarray]:
        return measures(self.C, self.P)

    @property
    def widths(self) -> np.ndarray:
        """How many tested rows each slot's state covers (faded: their total weight)."""
        out: np.ndarray = self.C.sum(axis=(1, 2))
        return out

    def _check(self, y: np.ndarray, pred: np.ndarray) -> None:
        top = max(int(y.max(initial=-1)), int(pred.max(initial=-1)))
        if top >= self.n_classes:
            self.grow(top + 1)


def _int_rows(
    y: np.ndarray, pred: np.ndarray, per_ok: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A batch's labels, predictions and persistent hits as the contiguous int64 arrays the
    counting kernels take.

    >>> [a.dtype.name for a in _int_rows(np.array([1]), np.array([[1]]), np.array([True]))]
    ['int64', 'int64', 'int64']
    """
    return (
        np.ascontiguousarray(y, dtype=np.int64),
        np.ascontiguousarray(pred, dtype=np.int64),
        np.ascontiguousarray(per_ok, dtype=np.int64),
    )


class Cumulative(Tracker):
    """No forgetting: every tested row counts.

    >>> t = Cumulative(n_slots=1)
    >>> t.update(np.array([0, 1, 1]), np.array([[0, 0, 1]]), np.array([True, False, True]))
    >>> round(float(t.get()["accuracy"][0]), 4), t.P.tolist()
    (0.6667, [2.0])
    """

    name = "cumulative"

    def update(self, y: np.ndarray, pred: np.ndarray, per_ok: np.ndarray) -> None:
        self._check(y, pred)
        count_batch(*_int_rows(y, pred, per_ok), self.C, self.P)


class Fading(Tracker):
    """Fading factor: the row tested j rows ago (in the slot's own sequence) weighs factor**j.

    >>> t = Fading(n_slots=1, factor=0.5)
    >>> t.update(np.array([1, 1]), np.array([[0, 1]]), np.array([False, False]))
    >>> t.C[0].tolist()   # the miss is one step old: weight 0.5
    [[0.0, 0.0], [0.5, 1.0]]
    """

    name = "fading"

    def __init__(self, n_slots: int, n_classes: int = 2, factor: float = 0.999) -> None:
        check_open_unit(factor, "fading factor")
        super().__init__(n_slots, n_classes)
        self.factor = factor

    def update(self, y: np.ndarray, pred: np.ndarray, per_ok: np.ndarray) -> None:
        self._check(y, pred)
        c = self.n_classes
        mask = pred >= 0
        rank = np.cumsum(mask, axis=1)
        m = rank[:, -1] if rank.shape[1] else np.zeros(self.n_slots, dtype=np.int64)
        slot, row = np.nonzero(mask)
        weight = self.factor ** (m[slot] - rank[slot, row]).astype(np.float64)
        idx = (slot * c + y[row]) * c + pred[slot, row]
        decay = self.factor ** m.astype(np.float64)
        self.C *= decay[:, None, None]
        self.C += np.bincount(idx, weights=weight, minlength=self.n_slots * c * c).reshape(
            self.C.shape
        )
        self.P = self.P * decay + np.bincount(
            slot, weights=weight * per_ok[row], minlength=self.n_slots
        )


class ExponentialEstimators(Tracker):
    """The exponentially weighted estimators of zliobaite2015 §4.6, Algorithm 1.

    Per slot, every tested row updates, with decay ``decay`` in (0, 1):

    - the accuracy ``p <- decay [pred == y] + (1 - decay) p`` (start 0);
    - the class priors ``P(i) <- decay [y == i] + (1 - decay) P(i)`` (start 1/k);
    - the prediction priors ``P_h(i)`` the same way with ``[pred == i]`` (start 1/k);
    - on rows of class ``i`` only, ``P(i|i) <- decay [y_prev == i] + (1 - decay) P(i|i)``
      (start 1/k), ``y_prev`` being the previous label of the whole stream.

    Then p_ran = sum_i P(i) P_h(i) (eq. 9), p_per = sum_i P(i) P(i|i) (eq. 7),
    p_maj = max_i P(i) (eq. 6) and kappa, kappa-per (eq. 13), kappa-M and kappa+ (eq. 14)
    follow from ``p``.

    Start values. ``k = n_classes`` is the class count of Algorithm 1: give it whenever the
    stream declares its classes (an ARFF nominal class, a generator's ``n_classes``), and the
    tracker is Algorithm 1 exactly, row by row. A class ``i >= k`` (first seen later, or any
    class beyond the default ``k = 2`` of a stream that does not declare its classes) starts
    at P(i) = P_h(i) = 0, which keeps both priors summing to 1, and P(i|i) = 1 / (i + 1):
    1/k for the ``i + 1`` classes known when class ``i`` first appears (class indices follow
    first appearance). These values depend on the class index only, never on where batches
    are cut, so every batch size gives the same numbers.

    How this differs from :class:`Fading` with ``factor = 1 - decay``: Fading divides faded
    counts by their faded total, so it has no start values; Algorithm 1 keeps the start values
    (weight ``(1 - decay) ** m`` after ``m`` rows), and each ``P(i|i)`` fades only on rows
    of its own class. Both agree once ``(1 - decay) ** m`` is negligible. The other measures
    (recalls, MCC, F1) come from the faded confusion matrix, as in :class:`Fading`.

    >>> t = ExponentialEstimators(n_slots=1, decay=0.5)
    >>> t.update(np.array([1, 1]), np.array([[1, 1]]), np.array([False, True]))
    >>> float(t.get()["accuracy"][0])          # 0 -> 0.5 -> 0.75
    0.75
    >>> float(t.get()["p_per"][0])             # P(1) = 0.875, P(1|1) = 0.625; P(0) = 0.125
    0.609375
    """

    name = "ewma"
    from_counts = False  # its kappa family comes from Algorithm 1's estimators

    def __init__(self, n_slots: int, n_classes: int = 2, decay: float = 0.001) -> None:
        check_open_unit(decay, "decay")
        super().__init__(n_slots, n_classes)
        self.decay = float(decay)
        k = self.n_classes
        self.p = np.zeros(n_slots)
        self.prior = np.full((n_slots, k), 1.0 / k)
        self.prior_h = np.full((n_slots, k), 1.0 / k)
        self.stay = np.full((n_slots, k), 1.0 / k)

    def grow(self, n_classes: int) -> None:
        """Add classes ``old_k .. n_classes - 1`` with their start values (class docstring).

        >>> t = ExponentialEstimators(n_slots=1, n_classes=2)
        >>> t.grow(4)
        >>> t.prior[0].tolist(), t.stay[0].tolist()
        ([0.5, 0.5, 0.0, 0.0], [0.5, 0.5, 0.3333333333333333, 0.25])
        """
        old = self.n_classes
        super().grow(n_classes)
        if self.n_classes > old:
            new = np.arange(old, self.n_classes, dtype=np.float64)
            zeros = np.zeros((self.n_slots, len(new)))
            self.prior = np.hstack([self.prior, zeros])
            self.prior_h = np.hstack([self.prior_h, zeros])
            self.stay = np.hstack([self.stay, zeros + 1.0 / (new + 1.0)])

    def _weights(self, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Decay of the old state and weight of every masked row after this batch."""
        f = 1.0 - self.decay
        rank = np.cumsum(mask, axis=1)
        m = rank[:, -1] if rank.shape[1] else np.zeros(self.n_slots, dtype=np.int64)
        w = np.where(mask, self.decay * f ** (m[:, None] - rank).astype(np.float64), 0.0)
        return f ** m.astype(np.float64), w

    def update(self, y: np.ndarray, pred: np.ndarray, per_ok: np.ndarray) -> None:
        self._check(y, pred)
        c = self.n_classes
        mask = pred >= 0
        decay, w = self._weights(mask)
        slot, row = np.nonzero(mask)
        ws = w[slot, row]
        self.p = self.p * decay + (w * (pred == y[None, :])).sum(axis=1)
        yc = y[row]
        self.prior = self.prior * decay[:, None] + np.bincount(
            slot * c + yc, weights=ws, minlength=self.n_slots * c
        ).reshape(self.n_slots, c)
        self.prior_h = self.prior_h * decay[:, None] + np.bincount(
            slot * c + pred[slot, row], weights=ws, minlength=self.n_slots * c
        ).reshape(self.n_slots, c)
        for i in np.unique(y):
            decay_i, w_i = self._weights(mask & (y == i)[None, :])
            self.stay[:, i] = self.stay[:, i] * decay_i + (w_i * per_ok[None, :]).sum(axis=1)
        # Faded confusion counts (weight f**j, as Fading) for the measures Algorithm 1 lacks.
        counts = ws / self.decay
        self.C *= decay[:, None, None]
        self.C += np.bincount(
            (slot * c + yc) * c + pred[slot, row], weights=counts, minlength=self.n_slots * c * c
        ).reshape(self.C.shape)
        self.P = self.P * decay + np.bincount(
            slot, weights=counts * per_ok[row], minlength=self.n_slots
        )

    def get(self) -> dict[str, np.ndarray]:
        out = measures(self.C, self.P)
        empty = out["n"] == 0
        p = self.p
        p_ran = (self.prior * self.prior_h).sum(axis=1)
        p_per = (self.prior * self.stay).sum(axis=1)
        p_maj = self.prior.max(axis=1)
        new = {
            **kappa_family(p, p_ran, p_maj, p_per),
            "p_maj": p_maj,
            "p_per": p_per,
        }
        for key, value in new.items():
            out[key] = np.where(empty, np.nan, value)
        return out


class _Windowed(Tracker):
    """Base of the trackers whose state is the latest rows of each slot's sequence."""

    def __init__(self, n_slots: int, n_classes: int = 2) -> None:
        super().__init__(n_slots, n_classes)
        self._ring = np.zeros((n_slots, 1024), dtype=np.int32)
        self._head = np.zeros(n_slots, dtype=np.int64)
        self._size = np.zeros(n_slots, dtype=np.int64)

    def _prepare(
        self, y: np.ndarray, pred: np.ndarray, per_ok: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Classes, ring room and dtypes for a batch of ``n`` rows."""
        self._check(y, pred)
        need = int(self._size.max(initial=0)) + len(y)
        cap = self._ring.shape[1]
        if need > cap:
            # Grow (rarely: doubling), unrolling every slot's ring to start at 0.
            old, cap = cap, max(2 * cap, need)
            ring = np.empty((self.n_slots, cap), dtype=self._ring.dtype)  # beyond size: unread
            for s, h in enumerate(self._head.tolist()):  # two slice copies per slot
                ring[s, : old - h] = self._ring[s, h:]
                ring[s, old - h : old] = self._ring[s, :h]
            self._ring, self._head = ring, np.zeros(self.n_slots, dtype=np.int64)
        return _int_rows(y, pred, per_ok)

    @property
    def widths(self) -> np.ndarray:
        return self._size.astype(np.float64)


class SlidingWindow(_Windowed):
    """The last ``size`` rows each slot tested.

    >>> t = SlidingWindow(n_slots=1, size=2)
    >>> t.update(np.array([0, 1, 1]), np.array([[1, 1, 0]]), np.array([True, True, True]))
    >>> float(t.get()["accuracy"][0]), t.widths.tolist()
    (0.5, [2.0])
    """

    name = "window"

    def __init__(self, n_slots: int, n_classes: int = 2, size: int = 1000) -> None:
        check_positive_int(size, "window size")
        super().__init__(n_slots, n_classes)
        self.size = int(size)

    def update(self, y: np.ndarray, pred: np.ndarray, per_ok: np.ndarray) -> None:
        y, pred, per_ok = self._prepare(y, pred, per_ok)
        sliding_batch(
            y, pred, per_ok, self.size, self._ring, self._head, self._size, self.C, self.P
        )


class ADWINWindow(Tracker):
    """The rows inside an ADWIN window (bifet2015 §6) run on each slot's 0/1 loss.

    ``delta`` is ADWIN's confidence; ``clock``, ``max_buckets``, ``min_window_length`` and
    ``grace_period`` keep river's defaults (32, 5, 5, 10). ADWIN itself is compiled here
    (numba) for all slots at once, with river's ``AdaptiveWindowing`` arithmetic, so the
    windows are river's to the row. After a detected change the window keeps the recent part
    ADWIN retains (MOA's behaviour), it does not restart empty. Each ADWIN bucket also counts
    its rows' confusion cells and persistent hits, so the window's counts are its buckets'
    sum: memory O(classes² · log width) per slot, not one code per row (on a stationary
    stream the window grows with the stream).

    >>> rng = np.random.default_rng(0)
    >>> y = np.zeros(4000, dtype=np.int64)
    >>> wrong = np.r_[rng.random(2000) < 0.05, rng.random(2000) < 0.6]
    >>> t = ADWINWindow(n_slots=1)
    >>> t.update(y, np.where(wrong, 1, 0)[None, :], np.ones(4000, dtype=bool))
    >>> int(t.widths[0]), int(t.n_detections[0])  # about the 2,000 rows since the change
    (2032, 2)
    >>> round(float(t.get()["accuracy"][0]), 2)  # the new concept's accuracy, 0.4
    0.4
    """

    name = "adwin"

    def __init__(self, n_slots: int, n_classes: int = 2, delta: float = 0.002) -> None:
        check_open_unit(delta, "ADWIN's delta")
        super().__init__(n_slots, n_classes)
        self.delta = delta
        self._params = adwin_settings(delta)
        self._adwin = ADWINState.empty(n_slots)
        self._bc = _bucket_counts(n_slots, 1, RING, self.n_classes)

    def update(self, y: np.ndarray, pred: np.ndarray, per_ok: np.ndarray) -> None:
        self.update_traced(y, pred, per_ok, trace=False)

    def update_traced(
        self, y: np.ndarray, pred: np.ndarray, per_ok: np.ndarray, trace: bool = True
    ) -> np.ndarray:
        """``update``, returning each tested row's ADWIN width after it (slots, rows):
        negative where ADWIN detected a change on that row, 0 where the slot did not test it.

        >>> t = ADWINWindow(n_slots=1)
        >>> t.update_traced(np.array([0, 1, 0]), np.array([[0, 0, -1]]), np.ones(3, bool))
        array([[1., 2., 0.]])
        """
        self._check(y, pred)
        self._bc = _room(self._bc, self._adwin.stat[:, 2], len(y))
        out = np.zeros(pred.shape if trace else (pred.shape[0], 0))
        adwin_batch(
            *_int_rows(y, pred, per_ok), self.C, self.P, self._adwin, self._bc, self._params, out
        )
        return out

    def grow(self, n_classes: int) -> None:
        old = self.n_classes
        super().grow(n_classes)
        self._bc = _regrow(self._bc, old, self.n_classes)

    @property
    def widths(self) -> np.ndarray:
        return self._adwin.widths()

    @property
    def n_detections(self) -> np.ndarray:
        """Changes ADWIN has detected in each slot."""
        return self._adwin.detections()


def _bucket_counts(n_slots: int, levels: int, buckets: int, n_classes: int,
                   sides: int = 1) -> np.ndarray:
    """Empty per-bucket counts of ADWIN windows: (slots, levels, buckets, cells), the cells
    being each side's ``classes²`` confusion cells, then the persistent hits."""
    return np.zeros((n_slots, levels, buckets, sides * n_classes * n_classes + 1))


def _room(bc: np.ndarray, widths: np.ndarray, n: int) -> np.ndarray:
    """``bc`` with room for the bucket levels of windows up to ``widths + n`` rows (a
    bucket at level i holds 2**i rows of the window, so at most log2(width) + 1 levels)."""
    need = min(LEVELS, int(np.log2(float(widths.max(initial=0.0)) + n + 1.0)) + 2)
    if need <= bc.shape[1]:
        return bc
    more = np.zeros((bc.shape[0], max(need, 2 * bc.shape[1]) - bc.shape[1], *bc.shape[2:]))
    return np.concatenate([bc, more], axis=1)[:, :LEVELS]


def _regrow(bc: np.ndarray, old: int, new: int, sides: int = 1) -> np.ndarray:
    """Per-bucket counts of ``old`` classes rearranged for ``new`` classes."""
    if new == old:
        return bc
    head = bc.shape[:3]
    out = _bucket_counts(head[0], head[1], head[2], new, sides)
    cells = bc[..., :-1].reshape(*head, sides, old, old)
    grown = out[..., :-1].reshape(*head, sides, new, new)
    grown[..., :old, :old] = cells
    out[..., :-1] = grown.reshape(*head, sides * new * new)
    out[..., -1] = bc[..., -1]
    return out


def make_tracker(
    kind: str, n_slots: int, n_classes: int = 2, **settings: Unpack[Windows]
) -> Tracker:
    """Build the tracker of a forgetting mechanism by name (one of :data:`FORGETTING`).

    ``fading`` is the factor of ``"fading"`` and, as ``decay = 1 - fading``, the decay of
    ``"ewma"`` (zliobaite2015 Algorithm 1): both weigh a row tested j rows ago by
    ``fading ** j``.

    >>> make_tracker("ewma", n_slots=2, fading=0.99).decay
    0.010000000000000009
    """
    window, fading, adwin_delta = window_settings(settings)
    if kind == "adwin":
        return ADWINWindow(n_slots, n_classes, delta=adwin_delta)
    if kind == "window":
        return SlidingWindow(n_slots, n_classes, size=window)
    if kind == "fading":
        return Fading(n_slots, n_classes, factor=fading)
    if kind == "ewma":
        return ExponentialEstimators(
            n_slots, n_classes, decay=1.0 - check_open_unit(fading, "fading factor")
        )
    if kind == "cumulative":
        return Cumulative(n_slots, n_classes)
    raise DistvalError(f"unknown forgetting {kind!r}; choose one of {', '.join(FORGETTING)}")
