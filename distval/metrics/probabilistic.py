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

Which rows: :class:`ScoreWindows` keeps each slot's tested rows (probabilities and class)
for the window of its forgetting mechanism: every row (cumulative), the last ``size``
(window), the last ADWIN width of the slot's 0/1-loss ADWIN (adwin: the width its
:class:`~distval.metrics.ADWINWindow` reports), or the rows whose weight
``factor ** age`` is above 1e-17 of the newest's (fading and ewma: both weigh by the
fading factor here; ewma's start values belong to its hard-label estimators). The
measures are computed from the kept rows at each snapshot.

>>> p = np.array([[0.9, 0.1], [0.3, 0.7], [0.6, 0.4]])
>>> m = proba_measures(p, np.array([0, 1, 1]))
>>> round(m["log_loss"], 4), round(m["brier"], 4), m["auc"]
(0.4594, 0.1533, 1.0)
"""

from __future__ import annotations

import math

import numpy as np

__all__ = [
    "LOWER_IS_BETTER",
    "PROBA_MEASURES",
    "PairCount",
    "ScoreWindows",
    "auc",
    "proba_measures",
]

PROBA_MEASURES = ("log_loss", "brier", "auc")
LOWER_IS_BETTER = frozenset({"log_loss", "brier"})
_EPS = float(np.finfo(np.float64).eps)


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


def _pairs(score: np.ndarray, positive: np.ndarray) -> float:
    """(positive, negative) pairs of these rows the score orders right, ties one half."""
    values, inverse = np.unique(score, return_inverse=True)
    pos = np.bincount(inverse, weights=positive.astype(np.float64), minlength=len(values))
    neg = np.bincount(inverse, weights=(~positive).astype(np.float64), minlength=len(values))
    return float((pos * (np.cumsum(neg) - neg + 0.5 * neg)).sum())


def _push(runs: list[np.ndarray], run: np.ndarray) -> None:
    """Add a sorted run; merge the last two while they are of similar size (so there are
    O(log n) runs and each score is merged O(log n) times)."""
    if len(run):
        runs.append(run)
    while len(runs) > 1 and len(runs[-2]) <= 2 * len(runs[-1]):
        last = runs.pop()
        runs.append(np.sort(np.concatenate([runs.pop(), last]), kind="stable"))


class PairCount:
    """The exact ROC AUC of one score column over rows added batch by batch: the count of
    (positive, negative) pairs ordered right (ties one half), kept up to date by counting
    each new row against sorted runs of the earlier positives and negatives.

    >>> pc = PairCount()
    >>> pc.add(np.array([0.1, 0.4]), np.array([False, False]))
    >>> pc.add(np.array([0.35, 0.8]), np.array([True, True]))
    >>> pc.value()
    0.75
    """

    def __init__(self) -> None:
        self.pos: list[np.ndarray] = []
        self.neg: list[np.ndarray] = []
        #: Rows removed since (tombstones): counts against the rows present are counts
        #: against ``pos``/``neg`` minus counts against these.
        self.gone_pos: list[np.ndarray] = []
        self.gone_neg: list[np.ndarray] = []
        self.u = 0.0
        self.n_pos = self.n_neg = 0

    def _cross(self, new_pos: np.ndarray, new_neg: np.ndarray) -> float:
        """Pairs of these rows with the rows present, ordered right (ties one half)."""
        u = 0.0
        for runs, sign in ((self.neg, 1.0), (self.gone_neg, -1.0)):
            for run in runs:  # these positives against present negatives
                lo = np.searchsorted(run, new_pos, "left")
                hi = np.searchsorted(run, new_pos, "right")
                u += sign * (float(lo.sum()) + 0.5 * float((hi - lo).sum()))
        for runs, sign in ((self.pos, 1.0), (self.gone_pos, -1.0)):
            for run in runs:  # present positives against these negatives
                lo = np.searchsorted(run, new_neg, "left")
                hi = np.searchsorted(run, new_neg, "right")
                u += sign * (float((len(run) - hi).sum()) + 0.5 * float((hi - lo).sum()))
        return u

    def add(self, score: np.ndarray, positive: np.ndarray) -> None:
        new_pos, new_neg = np.sort(score[positive]), np.sort(score[~positive])
        self.u += _pairs(score, positive) + self._cross(new_pos, new_neg)
        self.n_pos += len(new_pos)
        self.n_neg += len(new_neg)
        _push(self.pos, new_pos)
        _push(self.neg, new_neg)

    def remove(self, score: np.ndarray, positive: np.ndarray) -> None:
        """Take out rows added before (the oldest of a window): with ``D`` the rows
        removed and ``W`` those present before, pairs(W - D) = pairs(W) - cross(D, W) +
        pairs(D), cross counting each row of D against all of W.

        >>> pc = PairCount()
        >>> pc.add(np.array([0.9, 0.1, 0.5, 0.3]), np.array([False, True, True, False]))
        >>> pc.remove(np.array([0.9, 0.1]), np.array([False, True]))
        >>> pc.value()   # 0.5 (positive) against 0.3 (negative)
        1.0
        """
        gone_pos, gone_neg = np.sort(score[positive]), np.sort(score[~positive])
        self.u += _pairs(score, positive) - self._cross(gone_pos, gone_neg)
        self.n_pos -= len(gone_pos)
        self.n_neg -= len(gone_neg)
        _push(self.gone_pos, gone_pos)
        _push(self.gone_neg, gone_neg)

    def value(self) -> float:
        if not self.n_pos or not self.n_neg:
            return float("nan")
        return self.u / (float(self.n_pos) * float(self.n_neg))


class _Running:
    """One slot's log-loss and Brier sums and AUC pair counts over the rows added since it
    was built (classes fixed at ``c``)."""

    def __init__(self, c: int) -> None:
        self.c = c
        self.n = 0
        self.log_loss = self.brier = 0.0
        self.auc = [PairCount() for _ in range(1 if c <= 2 else c)]

    def add(self, p: np.ndarray, y: np.ndarray) -> None:
        n, c = p.shape
        rows = np.arange(n)
        self.n += n
        self.log_loss += float(-np.log(np.clip(p[rows, y], _EPS, 1 - _EPS)).sum())
        if c <= 2:
            second = p[:, 1] if c == 2 else np.zeros(n)
            self.brier += float(((second - (y == 1)) ** 2).sum())
            self.auc[0].add(second, y == 1)
        else:
            onehot = np.zeros((n, c))
            onehot[rows, y] = 1.0
            self.brier += float(((p - onehot) ** 2).sum())
            for k, pc in enumerate(self.auc):
                pc.add(p[:, k], y == k)

    def remove(self, p: np.ndarray, y: np.ndarray) -> None:
        """Take out rows added before (in any order of removal)."""
        n, c = p.shape
        rows = np.arange(n)
        self.n -= n
        self.log_loss -= float(-np.log(np.clip(p[rows, y], _EPS, 1 - _EPS)).sum())
        if c <= 2:
            second = p[:, 1] if c == 2 else np.zeros(n)
            self.brier -= float(((second - (y == 1)) ** 2).sum())
            self.auc[0].remove(second, y == 1)
        else:
            onehot = np.zeros((n, c))
            onehot[rows, y] = 1.0
            self.brier -= float(((p - onehot) ** 2).sum())
            for k, pc in enumerate(self.auc):
                pc.remove(p[:, k], y == k)

    @property
    def stale(self) -> bool:
        """Whether as many rows were removed as are present: rebuilding is then cheaper."""
        return any(
            sum(map(len, pc.gone_pos)) + sum(map(len, pc.gone_neg)) > max(self.n, 1000)
            for pc in self.auc
        )

    def get(self) -> dict[str, float]:
        if not self.n:
            return dict.fromkeys(PROBA_MEASURES, float("nan"))
        per = [pc.value() for pc in self.auc]
        ok = [a for a in per if a == a]
        return {
            "log_loss": self.log_loss / self.n,
            "brier": self.brier / self.n,
            "auc": float(np.mean(ok)) if ok else float("nan"),
        }


class ScoreWindows:
    """Each slot's window of (probabilities, class) rows under one forgetting mechanism.

    ``update(y, pred, proba, widths=None)`` takes a batch: ``pred`` (slots, n) with -1 where
    the slot did not test the row, ``proba`` (slots, n, classes); ``widths`` is the ADWIN
    tracker's window length of every slot after the batch (adwin only). ``get()`` gives
    :func:`proba_measures` of every slot as arrays.

    >>> sw = ScoreWindows("window", n_slots=1, size=2)
    >>> pr = np.array([[[0.9, 0.1], [0.2, 0.8], [0.6, 0.4]]])
    >>> sw.update(np.array([0, 1, 0]), np.array([[0, 1, 0]]), pr)
    >>> float(sw.get()["auc"][0])    # the last two rows only
    1.0
    """

    def __init__(self, kind: str, n_slots: int, size: int = 1000, factor: float = 0.999) -> None:
        self.kind, self.n_slots, self.size, self.factor = kind, n_slots, int(size), factor
        self.n_classes = 2
        self._p: list[list[np.ndarray]] = [[] for _ in range(n_slots)]
        self._y: list[list[np.ndarray]] = [[] for _ in range(n_slots)]
        self._n = np.zeros(n_slots, np.int64)
        if kind in ("fading", "ewma"):
            self.size = math.ceil(math.log(1e-17) / math.log(factor))
        #: Unweighted windows: each slot's running sums and pair counts, updated as rows
        #: come and rebuilt from the kept rows when rows leave or classes are added.
        self._running: list[_Running | None] = [None] * n_slots

    def update(
        self, y: np.ndarray, pred: np.ndarray, proba: np.ndarray, widths: np.ndarray | None = None
    ) -> None:
        self.n_classes = max(self.n_classes, proba.shape[2])
        tested = pred >= 0
        running = self.kind not in ("fading", "ewma")
        for s in range(self.n_slots):
            rows = np.flatnonzero(tested[s])
            if len(rows):
                self._p[s].append(proba[s, rows])
                self._y[s].append(y[rows])
                self._n[s] += len(rows)
            keep = None
            if self.kind == "adwin" and widths is not None:
                keep = int(widths[s])
            elif self.kind != "cumulative":
                keep = self.size
            r = self._running[s] if running else None
            if r is not None and r.c != self.n_classes:
                r = self._running[s] = None  # rebuilt from the kept rows when next asked
            if r is not None and len(rows):
                r.add(_wide(proba[s, rows], r.c), y[rows])
            gone = self._trim(s, keep) if keep is not None else None
            if r is not None and gone is not None:
                r.remove(_wide(gone[0], r.c), gone[1])
                if r.stale:
                    self._running[s] = None

    def _trim(self, s: int, keep: int) -> tuple[np.ndarray, np.ndarray] | None:
        """Drop slot ``s``'s oldest rows beyond ``keep``; the rows dropped (probabilities
        padded to the classes seen, classes), or None."""
        extra = int(self._n[s]) - keep
        if extra <= 0:
            return None
        ps, ys = [], []
        while extra > 0 and self._y[s]:
            head = len(self._y[s][0])
            if head <= extra:
                ps.append(self._p[s].pop(0))
                ys.append(self._y[s].pop(0))
                extra -= head
                self._n[s] -= head
            else:
                ps.append(self._p[s][0][:extra])
                ys.append(self._y[s][0][:extra])
                self._p[s][0] = self._p[s][0][extra:]
                self._y[s][0] = self._y[s][0][extra:]
                self._n[s] -= extra
                extra = 0
        c = self.n_classes
        return np.concatenate([_wide(a, c) for a in ps]), np.concatenate(ys)

    def rows(self, s: int) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """Slot ``s``'s kept rows: probabilities (padded to the classes seen), classes and
        weights (None: all 1)."""
        c = self.n_classes
        if not self._y[s]:
            return np.empty((0, c)), np.empty(0, np.int64), None
        p = np.concatenate([np.pad(a, ((0, 0), (0, c - a.shape[1]))) for a in self._p[s]])
        y = np.concatenate(self._y[s])
        self._p[s], self._y[s] = [p], [y]  # one chunk from now on: the next copy is shorter
        w = None
        if self.kind in ("fading", "ewma"):
            w = self.factor ** np.arange(len(y) - 1, -1, -1, dtype=np.float64)
        return p, y, w

    def get(self) -> dict[str, np.ndarray]:
        out = {k: np.full(self.n_slots, np.nan) for k in PROBA_MEASURES}
        for s in range(self.n_slots):
            if self.kind in ("fading", "ewma"):
                got = proba_measures(*self.rows(s))
            else:
                r = self._running[s]
                if r is None:
                    p, y, _ = self.rows(s)
                    r = self._running[s] = _Running(self.n_classes)
                    if len(y):
                        r.add(p, y)
                got = r.get()
            for k, v in got.items():
                out[k][s] = v
        return out


def _wide(p: np.ndarray, c: int) -> np.ndarray:
    return p if p.shape[1] >= c else np.pad(p, ((0, 0), (0, c - p.shape[1])))
