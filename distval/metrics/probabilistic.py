"""Probabilistic measures per slot: log-loss, Brier score and ROC AUC, under every forgetting.

They score the class probabilities a replica gave each row it tested (river's
``predict_proba_one``; MOA's votes divided by their sum; uniform when a learner gives none),
not its hard label. Definitions, on the rows of a slot's window with weights ``w`` (1, or
``factor ** age`` under fading and ewma), ``p`` a row's probabilities and ``y`` its class:

- ``log_loss``: mean of ``-log p[y]``, ``p[y]`` clipped to ``[eps, 1 - eps]`` (float64's
  eps), as scikit-learn's ``log_loss``;
- ``brier``: two classes: mean of ``(p[1] - [y == 1]) ** 2``; more: mean of
  ``sum_k (p[k] - [y == k]) ** 2`` (Brier 1950), as scikit-learn's ``brier_score_loss``;
- ``auc``: two classes: the ROC AUC of ``p[1]`` for class 1, ties counting one half (the
  Mann-Whitney form, scikit-learn's ``roc_auc_score``); more: the mean over classes ``k``
  of the AUC of ``p[k]`` for class ``k`` against the rest (macro one-vs-rest), over the
  classes that have both positive and negative rows in the window; NaN when none has.

Lower is better for ``log_loss`` and ``brier``, higher for ``auc``.

Which rows: :class:`ScoreWindows` holds each slot's measures over the window of its
forgetting mechanism: every tested row (cumulative), the last ``size`` (window), the last
ADWIN width of the slot's 0/1-loss ADWIN (adwin: the width its
:class:`~distval.metrics.ADWINWindow` reports), or every row weighted ``factor ** age``, the
age counted in rows the slot tested (fading and ewma: both weigh by the fading factor
here; ewma's start values belong to its hard-label estimators).

AUC in bounded memory: the windows count each class's scores in :data:`AUC_BINS` bins
(``floor(p[k] * AUC_BINS)``), so the AUC they give is *exactly* the AUC of the scores
rounded down to a multiple of 1/4096 (scikit-learn's ``roc_auc_score`` on the rounded
scores, in the tests). Against the unrounded scores it differs only through the
(positive, negative) pairs whose scores share a bin, each counted one half: by at most half
their share of all pairs (:func:`auc_error_bound`, per window
:meth:`ScoreWindows.error_bound`). Log-loss and Brier are running sums: exact.
:func:`proba_measures` and :func:`auc` compute the unrounded definitions from rows.

>>> p = np.array([[0.9, 0.1], [0.3, 0.7], [0.6, 0.4]])
>>> m = proba_measures(p, np.array([0, 1, 1]))
>>> round(m["log_loss"], 4), round(m["brier"], 4), m["auc"]
(0.4594, 0.1533, 1.0)
"""

from __future__ import annotations

import math

import numpy as np

from distval.errors import DistvalError
from distval.metrics.jit import njit

__all__ = [
    "AUC_BINS",
    "LOG_LOSS_FLOOR",
    "LOWER_IS_BETTER",
    "PROBA_MEASURES",
    "ScoreWindows",
    "Scored",
    "auc",
    "auc_bins",
    "auc_error_bound",
    "proba_measures",
    "row_losses",
]

PROBA_MEASURES = ("log_loss", "brier", "auc")
LOWER_IS_BETTER = frozenset({"log_loss", "brier"})
_EPS = float(np.finfo(np.float64).eps)
#: The verdict's per-row log-loss clips ``p[y]`` below here, so a row's loss is at most
#: ``-log(1e-4)`` (9.21) and a paired difference is bounded (:mod:`distval.statistics.anytime`).
LOG_LOSS_FLOOR = 1e-4
#: Bins of the AUC histograms: ``p[k]`` is rounded down to a multiple of ``1 / AUC_BINS``.
AUC_BINS = 4096


def auc(score: np.ndarray, positive: np.ndarray, w: np.ndarray | None = None) -> float:
    """Weighted ROC AUC of ``score`` for the rows where ``positive``: the weight share of
    (positive, negative) pairs the score orders right, ties one half; NaN without both.

    >>> auc(np.array([0.1, 0.4, 0.35, 0.8]), np.array([False, False, True, True]))
    0.75
    """
    w = np.ones(len(score)) if w is None else w
    values, inverse = np.unique(score, return_inverse=True)
    pos = np.bincount(inverse, weights=np.where(positive, w, 0.0), minlength=len(values))
    neg = np.bincount(inverse, weights=np.where(positive, 0.0, w), minlength=len(values))
    total_pos, total_neg = pos.sum(), neg.sum()
    if total_pos <= 0 or total_neg <= 0:
        return float("nan")
    below = np.cumsum(neg) - neg
    return float((pos * (below + 0.5 * neg)).sum() / (total_pos * total_neg))


