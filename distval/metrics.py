"""Per-fold measures under four forgetting mechanisms (bifet2015 §5).

See [Methods: measures](methods.md#measures) and [forgetting](methods.md#forgetting).

Every (learner, fold) pair is a *slot*. A slot's state is a confusion matrix ``C[slot]``
(rows = true class, columns = predicted class) and ``P[slot]``, how many of its rows the
Persistent classifier (previous true label of the whole stream) got right. Every measure is a
function of that state (:func:`measures`), so accuracy, kappa, kappa-M and kappa-per always
describe the same rows. What the state covers depends on the forgetting mechanism:

- :class:`Cumulative`: every row the slot has tested;
- :class:`SlidingWindow`: its last ``size`` tested rows;
- :class:`Fading`: every row, the one tested ``j`` rows ago weighted ``factor ** j``;
- :class:`ExponentialEstimators`: the exponentially weighted estimators of zliobaite2015
  Algorithm 1 (its alpha is our decay ``1 - factor``), including their start values;
- :class:`ADWINWindow`: the rows inside an ADWIN window run on the slot's 0/1 loss.

Trackers are updated a batch at a time: vectorised numpy, and for the windows (sliding and
ADWIN) one compiled (numba) pass over the batch for all slots; ADWIN is compiled here too, with
the arithmetic of river's ``AdaptiveWindowing``, so its windows are river's to the row.

ADWIN after a change: this package keeps the recent sub-window ADWIN retains after a cut, as
MOA's ``AdwinClassificationPerformanceEvaluator`` does, rather than restarting from an empty
window as ``river.drift.ADWIN.update`` does on the row after a detection. MOA differs in
another way: it gives every statistic its own ADWIN (so accuracy and the majority-class
accuracy of kappa-M may cover different rows); here one ADWIN per slot decides the window of
all the measures.
"""

from __future__ import annotations

import numba
import numpy as np

from distval.errors import DistvalError, check_open_unit, check_positive_int

__all__ = [
    "FORGETTING",
    "MEASURES",
    "ADWINWindow",
    "Cumulative",
    "ExponentialEstimators",
    "Fading",
    "SlidingWindow",
    "Tracker",
    "make_tracker",
    "measures",
    "pack",
    "unpack",
]

MEASURES = (
    "accuracy",
    "kappa",
    "kappa_m",
    "kappa_per",
    "kappa_plus",
    "recall_arith",
    "recall_geom",
    "recall_harm",
    "mcc",
    "f1",
    "p_maj",
    "p_per",
)
FORGETTING = ("adwin", "window", "fading", "ewma", "cumulative")

# A tested row as one code: true class << 16 | predicted class << 1 | persistent correct.
# Windows keep one int32 code per row (an ADWIN window on a stationary stream holds every
# row), so classes are limited to MAX_CLASSES; a confusion matrix that size would not fit in
# memory anyway.
_PRED_SHIFT = 1
_Y_SHIFT = 16
_CLASS_MASK = (1 << 15) - 1
MAX_CLASSES = 1 << 15


def pack(y: np.ndarray, pred: np.ndarray, per_ok: np.ndarray) -> np.ndarray:
    """Pack (true class, predicted class, persistent correct) into one int64 per row.

    >>> codes = pack(np.array([2, 0]), np.array([1, 0]), np.array([True, False]))
    >>> [a.tolist() for a in unpack(codes)]
    [[2, 0], [1, 0], [True, False]]
    """
    return (
        (y.astype(np.int64) << _Y_SHIFT)
        | (pred.astype(np.int64) << _PRED_SHIFT)
        | per_ok.astype(np.int64)
    )


