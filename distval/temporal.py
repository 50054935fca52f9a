"""Temporal dependence in label streams: diagnostics, shuffles and temporal wrappers.

Following zliobaite2015:

- :class:`LabelDiagnostics` reads a label sequence chunk by chunk in constant memory and
  gives the class counts, P(M) (majority prior, eq. 6), P(T) = sum_i P(i, i) (share of
  consecutive equal labels, Proposition 7 and Table 3), the prequential accuracies of the
  Majority and Persistent classifiers (Definitions 2 and 3) and the conditional probabilities
  behind Δ(ℓ) of §6.8 (Fig. 5); :func:`describe_stream` runs it over a :class:`Stream`.
- :func:`iid_permutation` and :func:`within_class_permutation` are seeded index
  permutations: the first makes a stream iid (the "shuffled" data of §6.5), the second keeps
  the label sequence and shuffles the rows among the positions of their own class (temporal
  dependence kept, drift in P(X | y) removed). :class:`PermutedStream` applies one to a stream.
- the wrappers :class:`~distval.learners.temporal.TemporalCorrection` (§3.1, eq. 3) and
  :class:`~distval.learners.temporal.TemporallyAugmented` (§3.2, eq. 4) live in
  :mod:`distval.learners.temporal`.

The wrappers take the label sequence from ``observe_label`` (the protocol of
:mod:`distval.learners.labels`), so "the previous label" is y_{t-1} of the stream in every
fold replica, whatever rows the validation scheme trains it on.
"""

from __future__ import annotations

import numpy as np

from distval.errors import DistvalError, check_positive_int
from distval.permutations import PermutedStream as _OrderedStream
from distval.permutations import StreamData
from distval.streams.base import Stream

__all__ = [
    "LabelDiagnostics",
    "PermutedStream",
    "describe_stream",
    "iid_permutation",
    "within_class_permutation",
]