def proba_measures(
    p: np.ndarray, y: np.ndarray, w: np.ndarray | None = None
) -> dict[str, float]:
    """The three measures of rows ``p`` (rows, classes) with classes ``y`` and weights ``w``.

    >>> proba_measures(np.empty((0, 2)), np.empty(0, np.int64))["auc"]
    nan
    """
    n, c = p.shape
    if n == 0:
        return dict.fromkeys(PROBA_MEASURES, float("nan"))
    w = np.ones(n) if w is None else w
    total = w.sum()
    rows = np.arange(n)
    p_true = np.clip(p[rows, y], _EPS, 1 - _EPS)
    log_loss = float((w * -np.log(p_true)).sum() / total)
    onehot = np.zeros((n, c))
    onehot[rows, y] = 1.0
    if c <= 2:
        second = p[:, 1] if c == 2 else np.zeros(n)
        brier = float((w * (second - (y == 1)) ** 2).sum() / total)
        area = auc(second, y == 1, w)
    else:
        brier = float((w * ((p - onehot) ** 2).sum(axis=1)).sum() / total)
        per = [auc(p[:, k], y == k, w) for k in range(c)]
        ok = [a for a in per if a == a]
        area = float(np.mean(ok)) if ok else float("nan")
    return {"log_loss": log_loss, "brier": brier, "auc": area}


def auc_bins(p: np.ndarray) -> np.ndarray:
    """The histogram bin of each probability: ``floor(p * AUC_BINS)``, in ``0 .. AUC_BINS``.

    >>> auc_bins(np.array([0.0, 0.5, 0.99999, 1.0])).tolist()
    [0, 2048, 4095, 4096]
    """
    out: np.ndarray = np.clip(np.floor(p * AUC_BINS), 0, AUC_BINS).astype(np.uint16)
    return out


def auc_error_bound(pos: np.ndarray, neg: np.ndarray) -> float:
    """The most :func:`auc` of the binned scores can differ from the AUC of the raw scores
    (the same rows): half the share of (positive, negative) pairs that fall in one bin
    (only those pairs may be ordered differently, and the binned AUC counts each as one
    half). ``pos``/``neg`` are the (weighted) counts per bin.

    >>> auc_error_bound(np.array([1.0, 1.0]), np.array([1.0, 0.0]))   # 1 of 2 pairs tied
    0.25
    """
    total = float(pos.sum()) * float(neg.sum())
    return float((pos * neg).sum()) / total / 2 if total > 0 else float("nan")


@njit(nogil=True)
def _histogram_auc(h: np.ndarray) -> np.ndarray:  # pragma: no cover - numba
    """AUC per row of ``h`` (m, bins, 2): counts of negatives [..., 0] and positives
    [..., 1] per bin, ties one half; NaN without both."""
    m, nb, _ = h.shape
    out = np.full(m, np.nan)
    for i in range(m):
        below = u = pos = 0.0
        for b in range(nb):
            neg_b, pos_b = h[i, b, 0], h[i, b, 1]
            u += pos_b * (below + 0.5 * neg_b)
            below += neg_b
            pos += pos_b
        if pos > 0 and below > 0:
            out[i] = u / (pos * below)
    return out


@njit(nogil=True)
def _add_rows(  # pragma: no cover - numba
    slot: np.ndarray, bins: np.ndarray, y: np.ndarray, ll: np.ndarray, br: np.ndarray,
    w: np.ndarray, sums: np.ndarray, hist: np.ndarray,
) -> None:
    """Add rows with weights ``w`` (negative: take out) to the sums and histograms."""
    c = bins.shape[1]
    for i in range(len(slot)):
        s, wi = slot[i], w[i]
        sums[0, s] += wi
        sums[1, s] += wi * ll[i]
        sums[2, s] += wi * br[i]
        for k in range(c):
            hist[s, k, bins[i, k], 1 if y[i] == k else 0] += wi


