"""Temporal dependence of a label stream: P(M), P(T), the baselines and Δ(ℓ).

Following zliobaite2015:

- :class:`LabelDiagnostics` reads a label sequence chunk by chunk in constant memory and
  gives the class counts, P(M) (majority prior, eq. 6), P(T) = sum_i P(i, i) (share of
  consecutive equal labels, Proposition 7 and Table 3), the prequential accuracies of the
  Majority and Persistent classifiers (Definitions 2 and 3) and the conditional probabilities
  behind Δ(ℓ) of §6.8 (Fig. 5); :func:`describe_stream` runs it over a :class:`Stream`.
- :func:`format_description` writes it as the Markdown of ``distval describe``.

The shuffles of §6.5 (``iid``, ``within-class``) are row orders in
:mod:`distval.streams.permutations`; the wrappers of §3 are :mod:`distval.learners.temporal`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from distval.errors import DistvalError, check_positive_int
from distval.streams.base import Stream

__all__ = ["LabelDiagnostics", "describe_stream", "format_description"]


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

    def conditional(self) -> npt.NDArray[np.float64]:
        """(classes, max_lag + 2) array: column ℓ is P(y_t = i | y_{t-1} = ... = y_{t-ℓ} = i).

        Column 0 is the prior P(i); NaN where no row has ℓ previous labels equal to i.
        """
        with np.errstate(divide="ignore", invalid="ignore"):
            out = np.where(self.runs > 0, self.stays / np.maximum(self.runs, 1), np.nan)
        out[:, 0] = self.priors
        return out

    def delta(self) -> npt.NDArray[np.float64]:
        """(classes, max_lag) array: Δ(ℓ) for ℓ = 1 ... max_lag (zliobaite2015 §6.8, Fig. 5).

        Δ(ℓ) is the change in P(y_t = i | the previous labels are all i) when the ℓ-th
        previous label is added: ``conditional()[:, ℓ] - conditional()[:, ℓ - 1]``, so Δ(1)
        = P(i | i) - P(i) measures first-order dependence (Definition 1). The paper's printed
        formula subtracts in the other order with the index shifted by one; the values are
        the same up to that sign and shift.
        """
        c = self.conditional()
        return c[:, 1 : self.max_lag + 1] - c[:, : self.max_lag]

    def to_dict(self) -> dict[str, Any]:
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
) -> dict[str, Any]:
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


def format_description(d: dict[str, Any], max_classes: int = 30) -> str:
    """Markdown text of a :func:`describe_stream` result.

    >>> d = {"name": "s", "rows": 4, "attributes": 1, "nominal": 0, "classes": ["a", "b"],
    ...      "class_counts": [3, 1], "p_majority": 0.75, "p_persistence": 2 / 3,
    ...      "majority_accuracy": 0.75, "persistent_accuracy": 0.75,
    ...      "delta": [[0.1], [float("nan")]]}
    >>> print(format_description(d).splitlines()[0])
    # s
    """
    from distval.tasks import task_named

    task = task_named("classification")  # the one unit policy: shares in percent

    def share(v: float) -> str:
        return task.show("accuracy", v)

    def points(v: float) -> str:  # a difference of two shares
        return "" if v != v else task.show("accuracy", v, difference=True)

    lines = [f"# {d['name']}", ""]
    lines += ["| rows | attributes | classes | P(M) | P(T) | Majority acc. | Persistent acc. |"]
    lines += ["|---:|---:|---:|---:|---:|---:|---:|"]
    lines += [
        f"| {d['rows']:,} | {d['attributes']} ({d['nominal']} nominal) | {len(d['classes'])} "
        f"| {share(d['p_majority'])} | {share(d['p_persistence'])} "
        f"| {share(d['majority_accuracy'])} | {share(d['persistent_accuracy'])} |",
        "",
    ]
    n = max(d["rows"], 1)
    lags = len(d["delta"][0]) if d["delta"] else 0
    head = "| class | count | P(i) | " + " | ".join(f"Δ({lag})" for lag in range(1, lags + 1))
    lines += [head + " |", "|---|---:|---:|" + "---:|" * lags]
    order = sorted(range(len(d["classes"])), key=lambda i: -d["class_counts"][i])
    for i in order[:max_classes]:
        deltas = " | ".join(points(v) for v in d["delta"][i])
        lines.append(
            f"| {d['classes'][i]} | {d['class_counts'][i]:,} "
            f"| {share(d['class_counts'][i] / n)} | {deltas} |"
        )
    if len(order) > max_classes:
        lines.append(f"| ({len(order) - max_classes} more classes) | | | |")
    lines += [
        "",
        "P(M): share of the majority class; P(T): share of consecutive equal labels; "
        "accuracies are prequential (test, then count); shares in percent; Δ(ℓ) = "
        "P(y_t=i | ℓ previous labels i) - P(y_t=i | ℓ-1 previous labels i), in points (a "
        "difference of two percentages), Δ(1) = P(i|i) - P(i) (zliobaite2015 §6.8).",
    ]
    return "\n".join(lines)