class LabelDiagnostics:
    """Streaming label statistics of zliobaite2015 §4 and §6 in constant memory.

    Feed class indices (0, 1, ... by first appearance) with :meth:`update`, chunk by chunk.
    The Majority classifier here is the prequential one (it predicts the most frequent class
    seen before the row, ties to the lower index, class 0 on row 0) and the Persistent one
    predicts the previous label (class 0 on row 0), as the evaluator's baselines do.

    Parameters
    ----------
    max_lag
        Largest ℓ for which Δ(ℓ) is computed.

    Examples
    --------
    >>> d = LabelDiagnostics(max_lag=2)
    >>> d.update(np.array([0, 0, 1, 1, 1, 0]))
    >>> d.counts.tolist(), round(d.p_majority, 3), d.p_persistence
    ([3, 3], 0.5, 0.6)
    >>> d.persistent_accuracy   # rows 0, 1, 3, 4 repeat the label before (row 0: class 0)
    0.6666666666666666
    """

    def __init__(self, max_lag: int = 5) -> None:
        check_positive_int(max_lag, "max_lag")
        self.max_lag = int(max_lag)
        self.n = 0
        self.counts = np.zeros(0, dtype=np.int64)
        self.transitions = np.zeros((0, 0), dtype=np.int64)
        # runs[i, l] / stays[i, l]: rows whose l previous labels are all i / and that are i too
        self.runs = np.zeros((0, self.max_lag + 2), dtype=np.int64)
        self.stays = np.zeros((0, self.max_lag + 2), dtype=np.int64)
        self.majority_hits = 0
        self.persistent_hits = 0
        self._last = -1
        self._run = 0

    def _grow(self, k: int) -> None:
        old = len(self.counts)
        if k <= old:
            return
        self.counts = np.r_[self.counts, np.zeros(k - old, dtype=np.int64)]
        t = np.zeros((k, k), dtype=np.int64)
        t[:old, :old] = self.transitions
        self.transitions = t
        pad = np.zeros((k - old, self.max_lag + 2), dtype=np.int64)
        self.runs, self.stays = np.vstack([self.runs, pad]), np.vstack([self.stays, pad])

    def update(self, y: np.ndarray) -> None:
        """Take the next labels of the stream (int class indices)."""
        y = np.asarray(y, dtype=np.int64)
        n = len(y)
        if n == 0:
            return
        if y.min() < 0:
            raise DistvalError("class indices must be non-negative")
        k = max(int(y.max()) + 1, len(self.counts))
        self._grow(k)
        # Prequential Majority: counts before each row, argmax (ties to the lower index).
        before = np.cumsum(np.eye(k, dtype=np.int64)[y], axis=0) - np.eye(k, dtype=np.int64)[y]
        before += self.counts[None, :]
        self.majority_hits += int((before.argmax(axis=1) == y).sum())
        prev = np.r_[self._last if self._last >= 0 else 0, y[:-1]]
        self.persistent_hits += int((prev == y).sum())
        self.counts += np.bincount(y, minlength=k)
        # Pairs (y_{t-1}, y_t), the first pair of the chunk joining the previous chunk.
        if self._last >= 0:
            np.add.at(self.transitions, (prev, y), 1)
        elif n > 1:
            np.add.at(self.transitions, (y[:-1], y[1:]), 1)
        # Length of the run of equal labels that ends just before each row.
        starts = np.r_[True, y[1:] != y[:-1]]
        idx = np.arange(n)
        start_pos = np.maximum.accumulate(np.where(starts, idx, 0))
        run_incl = idx - start_pos + 1  # run length ending at row t, row t included
        carry = self._run if self._last >= 0 else 0
        first_run = start_pos == 0
        if self._last >= 0 and y[0] == self._last:
            run_incl = np.where(first_run, run_incl + carry, run_incl)
        run_before = np.r_[carry if self._last >= 0 else 0, run_incl[:-1]]
        L = self.max_lag + 1
        cap = np.minimum(run_before, L)
        has = cap > 0
        hist_runs = np.zeros((k, L + 1), dtype=np.int64)
        np.add.at(hist_runs, (prev[has], cap[has]), 1)
        same = has & (prev == y)
        hist_stays = np.zeros((k, L + 1), dtype=np.int64)
        np.add.at(hist_stays, (prev[same], cap[same]), 1)
        # A row with run r counts for every l <= r: reverse cumulative sums over l.
        self.runs[:, 1:] += np.cumsum(hist_runs[:, :0:-1], axis=1)[:, ::-1]
        self.stays[:, 1:] += np.cumsum(hist_stays[:, :0:-1], axis=1)[:, ::-1]
        self._run = int(run_incl[-1])
        self._last = int(y[-1])
        self.n += n

    # -- results -----------------------------------------------------------------------

    @property
    def priors(self) -> np.ndarray:
        """P(i) for every class."""
        return self.counts / max(self.n, 1)

    @property
    def p_majority(self) -> float:
        """P(M), the share of the majority class (eq. 6, Table 3)."""
        return float(self.counts.max() / self.n) if self.n else float("nan")

    @property
    def p_persistence(self) -> float:
        """P(T) = sum_i P(i, i) over the n - 1 consecutive pairs (Proposition 7, Table 3)."""
        pairs = self.transitions.sum()
        return float(np.trace(self.transitions) / pairs) if pairs else float("nan")

    @property
    def majority_accuracy(self) -> float:
        """Prequential accuracy of the Majority classifier (majority of the rows so far)."""
        return self.majority_hits / self.n if self.n else float("nan")

    @property
    def persistent_accuracy(self) -> float:
        """Prequential accuracy of the Persistent classifier over all n rows (eq. 7)."""
        return self.persistent_hits / self.n if self.n else float("nan")

    def conditional(self) -> np.ndarray:
        """(classes, max_lag + 2) array: column ℓ is P(y_t = i | y_{t-1} = ... = y_{t-ℓ} = i).

        Column 0 is the prior P(i); NaN where no row has ℓ previous labels equal to i.
        """
        with np.errstate(divide="ignore", invalid="ignore"):
            out = np.where(self.runs > 0, self.stays / np.maximum(self.runs, 1), np.nan)
        out[:, 0] = self.priors
        return out

    def delta(self) -> np.ndarray:
        """(classes, max_lag) array: Δ(ℓ) for ℓ = 1 ... max_lag (zliobaite2015 §6.8, Fig. 5).

        Δ(ℓ) is the change in P(y_t = i | the previous labels are all i) when the ℓ-th
        previous label is added: ``conditional()[:, ℓ] - conditional()[:, ℓ - 1]``, so Δ(1)
        = P(i | i) - P(i) measures first-order dependence (Definition 1). The paper's printed
        formula subtracts in the other order with the index shifted by one; the values are
        the same up to that sign and shift.
        """
        c = self.conditional()
        return c[:, 1 : self.max_lag + 1] - c[:, : self.max_lag]

    def to_dict(self) -> dict:
        """Everything as plain Python values."""
        return {
            "rows": self.n,
            "class_counts": self.counts.tolist(),
            "p_majority": self.p_majority,
            "p_persistence": self.p_persistence,
            "majority_accuracy": self.majority_accuracy,
            "persistent_accuracy": self.persistent_accuracy,
            "delta": self.delta().tolist(),
        }


