"""The aggregator of a numeric target (the regression task): per-fold errors, paired fold
tests and verdicts.

Like :class:`~distval.aggregator.core.Aggregator` it is a
:class:`~distval.aggregator.base.BaseAggregator` (the schedule, the pairs' Sign and Wilcoxon
tests, Friedman, the snapshot and ``from_config`` come from there), so both backends drive
it unchanged; this module supplies what a numeric target needs. It
receives each batch's targets and every slot's predictions (NaN where a slot did not test a
row) and keeps:

- per (learner, fold), the regression measures (:mod:`distval.tasks.regression`: MAE,
  RMSE, R², the mean and persistent baselines' RMSE and the RMSE relative to each) under the
  run's forgetting and cumulatively. The baselines are computed once on the global stream:
  the *mean* predictor predicts the mean of every earlier target, the *persistent* one the
  previous target (the first row, which has no earlier target, counts as predicted exactly
  by both: an arbitrary first guess such as 0 would weigh on their RMSE by the target's
  level);
- per (pair, fold), a *paired window* over the rows that fold tested with both learners,
  forgotten the same way on both sides (ADWIN on ``|e_B| - |e_A|``); the sign and Wilcoxon
  tests compare the two learners' ``--measure`` (rmse, mae or r2) over those windows;
- per pair, a confidence sequence for the running mean of the per-row *sign* of the error
  difference, ``sign(|e_B| - |e_A|)`` averaged over the folds that tested the row with both
  (in [-1, 1]; positive: A's prediction closer more often). Its values are bounded whatever
  the errors' scale or tails, so the empirical-Bernstein sequence of
  :class:`~distval.statistics.anytime.DifferenceCS` holds as it does for 0/1 losses: no range of the
  target needs to be known and no clipping is needed. It speaks of which learner is closer
  on more rows (a median-type statement), not of the RMSE difference; the verdict line
  (:func:`~distval.tasks.regression.regression_verdict_line`) says the RMSE on the same
  rows first and this tested quantity after it. ``benchmarks/bench_verdict_regression.py``
  checks its error rates on planted truths.

>>> rng = np.random.default_rng(1)
>>> agg = RegressionAggregator(["good", "bad"], 3, test_every=2000)
>>> y = rng.normal(size=2000)
>>> pred = np.concatenate([y + rng.normal(0, s, (3, 2000)) for s in (0.5, 1.0)])
>>> snap = agg.update(0, y, [(np.arange(6), pred)])
>>> snap.verdicts["decision"].tolist(), snap.verdicts["favours"].tolist()
(['A'], ['good'])
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from distval.aggregator.base import BaseAggregator
from distval.aggregator.settings import ComparisonSettings
from distval.columns import (
    PAIRED_SCHEMA,
    VERDICT_SCHEMA,
    Columns,
    to_columns,
)
from distval.metrics.sums import SumWindows
from distval.routing.delays import Release
from distval.statistics.anytime import DifferenceCS
from distval.statistics.multiplicity import cited_fold_tests
from distval.statistics.verdict import short_names
from distval.tasks.regression import (
    REGRESSION_MEASURES,
    Regression,
    RegressionTracker,
    regression_verdict_line,
)

__all__ = ["PairedErrors", "RegressionAggregator"]



class PairedErrors:
    """Per (pair, fold), both learners' errors over the rows that fold tested with both,
    forgotten the same way on both sides (``adwin``: one ADWIN on ``|e_B| - |e_A|``).

    Cells per row: 1, ``e_A²``, ``e_B²``, ``|e_A|``, ``|e_B|``, ``y - K``, ``(y - K)²``.

    >>> p = PairedErrors("cumulative", n_pairs=1, n_folds=1)
    >>> y = np.array([1.0, 2.0, 3.0])
    >>> p.update(y, np.array([[[1.0, 2.0, 4.0]]]), np.array([[[0.0, np.nan, 1.0]]]), 0.0)
    >>> a, b = p.values("mae"); float(a[0, 0]), float(b[0, 0])
    (0.5, 1.5)
    """

    def __init__(self, kind: str, n_pairs: int, n_folds: int, *, window: int = 1000,
                 fading: float = 0.999, adwin_delta: float = 0.002) -> None:
        self.n_pairs, self.n_folds = n_pairs, n_folds
        self.windows = SumWindows(kind, n_pairs * n_folds, 7, window=window, fading=fading,
                                  adwin_delta=adwin_delta)

    def update(self, y: np.ndarray, pa: np.ndarray, pb: np.ndarray, shift: float) -> None:
        """``pa`` / ``pb``: (pairs, folds, rows) predictions of side A and B (NaN: untested)."""
        n = len(y)
        both = ~np.isnan(pa) & ~np.isnan(pb)
        ea = np.where(both, y - pa, 0.0).reshape(-1, n)
        eb = np.where(both, y - pb, 0.0).reshape(-1, n)
        yk = np.broadcast_to(y - shift, ea.shape)
        cells = np.stack([np.ones_like(ea), ea * ea, eb * eb, np.abs(ea), np.abs(eb), yk,
                          yk * yk], axis=2)
        self.windows.update(both.reshape(-1, n), cells, np.abs(eb) - np.abs(ea))

    def values(self, measure: str) -> tuple[np.ndarray, np.ndarray]:
        """(pairs, folds) values of ``measure`` (rmse, mae, r2) for side A and side B."""
        s = self.windows.sums
        n = s[:, 0]
        with np.errstate(divide="ignore", invalid="ignore"):
            if measure == "mae":
                a, b = s[:, 3] / n, s[:, 4] / n
            elif measure == "r2":
                sst = s[:, 6] - s[:, 5] ** 2 / n
                ok = sst > 1e-12 * np.abs(s[:, 6])
                a = np.where(ok, 1.0 - s[:, 1] / sst, np.nan)
                b = np.where(ok, 1.0 - s[:, 2] / sst, np.nan)
            else:
                a, b = np.sqrt(s[:, 1] / n), np.sqrt(s[:, 2] / n)
        shape = (self.n_pairs, self.n_folds)
        a = np.where(n > 0, a, np.nan)
        b = np.where(n > 0, b, np.nan)
        return a.reshape(shape), b.reshape(shape)

    @property
    def widths(self) -> np.ndarray:
        return self.windows.widths.reshape(self.n_pairs, self.n_folds)


class RegressionAggregator(BaseAggregator):
    """Consumes the prediction batches of a regression run; a :class:`Snapshot` every
    ``test_every`` rows (its ``folds`` in the regression task's fold schema).
    Slot ``s`` is learner ``s // n_folds``, fold ``s % n_folds``."""

    TASK = Regression()
    DEFAULT_COMPARISON = ComparisonSettings(tests=("sign", "wilcoxon"), measure="rmse")
    trackers: list[RegressionTracker]

    def _start(self) -> None:
        n_folds = self.n_folds
        cmp, kw = self.comparison, self.tracker_kw
        self.trackers = [RegressionTracker(k, self.n_slots, **kw) for k in self.kinds]
        self.paired = PairedErrors(self.tracker_settings.forgetting, len(self.pairs), n_folds,
                                   **kw)
        self.level_alpha = cmp.alpha / max(1, len(self.pairs))
        self.sequences = [DifferenceCS(self.level_alpha, lo=-1.0, hi=1.0)
                          for _ in self.pairs]
        self.names = short_names(self.labels)
        self._a = np.array([a for a, _ in self.pairs], dtype=np.int64)
        self._b = np.array([b for _, b in self.pairs], dtype=np.int64)
        self._shift: float | None = None
        self._total = 0.0  # the stream's targets so far: the mean baseline
        self._count = 0
        self._previous = 0.0  # the persistent baseline's prediction of the next row

    def _take(
        self, start: int, y: np.ndarray, parts: Iterable[tuple[Any, Any]], release: Release | None
    ) -> None:
        """Count one batch: targets ``y`` and, per part, (slot ids, their (slots, rows)
        predictions, NaN where not tested). (``release``, the delayed labels' schedule, is the
        classification aggregator's: a regression run has no no-change baseline or drift
        events to place with it.)"""
        y = np.asarray(y, dtype=np.float64)
        n = len(y)
        pred = np.full((self.n_slots, n), np.nan)
        for ids, p in parts:
            pred[np.asarray(ids)] = p
        if self._shift is None:  # the first row: both baselines start at its target
            self._shift = self._previous = float(y[0])
        before = self._total + np.r_[0.0, np.cumsum(y)[:-1]]
        counts = self._count + np.arange(n, dtype=np.float64)
        mean_pred = np.divide(before, counts, out=np.full(n, self._shift), where=counts > 0)
        prev = np.r_[self._previous, y[:-1]]
        for tracker in self.trackers:
            tracker.update(pred, y, mean_pred, prev, self._shift)
        if self.pairs:
            by_learner = pred.reshape(len(self.labels), self.n_folds, n)
            pa, pb = by_learner[self._a], by_learner[self._b]
            self.paired.update(y, pa, pb, self._shift)
            both = ~np.isnan(pa) & ~np.isnan(pb)
            closer = np.sign(np.abs(y - pb) - np.abs(y - pa))
            wins = np.where(both, closer, 0.0).sum(axis=1)
            count = both.sum(axis=1)
            x = np.full(count.shape, np.nan)  # (pairs, rows): NaN where no fold tested both
            np.divide(wins, count, out=x, where=count > 0)
            for i, cs in enumerate(self.sequences):
                cs.update(x[i])
        self._total += float(y.sum())
        self._count += n
        self._previous = float(y[-1])

    def _measures(self, tracker: RegressionTracker) -> dict[str, np.ndarray]:
        return tracker.get()

    def _fold_table(self) -> Columns:
        got = [t.get() for t in self.trackers]
        keys = self._key_columns()
        rows = len(keys["fold"])
        return {
            "position": np.full(rows, self.position, dtype=np.int64),
            "learner": keys["learner"],
            "fold": keys["fold"].astype(np.int32),
            "forgetting": keys["forgetting"],
            "n": np.concatenate([g["n"] for g in got]),
            "width": np.concatenate([t.widths for t in self.trackers]),
            **{m: np.concatenate([g[m] for g in got]) for m in REGRESSION_MEASURES},
        } if rows else to_columns([], self.TASK.fold_schema)

    def _test_rows(self) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """Sign and Wilcoxon per pair on the paired windows' values (no Q rows)."""
        va, vb = self.paired.values(self.comparison.measure)
        tests: list[dict[str, Any]] = []
        for p in range(len(self.pairs)):
            tests.extend(self._fold_tests(p, va[p], vb[p])[0])
        return tests, []

    def _verdict_tables(self, tests: list[dict[str, Any]]) -> tuple[Columns, Columns]:
        paired = self._paired_table()
        return paired, to_columns(self._verdicts(tests, paired), VERDICT_SCHEMA)

    def _paired_table(self) -> Columns:
        """Per pair and fold, both learners' measure over their paired window."""
        cmp, forgetting = self.comparison, self.tracker_settings.forgetting
        va_all, vb_all = self.paired.values(cmp.measure)
        lower_better = not self.TASK.higher_is_better(cmp.measure)
        paired_rows: list[dict[str, Any]] = []
        widths = self.paired.widths
        for p, (ia, ib) in enumerate(self.pairs):
            a, b = self.labels[ia], self.labels[ib]
            va, vb = va_all[p], vb_all[p]
            for f in range(self.n_folds):
                diff = vb[f] - va[f] if lower_better else va[f] - vb[f]
                paired_rows.append({
                    "position": self.position, "learner_a": a, "learner_b": b, "fold": f,
                    "forgetting": forgetting, "width": float(widths[p, f]),
                    "difference": float(diff), "value_a": float(va[f]),
                    "value_b": float(vb[f]),
                })
        return to_columns(paired_rows, PAIRED_SCHEMA)

    def _verdicts(self, tests: list[dict[str, Any]], paired: Columns) -> list[dict[str, Any]]:
        cmp = self.comparison
        cited = cited_fold_tests(tests, len(self.pairs), cmp.alpha)
        rows = []
        k = self.n_folds
        for p, (ia, ib) in enumerate(self.pairs):
            a, b = self.labels[ia], self.labels[ib]
            d = self.sequences[p].to_dict(cmp.margin)
            diffs = paired["difference"][p * k:(p + 1) * k]
            va = paired["value_a"][p * k:(p + 1) * k]
            vb = paired["value_b"][p * k:(p + 1) * k]
            widths = paired["width"][p * k:(p + 1) * k]
            ok = np.isfinite(diffs)
            winner = {"A": a, "B": b}.get(d["decision"])
            mean = d["mean"] if d["mean"] == d["mean"] else 0.0
            side = winner or (a if mean >= 0 else b)
            sign = 1.0 if side == a else -1.0
            favouring = int((sign * diffs[ok] > 0).sum())
            c = cited.get((a, b))
            window = float(np.median(widths)) if len(widths) else float("nan")
            values = (float(np.nanmean(va)) if ok.any() else float("nan"),
                      float(np.nanmean(vb)) if ok.any() else float("nan"))
            line = regression_verdict_line(
                self.names[a], self.names[b], d, 1 - self.level_alpha, cmp.margin,
                favouring, int(ok.sum()), cmp.measure, values, window,
                None if c is None else (c[0], c[1], self.names.get(c[2], c[2]) if c[2] else None,
                                        c[3], c[4]),
            )
            rows.append({
                "position": self.position, "learner_a": a, "learner_b": b, "rows": d["rows"],
                "mean": d["mean"], "lower": d["lower"], "upper": d["upper"],
                "level": 1 - self.level_alpha, "margin": cmp.margin,
                "decision": d["decision"], "favours": winner, "folds": int(ok.sum()),
                "folds_favouring": favouring, "window_rows": window,
                "test": c[0] if c else None, "pvalue": c[1] if c else float("nan"),
                "test_favours": c[2] if c else None,
                "correction": "Bonferroni CS, Holm p" if len(self.pairs) > 1 else None,
                "line": line,
            })
        return rows