def unpack(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Inverse of :func:`pack`."""
    return (codes >> _Y_SHIFT) & _CLASS_MASK, (codes >> _PRED_SHIFT) & _CLASS_MASK, (codes & 1) == 1


def _ratio(num: np.ndarray, den: np.ndarray, empty: float) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        out = num / den
    return np.where(den == 0, empty, out)


def _chance_corrected(p0: np.ndarray, pe: np.ndarray) -> np.ndarray:
    # (p0 - pe) / (1 - pe); 0 when the baseline is perfect (river's convention).
    return _ratio(p0 - pe, 1.0 - pe, 0.0)


def _kappa_family(
    p0: np.ndarray, p_ran: np.ndarray, p_maj: np.ndarray, p_per: np.ndarray
) -> dict[str, np.ndarray]:
    """Accuracy and its chance-corrected variants against the three baselines."""
    kappa = _chance_corrected(p0, p_ran)
    kappa_per = _chance_corrected(p0, p_per)
    return {
        "accuracy": p0,
        "kappa": kappa,
        "kappa_m": _chance_corrected(p0, p_maj),
        "kappa_per": kappa_per,
        "kappa_plus": np.sqrt(np.maximum(kappa, 0.0) * np.maximum(kappa_per, 0.0)),
    }


def measures(C: np.ndarray, P: np.ndarray) -> dict[str, np.ndarray]:
    """Every [per-fold measure](methods.md#measures) from confusion matrices and persistent hits.

    ``C`` has shape (..., c, c) with rows = true class; ``P`` has shape (...). Rows with no
    tested instance give NaN. Kappa-type measures are 0 when their baseline is perfect.
    ``recall`` is per class (NaN for a class absent from the rows); its arithmetic, geometric
    and harmonic means run over the classes present. ``mcc`` and ``f1`` (of class index 1)
    are defined for two classes only, NaN otherwise.

    bifet2015 Table 5 (class + first):

    >>> m = measures(np.array([[40.0, 30.0], [5.0, 25.0]]), np.array(0.0))
    >>> {k: round(float(m[k]) * 100, 2) for k in ("accuracy", "kappa", "kappa_m", "mcc")}
    {'accuracy': 65.0, 'kappa': 32.69, 'kappa_m': -16.67, 'mcc': 37.28}
    >>> [round(float(m[k]) * 100, 2) for k in ("recall_arith", "recall_geom", "recall_harm")]
    [70.24, 69.01, 67.8]
    """
    C = np.asarray(C, dtype=np.float64)
    P = np.asarray(P, dtype=np.float64)
    c = C.shape[-1]
    n = C.sum(axis=(-2, -1))
    diag = np.diagonal(C, axis1=-2, axis2=-1)
    rows = C.sum(axis=-1)
    cols = C.sum(axis=-2)
    nan = np.full(n.shape, np.nan)
    p0 = _ratio(diag.sum(axis=-1), n, np.nan)
    p_ran = _ratio((rows * cols).sum(axis=-1), n * n, np.nan)
    p_maj = _ratio(rows.max(axis=-1) if c else n, n, np.nan)
    p_per = _ratio(P, n, np.nan)

    present = rows > 0
    n_present = present.sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        recall = np.where(present, diag / rows, np.nan)
        safe = np.where(present, recall, 1.0)
        arith = np.where(present, recall, 0.0).sum(axis=-1) / n_present
        geom = np.exp(np.where(present, np.log(safe), 0.0).sum(axis=-1) / n_present)
        harm = n_present / np.where(present, 1.0 / safe, 0.0).sum(axis=-1)
    if c == 2:
        tn, fp, fn, tp = C[..., 0, 0], C[..., 0, 1], C[..., 1, 0], C[..., 1, 1]
        with np.errstate(invalid="ignore"):
            mcc_den = np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
        mcc = np.where(n == 0, np.nan, _ratio(tp * tn - fp * fn, mcc_den, 0.0))
        f1 = np.where(n == 0, np.nan, _ratio(2 * tp, 2 * tp + fp + fn, 0.0))
    else:
        mcc, f1 = nan, nan
    empty = n == 0
    out = {
        **_kappa_family(p0, p_ran, p_maj, p_per),
        "recall_arith": np.where(empty, np.nan, arith),
        "recall_geom": np.where(empty, np.nan, geom),
        "recall_harm": np.where(empty, np.nan, harm),
        "mcc": mcc,
        "f1": f1,
        "p_maj": p_maj,
        "p_per": p_per,
    }
    for key in ("kappa", "kappa_m", "kappa_per", "kappa_plus"):
        out[key] = np.where(empty, np.nan, out[key])
    out["recall"] = recall
    out["n"] = n
    return out


def _class_count(n_classes: int) -> int:
    if n_classes > MAX_CLASSES:
        raise DistvalError(
            f"a stream with {n_classes} classes: the measures support at most {MAX_CLASSES}"
        )
    return n_classes


class Tracker:
    """Confusion state of every slot under one forgetting mechanism.

    ``update(y, pred, per_ok)`` takes a batch: ``y`` (n,) true classes, ``pred`` (slots, n)
    predicted classes with -1 where the slot did not test the row, ``per_ok`` (n,) whether the
    Persistent classifier was right. ``get()`` returns :func:`measures` of every slot.
    """

    name = ""

    def __init__(self, n_slots: int, n_classes: int = 2) -> None:
        self.n_slots = n_slots
        self.n_classes = _class_count(max(int(n_classes), 1))
        self.C = np.zeros((n_slots, self.n_classes, self.n_classes))
        self.P = np.zeros(n_slots)

    def grow(self, n_classes: int) -> None:
        """Make room for classes first seen mid-stream."""
        if _class_count(n_classes) > self.n_classes:
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
        _count_batch(
            np.ascontiguousarray(y, dtype=np.int64),
            np.ascontiguousarray(pred, dtype=np.int64),
            np.ascontiguousarray(per_ok, dtype=np.int64),
            self.C,
            self.P,
        )


@numba.njit(cache=True, nogil=True)
def _count_batch(
    y: np.ndarray, pred: np.ndarray, per_ok: np.ndarray, C: np.ndarray, P: np.ndarray
) -> None:  # pragma: no cover
    """Add every tested (slot, row) to its confusion cell and persistent-correct count."""
    n_slots, n = pred.shape
    for s in range(n_slots):
        for i in range(n):
            p = pred[s, i]
            if p >= 0:
                C[s, y[i], p] += 1.0
                P[s] += per_ok[i]


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
            **_kappa_family(p, p_ran, p_maj, p_per),
            "p_maj": p_maj,
            "p_per": p_per,
        }
        for key, value in new.items():
            out[key] = np.where(empty, np.nan, value)
        return out


# -- windows: the latest tested rows of every slot, in one compiled pass per batch --------------
#
# Every slot keeps its tested rows as packed codes (:func:`pack`) in a ring buffer, one row of
# ``ring`` per slot, the oldest at ``head[s]``, ``size[s]`` of them. A batch is pushed row by
# row into the ring and into the slot's confusion counts, then the oldest codes beyond the
# window's length leave both. The loops are compiled with numba, so a batch costs one Python
# call for all slots whatever the forgetting mechanism.

_LEVELS = 64  # ADWIN bucket levels: level i holds buckets of 2**i rows


@numba.njit(cache=True, nogil=True)
def _push(
    s: int,
    code: int,
    ring: np.ndarray,
    head: np.ndarray,
    size: np.ndarray,
    C: np.ndarray,
    P: np.ndarray,
) -> None:
    cap = ring.shape[1]
    ring[s, (head[s] + size[s]) % cap] = code
    size[s] += 1
    C[s, (code >> _Y_SHIFT) & _CLASS_MASK, (code >> _PRED_SHIFT) & _CLASS_MASK] += 1.0
    P[s] += code & 1


@numba.njit(cache=True, nogil=True)
def _trim(
    s: int,
    keep: int,
    ring: np.ndarray,
    head: np.ndarray,
    size: np.ndarray,
    C: np.ndarray,
    P: np.ndarray,
) -> None:
    cap = ring.shape[1]
    while size[s] > keep:
        code = ring[s, head[s]]
        C[s, (code >> _Y_SHIFT) & _CLASS_MASK, (code >> _PRED_SHIFT) & _CLASS_MASK] -= 1.0
        P[s] -= code & 1
        head[s] = (head[s] + 1) % cap
        size[s] -= 1


@numba.njit(cache=True, nogil=True)
def _sliding_batch(  # pragma: no cover - numba
    y: np.ndarray,
    pred: np.ndarray,
    per_ok: np.ndarray,
    keep: int,
    ring: np.ndarray,
    head: np.ndarray,
    size: np.ndarray,
    C: np.ndarray,
    P: np.ndarray,
) -> None:
    n_slots, n = pred.shape
    for s in range(n_slots):
        for i in range(n):
            p = pred[s, i]
            if p >= 0:
                code = (np.int64(y[i]) << _Y_SHIFT) | (np.int64(p) << _PRED_SHIFT) | per_ok[i]
                _push(s, code, ring, head, size, C, P)
        _trim(s, keep, ring, head, size, C, P)


# ADWIN (Bifet & Gavalda 2007) with the arithmetic of river's compiled ``AdaptiveWindowing``,
# operation for operation, so the windows are river's exactly (tests/test_metrics.py checks
# width and detection row by row). State of slot s: ``stat[s]`` = (total, variance, width),
# ``ticks[s]`` = (tick, detections), ``levels[s]`` bucket levels in use, ``cnt[s, i]`` buckets
# at level i, ``bt`` / ``bv`` their totals and variances, oldest first.


@numba.njit(cache=True, nogil=True)
def _adwin_insert(
    s: int,
    value: float,
    stat: np.ndarray,
    levels: np.ndarray,
    cnt: np.ndarray,
    bt: np.ndarray,
    bv: np.ndarray,
    max_buckets: int,
) -> None:
    bt[s, 0, cnt[s, 0]] = value
    bv[s, 0, cnt[s, 0]] = 0.0
    cnt[s, 0] += 1
    width = stat[s, 2] + 1.0
    inc = 0.0
    if width > 1.0:
        dv = value - stat[s, 0] / (width - 1.0)
        inc = (width - 1.0) * dv * dv / width
    stat[s, 1] += inc
    stat[s, 0] += value
    stat[s, 2] = width
    i = 0
    while cnt[s, i] == max_buckets + 1:
        n1 = float(np.int64(1) << i)
        t0, t1 = bt[s, i, 0], bt[s, i, 1]
        mu1, mu2 = t0 / n1, t1 / n1
        v12 = bv[s, i, 0] + bv[s, i, 1] + n1 * 0.5 * (mu1 - mu2) * (mu1 - mu2)
        if i + 1 >= levels[s]:
            levels[s] += 1
            cnt[s, i + 1] = 0
        bt[s, i + 1, cnt[s, i + 1]] = t0 + t1
        bv[s, i + 1, cnt[s, i + 1]] = v12
        cnt[s, i + 1] += 1
        left = cnt[s, i] - 2
        for k in range(left):
            bt[s, i, k] = bt[s, i, k + 2]
            bv[s, i, k] = bv[s, i, k + 2]
        cnt[s, i] = left
        if cnt[s, i + 1] <= max_buckets:
            break
        i += 1


@numba.njit(cache=True, nogil=True)
def _adwin_drop_oldest(
    s: int, stat: np.ndarray, levels: np.ndarray, cnt: np.ndarray, bt: np.ndarray, bv: np.ndarray
) -> None:
    last = levels[s] - 1
    n = float(np.int64(1) << last)
    u, v = bt[s, last, 0], bv[s, last, 0]
    mu = u / n
    stat[s, 2] -= n
    stat[s, 0] -= u
    width = stat[s, 2]
    mu_window = stat[s, 0] / width
    stat[s, 1] -= v + n * width * (mu - mu_window) * (mu - mu_window) / (n + width)
    left = cnt[s, last] - 1
    for k in range(left):
        bt[s, last, k] = bt[s, last, k + 1]
        bv[s, last, k] = bv[s, last, k + 1]
    cnt[s, last] = left
    if left == 0:
        levels[s] -= 1


@numba.njit(cache=True, nogil=True)
def _adwin_cut(
    n0: float,
    n1: float,
    delta_mean: float,
    delta_prime: float,
    variance_share: float,
    min_len: float,
) -> bool:
    # delta_prime = ln(2 ln(width) / delta) and variance_share = variance / width are constant
    # during a scan of the window, so the caller computes them once per scan (same values).
    m_recip = 1.0 / (n0 - min_len + 1.0) + 1.0 / (n1 - min_len + 1.0)
    epsilon = (
        np.sqrt(2.0 * m_recip * variance_share * delta_prime) + 2.0 / 3.0 * delta_prime * m_recip
    )
    return bool(abs(delta_mean) > epsilon)


@numba.njit(cache=True, nogil=True, error_model="numpy")
def _adwin_scan(
    s: int,
    stat: np.ndarray,
    levels: np.ndarray,
    cnt: np.ndarray,
    bt: np.ndarray,
    bv: np.ndarray,
    delta: float,
    min_len: float,
    work: np.ndarray,
) -> bool:
    """ADWIN's check of every cut of slot s's window, dropping the oldest bucket while one
    cut's means differ; whether any did (river's ``detect_change`` on a clock tick).

    The cuts are checked oldest first; the first that holds drops a bucket and the scan starts
    again. The running sums are taken in river's order, then every cut's test is computed in a
    separate (vectorisable) loop: the same operations on the same values, so the same answers.
    """
    n0s, n1s, u0s, u1s = work[0], work[1], work[2], work[3]
    detected = False
    while True:
        n0, n1 = 0.0, stat[s, 2]
        u0, u1 = 0.0, stat[s, 0]
        m = 0
        for i in range(levels[s] - 1, -1, -1):
            size = float(np.int64(1) << i)
            for k in range(cnt[s, i]):
                n0 += size
                n1 -= size
                u0 += bt[s, i, k]
                u1 -= bt[s, i, k]
                n0s[m], n1s[m], u0s[m], u1s[m] = n0, n1, u0, u1
                m += 1
        m -= 1  # the newest bucket is never a cut point
        width = stat[s, 2]
        delta_prime = np.log(2.0 * np.log(width) / delta)
        variance_share = stat[s, 1] / width
        hits = work[4]
        for j in range(m):  # no early exit: a loop the compiler vectorises
            a0, a1 = n0s[j], n1s[j]
            delta_mean = (u0s[j] / a0) - (u1s[j] / a1)
            m_recip = 1.0 / (a0 - min_len + 1.0) + 1.0 / (a1 - min_len + 1.0)
            epsilon = (
                np.sqrt(2.0 * m_recip * variance_share * delta_prime)
                + 2.0 / 3.0 * delta_prime * m_recip
            )
            hits[j] = (a1 >= min_len) & (a0 >= min_len) & (abs(delta_mean) > epsilon)
        cut = -1
        for j in range(m):
            if hits[j] != 0.0:
                cut = j
                break
        if cut < 0:
            return detected
        detected = True
        if width > 0.0:
            _adwin_drop_oldest(s, stat, levels, cnt, bt, bv)
        else:  # pragma: no cover - river scans on without dropping; the window is empty
            return detected


@numba.njit(cache=True, nogil=True)
def _adwin_batch(  # pragma: no cover - numba
    y: np.ndarray,
    pred: np.ndarray,
    per_ok: np.ndarray,
    ring: np.ndarray,
    head: np.ndarray,
    size: np.ndarray,
    C: np.ndarray,
    P: np.ndarray,
    stat: np.ndarray,
    ticks: np.ndarray,
    levels: np.ndarray,
    cnt: np.ndarray,
    bt: np.ndarray,
    bv: np.ndarray,
    params: np.ndarray,
    trace: np.ndarray,
) -> None:
    delta, clock, max_buckets, min_len, grace = (
        params[0],
        np.int64(params[1]),
        np.int64(params[2]),
        params[3],
        params[4],
    )
    tracing = trace.shape[1] > 0
    work = np.empty((5, bt.shape[1] * bt.shape[2]))
    n_slots, n = pred.shape
    for s in range(n_slots):
        for i in range(n):
            p = pred[s, i]
            if p < 0:
                continue
            _adwin_insert(s, 1.0 if y[i] != p else 0.0, stat, levels, cnt, bt, bv, max_buckets)
            ticks[s, 0] += 1
            hit = False
            if ticks[s, 0] % clock == 0 and stat[s, 2] > grace:
                hit = _adwin_scan(s, stat, levels, cnt, bt, bv, delta, min_len, work)
                if hit:
                    ticks[s, 1] += 1
            code = (np.int64(y[i]) << _Y_SHIFT) | (np.int64(p) << _PRED_SHIFT) | per_ok[i]
            _push(s, code, ring, head, size, C, P)
            if tracing:
                trace[s, i] = -stat[s, 2] if hit else stat[s, 2]
        _trim(s, np.int64(stat[s, 2]), ring, head, size, C, P)


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
        return (
            np.ascontiguousarray(y, dtype=np.int64),
            np.ascontiguousarray(pred, dtype=np.int64),
            np.ascontiguousarray(per_ok, dtype=np.int64),
        )

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
        _sliding_batch(
            y, pred, per_ok, self.size, self._ring, self._head, self._size, self.C, self.P
        )


class ADWINWindow(_Windowed):
    """The rows inside an ADWIN window (bifet2015 §6) run on each slot's 0/1 loss.

    ``delta`` is ADWIN's confidence; ``clock``, ``max_buckets``, ``min_window_length`` and
    ``grace_period`` keep river's defaults (32, 5, 5, 10). ADWIN itself is compiled here
    (numba) for all slots at once, with river's ``AdaptiveWindowing`` arithmetic, so the
    windows are river's to the row. After a detected change the window keeps the recent part
    ADWIN retains (MOA's behaviour), it does not restart empty.

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
        max_buckets = 5
        self._params = np.array([delta, 32, max_buckets, 5, 10], dtype=np.float64)
        self._stat = np.zeros((n_slots, 3))
        self._ticks = np.zeros((n_slots, 2), dtype=np.int64)
        self._levels = np.ones(n_slots, dtype=np.int64)
        self._cnt = np.zeros((n_slots, _LEVELS), dtype=np.int64)
        self._bt = np.zeros((n_slots, _LEVELS, max_buckets + 1))
        self._bv = np.zeros((n_slots, _LEVELS, max_buckets + 1))

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
        y, pred, per_ok = self._prepare(y, pred, per_ok)
        out = np.zeros(pred.shape if trace else (pred.shape[0], 0))
        _adwin_batch(
            y,
            pred,
            per_ok,
            self._ring,
            self._head,
            self._size,
            self.C,
            self.P,
            self._stat,
            self._ticks,
            self._levels,
            self._cnt,
            self._bt,
            self._bv,
            self._params,
            out,
        )
        return out

    @property
    def n_detections(self) -> np.ndarray:
        """Changes ADWIN has detected in each slot."""
        out: np.ndarray = self._ticks[:, 1].copy()
        return out


def make_tracker(
    kind: str,
    n_slots: int,
    n_classes: int = 2,
    *,
    window: int = 1000,
    fading: float = 0.999,
    adwin_delta: float = 0.002,
) -> Tracker:
    """Build the tracker of a forgetting mechanism by name (one of :data:`FORGETTING`).

    ``fading`` is the factor of ``"fading"`` and, as ``decay = 1 - fading``, the decay of
    ``"ewma"`` (zliobaite2015 Algorithm 1): both weigh a row tested j rows ago by
    ``fading ** j``.

    >>> make_tracker("ewma", n_slots=2, fading=0.99).decay
    0.010000000000000009
    """
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
