"""``distval describe --task regression``: what a numeric target's history says by itself.

In one streaming pass (constant memory): rows, attributes, the target's mean, standard
deviation, range; its autocorrelation at lags 1..L (Pearson's correlation of the pairs
``(y_t, y_{t-l})``); and the prequential errors of the two baselines a regression run
measures learners against (:mod:`distval.aggregator.numeric`): the *persistent* predictor (the
previous target) and the *mean* predictor (the mean of the earlier targets), with RMSE,
MAE and the persistent RMSE over the target's standard deviation; the first row, with no
earlier target, counts as predicted exactly by both, as in a regression run. A target
with autocorrelation near 1 is one a learner must beat ``rel_rmse_per`` on: copying the
last value is then hard to beat.

>>> from distval.streams.regression import open_regression_stream
>>> d = describe_target(open_regression_stream("trump"), max_lag=2)
>>> d["rows"], round(d["autocorrelation"][0], 3), round(d["persistent_rmse"], 3)
(1001, 0.991, 0.23)
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from distval.streams.base import Stream

__all__ = ["TargetDiagnostics", "describe_target", "format_target_description"]


class TargetDiagnostics:
    """Running sums of a numeric target, batch by batch (see the module).

    >>> t = TargetDiagnostics(max_lag=1)
    >>> t.update(np.array([1.0, 2.0, 3.0])); t.update(np.array([5.0]))
    >>> d = t.to_dict(); d["rows"], d["autocorrelation"], d["persistent_mae"]
    (4, [0.9819805060619656], 1.0)
    """

    def __init__(self, max_lag: int = 5) -> None:
        self.max_lag = max_lag
        self.n = 0
        self.tail = np.zeros(0)  # the last max_lag targets
        self.shift: float | None = None
        self.sums = np.zeros(2)  # sum (y - K), sum (y - K)^2
        self.low, self.high = math.inf, -math.inf
        # per lag: pairs, sum a, sum b, sum a^2, sum b^2, sum ab (shifted by K)
        self.pairs = np.zeros((max_lag, 6))
        self.errors = np.zeros(4)  # persistent: sum |e|, sum e^2; mean: the same
        self.total = 0.0

    def update(self, y: np.ndarray) -> None:
        y = np.asarray(y, dtype=np.float64)
        if not len(y):
            return
        if self.shift is None:
            self.shift = float(y[0])
        n = len(y)
        prev = np.r_[self.tail[-1] if len(self.tail) else y[0], y[:-1]]
        e_per = y - prev
        before = self.total + np.r_[0.0, np.cumsum(y)[:-1]]
        counts = self.n + np.arange(n, dtype=np.float64)
        e_mean = y - np.divide(before, counts, out=np.full(n, y[0]), where=counts > 0)
        self.errors += [np.abs(e_per).sum(), (e_per**2).sum(), np.abs(e_mean).sum(),
                        (e_mean**2).sum()]
        k = self.shift
        both = np.r_[self.tail, y] - k
        m = len(self.tail)
        for lag in range(1, self.max_lag + 1):
            first = max(m, lag)  # the new rows that have a target lag rows before them
            a = both[first:]
            b = both[first - lag:first - lag + len(a)]
            self.pairs[lag - 1] += [len(a), a.sum(), b.sum(), (a * a).sum(), (b * b).sum(),
                                    (a * b).sum()]
        self.sums += [(y - k).sum(), ((y - k) ** 2).sum()]
        self.low, self.high = min(self.low, float(y.min())), max(self.high, float(y.max()))
        self.total += float(y.sum())
        self.n += n
        self.tail = np.r_[self.tail, y][-self.max_lag:] if self.max_lag else np.zeros(0)

    def to_dict(self) -> dict[str, Any]:
        n = self.n
        k = self.shift or 0.0
        errors = [float(e) for e in self.errors]
        s1, s2 = (float(v) for v in self.sums)
        mean = k + s1 / n if n else math.nan
        var = (s2 - s1**2 / n) / (n - 1) if n > 1 else math.nan
        acf = []
        for c, sa, sb, saa, sbb, sab in self.pairs.tolist():
            cov = sab - sa * sb / c if c else math.nan
            den = math.sqrt(max(saa - sa * sa / c, 0.0) * max(sbb - sb * sb / c, 0.0)) if c else 0
            acf.append(cov / den if den > 0 else math.nan)
        sd = math.sqrt(var) if var == var else math.nan
        per_rmse = math.sqrt(errors[1] / n) if n else math.nan
        return {
            "rows": n, "mean": mean, "std": sd, "min": self.low, "max": self.high,
            "autocorrelation": acf,
            "persistent_mae": errors[0] / n if n else math.nan,
            "persistent_rmse": per_rmse,
            "mean_mae": errors[2] / n if n else math.nan,
            "mean_rmse": math.sqrt(errors[3] / n) if n else math.nan,
            "persistent_rmse_over_std": per_rmse / sd if sd and sd == sd else math.nan,
        }


def describe_target(stream: Stream, *, max_lag: int = 5, chunk_size: int = 10_000
                    ) -> dict[str, Any]:
    """Read a regression stream once and describe its target (see the module)."""
    diag = TargetDiagnostics(max_lag)
    for chunk in stream.chunks(chunk_size):
        diag.update(chunk.y)
    return {"name": stream.name, "attributes": len(stream.feature_names), **diag.to_dict()}


def format_target_description(d: dict[str, Any]) -> str:
    """Markdown text of a :func:`describe_target` result."""
    lags = len(d["autocorrelation"])
    lines = [f"# {d['name']}", "",
             "| rows | attributes | mean | std | min | max |", "|---:|---:|---:|---:|---:|---:|",
             f"| {d['rows']:,} | {d['attributes']} | {d['mean']:.4g} | {d['std']:.4g} | "
             f"{d['min']:.4g} | {d['max']:.4g} |", "",
             "| baseline | MAE | RMSE |", "|---|---:|---:|",
             f"| persistent (previous target) | {d['persistent_mae']:.4g} | "
             f"{d['persistent_rmse']:.4g} |",
             f"| mean (of earlier targets) | {d['mean_mae']:.4g} | {d['mean_rmse']:.4g} |", ""]
    lines += ["| " + " | ".join(f"ρ({lag})" for lag in range(1, lags + 1)) + " |",
              "|" + "---:|" * lags,
              "| " + " | ".join(f"{v:.4f}" for v in d["autocorrelation"]) + " |", ""]
    lines.append(
        f"Persistent RMSE / std: {d['persistent_rmse_over_std']:.4f} (below 1: the last target "
        "predicts the next better than the overall mean would). ρ(ℓ): the correlation of "
        "y_t with y_(t-ℓ). Errors are prequential (predict, then see the target)."
    )
    return "\n".join(lines)