def row_losses(p: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-row log-loss (``p[y]`` clipped as in the module) and the per-row sum
    ``sum_k (p[k] - [y == k]) ** 2`` (the multi-class Brier; twice the two-class one) of
    ``p`` (..., rows, classes) and classes ``y`` (rows,).

    >>> ll, br = row_losses(np.array([[0.9, 0.1], [0.3, 0.7]]), np.array([0, 1]))
    >>> ll.round(4).tolist(), br.round(4).tolist()
    ([0.1054, 0.3567], [0.02, 0.18])
    """
    c = p.shape[-1]
    onehot = y[:, None] == np.arange(c)
    p_true = np.clip(np.take_along_axis(p, np.broadcast_to(y[:, None], (*p.shape[:-1], 1)),
                                        axis=-1)[..., 0], _EPS, 1 - _EPS)
    return -np.log(p_true), ((p - onehot) ** 2).sum(axis=-1)


@njit(nogil=True)
def _score_rows(  # pragma: no cover - numba
    y: np.ndarray, pred: np.ndarray, proba: np.ndarray, eps: float, n_bins: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(slot, row, bins, class, log-loss, Brier sum) of every tested (slot, row),
    slot-major."""
    n_slots, n = pred.shape
    c = proba.shape[2]
    m = 0
    for s in range(n_slots):
        for i in range(n):
            if pred[s, i] >= 0:
                m += 1
    slot = np.empty(m, np.int64)
    row = np.empty(m, np.int64)
    bins = np.empty((m, c), np.int64)
    ys = np.empty(m, np.int64)
    ll = np.empty(m)
    br = np.empty(m)
    j = 0
    for s in range(n_slots):
        for i in range(n):
            if pred[s, i] < 0:
                continue
            yi = y[i]
            slot[j], row[j], ys[j] = s, i, yi
            q = 0.0
            for k in range(c):
                pk = proba[s, i, k]
                b = np.floor(pk * n_bins)
                bins[j, k] = 0 if b < 0 else (n_bins if b > n_bins else np.int64(b))
                q += (pk - 1.0) ** 2 if k == yi else pk * pk
            pt = min(max(proba[s, i, yi], eps), 1.0 - eps)
            ll[j] = -np.log(pt)
            br[j] = q
            j += 1
    return slot, row, bins, ys, ll, br


class Scored:
    """A batch's tested (slot, row) pairs, slot-major, as :class:`ScoreWindows` adds them:
    ``slot``, ``row`` (in the batch), their bins (pairs, classes) (:func:`auc_bins`), class,
    log-loss and Brier sum (:func:`row_losses`). Computed once per batch for all of a run's
    windows.

    >>> sc = Scored.of(np.array([1, 0]), np.array([[1, -1]]), np.array([[[0.25, 0.75]] * 2]))
    >>> sc.slot.tolist(), sc.bins.tolist(), round(float(sc.ll[0]), 4)
    ([0], [[1024, 3072]], 0.2877)
    """

    def __init__(self, slot: np.ndarray, row: np.ndarray, bins: np.ndarray, y: np.ndarray,
                 ll: np.ndarray, br: np.ndarray) -> None:
        self.slot, self.row, self.bins, self.y, self.ll, self.br = slot, row, bins, y, ll, br

    def per_row(self, measure: str, shape: tuple[int, int]) -> np.ndarray:
        """(slots, rows) per-row loss of ``measure`` (NaN where the slot did not test the
        row): ``brier`` as scikit-learn's per row (``(p[1] - [y == 1]) ** 2`` for two
        classes, in [0, 1]; the sum over classes for more, in [0, 2]); ``log_loss`` with
        ``p[y]`` clipped below at :data:`LOG_LOSS_FLOOR` (so in [0, -log(floor)]).

        >>> sc = Scored.of(np.array([1]), np.array([[1]]), np.array([[[1.0, 0.0]]]))
        >>> sc.per_row("log_loss", (1, 1)).round(3).tolist(), sc.per_row("brier", (1, 1)).tolist()
        ([[9.21]], [[1.0]])
        """
        out = np.full(shape, np.nan)
        if measure == "log_loss":
            v = np.minimum(self.ll, -math.log(LOG_LOSS_FLOOR))
        else:
            v = self.br / 2 if self.bins.shape[1] <= 2 else self.br
        out[self.slot, self.row] = v
        return out

    @classmethod
    def of(cls, y: np.ndarray, pred: np.ndarray, proba: np.ndarray) -> Scored:
        """The rows of a batch: classes ``y``, ``pred`` (slots, rows) with -1 where the slot
        did not test the row, ``proba`` (slots, rows, classes)."""
        got = _score_rows(
            np.ascontiguousarray(y, np.int64), np.ascontiguousarray(pred),
            np.ascontiguousarray(proba, np.float64), _EPS, AUC_BINS,
        )
        return cls(*got)


class ScoreWindows:
    """Each slot's log-loss, Brier score and ROC AUC over the window of one forgetting
    mechanism, in memory that does not grow with the stream (beyond the window's rows).

    ``update(y, pred, proba, widths=None)`` takes a batch: ``pred`` (slots, n) with -1 where
    the slot did not test the row, ``proba`` (slots, n, classes); ``widths`` is the ADWIN
    tracker's window length of every slot after the batch (adwin only). ``get()`` gives the
    three measures of every slot as arrays.

    State per slot: the (weighted) sums of the per-row log-loss and Brier terms and of the
    weights, and per class a histogram of ``p[k]`` (:data:`AUC_BINS` bins; positives and
    negatives counted apart) from which the AUC is computed (see the module). Cumulative,
    fading and ewma keep no rows (fading multiplies the sums and histograms by
    ``factor ** tested`` each batch); window and adwin keep each kept row's bins, class and
    two losses (2 bytes a class, 2 for the class, 16 for the losses: 22 bytes a row with two
    classes), to take them out when they leave the window.

    >>> sw = ScoreWindows("window", n_slots=1, size=2)
    >>> pr = np.array([[[0.9, 0.1], [0.2, 0.8], [0.6, 0.4]]])
    >>> sw.update(np.array([0, 1, 0]), np.array([[0, 1, 0]]), pr)
    >>> float(sw.get()["auc"][0]), sw.kept_rows()    # the last two rows only
    (1.0, 2)
    """

    def __init__(
        self, kind: str, n_slots: int, size: int = 1000, factor: float = 0.999,
        n_classes: int | None = None,
    ) -> None:
        self.kind, self.n_slots, self.size, self.factor = kind, n_slots, int(size), factor
        self.n_classes = 2
        self._weighted = kind in ("fading", "ewma")
        self._keeps = kind not in ("cumulative", "fading", "ewma")
        self._sums = np.zeros((3, n_slots))  # weight, log-loss, Brier (multi-class form)
        #: Two classes known in advance (``n_classes=2``): only class 1's histogram (the one
        #: the AUC reads); otherwise one per class, as classes may appear later.
        self._first = 1 if n_classes == 2 else 0
        self._hist = np.zeros((n_slots, self.n_classes - self._first, AUC_BINS + 1, 2))
        #: window/adwin: per slot, chunks of kept rows (bins (rows, classes), class, log-loss,
        #: Brier), oldest first, and their count.
        self._rows: list[list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]] = [
            [] for _ in range(n_slots)
        ]
        self._n = np.zeros(n_slots, np.int64)

    def _grow(self, c: int) -> None:
        """More classes: class ``k``'s column was 0 on every earlier row (bin 0, negative)."""
        if self._first:
            raise DistvalError(f"two classes were announced, and class {c - 1} arrived")
        old = self.n_classes
        hist = np.zeros((self.n_slots, c, AUC_BINS + 1, 2))
        hist[:, :old] = self._hist
        hist[:, old:, 0, 0] = self._sums[0][:, None]
        self._hist, self.n_classes = hist, c
        for chunks in self._rows:
            for i, (b, y, ll, br) in enumerate(chunks):
                chunks[i] = (np.pad(b, ((0, 0), (0, c - old))), y, ll, br)

    def update(
        self, y: np.ndarray, pred: np.ndarray, proba: np.ndarray, widths: np.ndarray | None = None
    ) -> None:
        self.add(Scored.of(y, pred, proba), widths)

    def add(self, sc: Scored, widths: np.ndarray | None = None) -> None:
        """Take a batch's :class:`Scored` rows (what :meth:`update` does after scoring)."""
        if sc.bins.shape[1] > self.n_classes:
            self._grow(sc.bins.shape[1])
        c = self.n_classes
        slot, y, ll, br = sc.slot, sc.y, sc.ll, sc.br
        bins = sc.bins if sc.bins.shape[1] == c else np.pad(
            sc.bins, ((0, 0), (0, c - sc.bins.shape[1]))
        )
        starts = np.searchsorted(slot, np.arange(self.n_slots + 1))
        if self._weighted:
            count = np.diff(starts)
            decay = self.factor ** count.astype(np.float64)
            self._sums *= decay
            self._hist *= decay[:, None, None, None]
            after = starts[slot + 1] - 1 - np.arange(len(slot))  # tested rows after each
            w = self.factor ** after.astype(np.float64)
        else:
            w = np.ones(len(slot))
        # histogram k is class k + first: y - first is the histogram's class
        bins, y = bins[:, self._first:], y - self._first
        self._add(slot, bins, y, ll, br, w)
        if not self._keeps:
            return
        keep = widths if self.kind == "adwin" and widths is not None else None
        small, ys = bins.astype(np.uint16), y.astype(np.int16)  # kept rows: 2 bytes a bin
        gone: list[tuple[int, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]] = []
        for s in range(self.n_slots):
            a, b = starts[s], starts[s + 1]
            if b > a:
                self._rows[s].append((small[a:b], ys[a:b], ll[a:b], br[a:b]))
                self._n[s] += b - a
            extra = int(self._n[s]) - (self.size if keep is None else int(keep[s]))
            if extra > 0:
                gone.extend((s, part) for part in self._trim(s, extra))
        if gone:
            ids = np.concatenate([np.full(len(g[1]), s) for s, g in gone])
            parts = [np.concatenate([g[i] for _, g in gone]) for i in range(4)]
            self._add(ids, parts[0], parts[1], parts[2], parts[3], -np.ones(len(ids)))

    def _add(
        self, slot: np.ndarray, bins: np.ndarray, y: np.ndarray, ll: np.ndarray,
        br: np.ndarray, w: np.ndarray,
    ) -> None:
        """Add rows (of slots ``slot``) with weights ``w`` (-1: take them out)."""
        _add_rows(slot.astype(np.int64), np.ascontiguousarray(bins, np.int64),
                  y.astype(np.int64), ll, br, w, self._sums, self._hist)

    def _trim(
        self, s: int, extra: int
    ) -> list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
        """Drop slot ``s``'s ``extra`` oldest kept rows; the rows dropped."""
        out = []
        chunks = self._rows[s]
        self._n[s] -= extra
        while extra > 0 and chunks:
            head = chunks[0]
            if len(head[1]) <= extra:
                out.append(chunks.pop(0))
                extra -= len(head[1])
            else:
                out.append(tuple(a[:extra] for a in head))  # type: ignore[arg-type]
                chunks[0] = tuple(a[extra:] for a in head)  # type: ignore[assignment]
                extra = 0
        return out

    def kept_rows(self) -> int:
        """Rows kept over all slots (0 for cumulative, fading and ewma)."""
        return int(self._n.sum())

    def error_bound(self) -> np.ndarray:
        """Per slot, the most its AUC can differ from the AUC of the unbinned scores
        (:func:`auc_error_bound`; two classes: of class 1's histogram, more: the largest
        over the classes)."""
        one = 1 - self._first
        h = self._hist[:, one : one + 1] if self.n_classes <= 2 else self._hist
        neg, pos = h[..., 0], h[..., 1]
        total = pos.sum(axis=-1) * neg.sum(axis=-1)
        out = np.full(total.shape, np.nan)
        np.divide((pos * neg).sum(axis=-1) / 2, total, out=out, where=total > 0)
        with np.errstate(all="ignore"):
            got: np.ndarray = np.nanmax(np.where(np.isnan(out), -1.0, out), axis=1)
        got[got < 0] = np.nan
        return got

    def get(self) -> dict[str, np.ndarray]:
        w, ll, br = self._sums
        out = {k: np.full(self.n_slots, np.nan) for k in PROBA_MEASURES}
        ok = w > 0
        out["log_loss"][ok] = ll[ok] / w[ok]
        out["brier"][ok] = br[ok] / w[ok] / (2 if self.n_classes <= 2 else 1)
        if self.n_classes <= 2:
            out["auc"] = _histogram_auc(np.ascontiguousarray(self._hist[:, 1 - self._first]))
        else:
            c = self.n_classes
            per = _histogram_auc(self._hist.reshape(-1, AUC_BINS + 1, 2)).reshape(-1, c)
            finite = np.isfinite(per)
            count = finite.sum(axis=1)
            np.divide(np.where(finite, per, 0.0).sum(axis=1), count, out=out["auc"],
                      where=count > 0)
        out["auc"][~ok] = np.nan
        return out


def _wide(p: np.ndarray, c: int) -> np.ndarray:
    pad = [(0, 0)] * (p.ndim - 1) + [(0, c - p.shape[-1])]
    return p if p.shape[-1] >= c else np.pad(p, pad)