def describe_stream(
    stream: Stream, *, max_lag: int = 5, chunk_size: int = 10_000, progress: bool = False
) -> dict:
    """Read a stream once and return its characteristics (zliobaite2015 Table 3 and Fig. 5).

    Memory does not grow with the stream length: only label statistics are kept.

    >>> from distval.streams import open_stream
    >>> d = describe_stream(open_stream("elec2"), max_lag=2)
    >>> d["rows"], d["attributes"], round(d["p_majority"], 2), round(d["p_persistence"], 2)
    (45312, 8, 0.58, 0.85)
    """
    diag = LabelDiagnostics(max_lag)
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=stream.n_rows, unit="rows", desc=stream.name, leave=False)
    try:
        for chunk in stream.chunks(chunk_size):
            diag.update(chunk.y)
            if bar is not None:
                bar.update(len(chunk))
    finally:
        if bar is not None:
            bar.close()
    out = {
        "name": stream.name,
        "attributes": len(stream.feature_names),
        "nominal": len(stream.nominal),
        "classes": list(stream.classes),
    }
    out.update(diag.to_dict())
    return out


def iid_permutation(n: int, seed: int | None = None) -> np.ndarray:
    """A seeded random order of ``n`` rows: the iid shuffle of zliobaite2015 §6.5.

    >>> sorted(iid_permutation(5, seed=1).tolist())
    [0, 1, 2, 3, 4]
    """
    return np.random.default_rng(seed).permutation(int(n))


def within_class_permutation(y: np.ndarray, seed: int | None = None) -> np.ndarray:
    """A seeded order that keeps the label sequence and shuffles rows within their class.

    Row ``t`` of the new stream is row ``order[t]`` of the original, with
    ``y[order] == y``: the label sequence (hence P(M), P(T) and every Δ(ℓ)) is unchanged,
    while the features of each class are spread uniformly over that class's positions,
    removing drift in P(X | y).

    >>> y = np.array([0, 0, 1, 1, 0, 1])
    >>> order = within_class_permutation(y, seed=3)
    >>> bool((y[order] == y).all()), sorted(order.tolist()) == list(range(6))
    (True, True)
    """
    y = np.asarray(y)
    rng = np.random.default_rng(seed)
    positions = np.argsort(y, kind="stable")  # each class's positions, in time order
    sources = np.lexsort((rng.random(len(y)), y))  # each class's rows, in random order
    order = np.empty(len(y), dtype=np.int64)
    order[positions] = sources
    return order


class PermutedStream(_OrderedStream):
    """A stream with its rows reordered: ``"iid"`` or ``"within-class"`` shuffle, seeded.

    The order comes from :func:`iid_permutation` or :func:`within_class_permutation`; reading,
    reordering and renumbering classes by first appearance are those of
    :class:`distval.permutations.PermutedStream` (the stream is read once into memory).

    >>> from distval.streams import open_stream
    >>> s = PermutedStream(open_stream("sea", n_rows=100, seed=1), "within-class", seed=2)
    >>> sum(len(c) for c in s.chunks(30)), s.name
    (100, 'sea[within-class shuffle, seed 2]')
    """

    KINDS = ("iid", "within-class")

    def __init__(self, stream: Stream, kind: str = "iid", seed: int | None = None) -> None:
        if kind not in self.KINDS:
            raise DistvalError(f"unknown shuffle {kind!r}; choose one of {', '.join(self.KINDS)}")
        data = StreamData.read(stream)
        order = (
            iid_permutation(len(data), seed)
            if kind == "iid"
            else within_class_permutation(data.y, seed)
        )
        super().__init__(data, order, name=f"{stream.name}[{kind} shuffle, seed {seed}]")
        self.kind, self.seed = kind, seed
