"""The live state behind the verdicts of every learner pair: paired windows, confidence sequences,
crossings and the rows of each look.

The words of a verdict are :mod:`distval.statistics.verdict`'s.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np

from distval.columns import PAIRED_SCHEMA, VERDICT_SCHEMA
from distval.metrics.paired import PairedTracker
from distval.metrics.probabilistic import LOG_LOSS_FLOOR, PROBA_MEASURES, Scored, ScoreWindows
from distval.statistics.anytime import DifferenceCS
from distval.statistics.multiplicity import Cited, cited_fold_tests
from distval.statistics.verdict import Crossing, Evidence, fold_verdict_line, verdict_line

__all__ = ["PAIRED_FIELDS", "VERDICT_FIELDS", "PairVerdicts"]


#: Columns of a paired-window row: one per (pair, fold) at each look.
PAIRED_FIELDS = tuple(PAIRED_SCHEMA.names)


#: Columns of a verdict row: one per pair at each look.
VERDICT_FIELDS = tuple(VERDICT_SCHEMA.names)


class PairVerdicts:
    """The live state behind the verdicts of every learner pair of a run.

    ``labels`` are the learners (pairs in ``itertools.combinations`` order), ``forgetting``
    the paired trackers' mechanism (``ewma`` compares over ``fading``). :meth:`update` takes
    each batch's true classes, the (learners, folds, rows) predictions (-1: not tested) and
    the Persistent classifier's hits. :meth:`fold_values` gives the paired fold values a
    pair's Sign and Wilcoxon tests compare; :meth:`look` the rows of a look. With more than
    one pair, each confidence sequence is at ``alpha / pairs`` (Bonferroni: all hold at
    once with probability 1 - alpha) and the fold tests' p-values are Holm-adjusted.

    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 20000)
    >>> pred = np.stack([np.where(rng.random((4, 20000)) < p, 1 - y, y) for p in (.2, .3)])
    >>> v = PairVerdicts(("ht", "nb"), n_folds=4)
    >>> v.update(y, pred, np.ones(20000, bool))
    >>> paired, (row,) = v.look(20000)
    >>> paired["fold"].tolist(), paired["learner_a"].tolist()
    ([0, 1, 2, 3], ['ht', 'ht', 'ht', 'ht'])
    >>> row["decision"], row["favours"], row["folds_favouring"]
    ('A', 'ht', 4)
    """

    def __init__(
        self,
        labels: Sequence[str],
        n_folds: int,
        *,
        alpha: float = 0.05,
        margin: float = 0.0,
        forgetting: str = "adwin",
        measure: str = "accuracy",
        n_classes: int | None = 2,
        window: int = 1000,
        fading: float = 0.999,
        adwin_delta: float = 0.002,
        v_opt: float = 1000.0,
        names: dict[str, str] | None = None,
    ) -> None:
        self.labels = list(labels)
        self.names = names or {label: label for label in self.labels}
        self.n_folds = n_folds
        self.pairs = list(itertools.combinations(range(len(self.labels)), 2))
        self.alpha, self.margin, self.measure = alpha, margin, measure
        self.forgetting = "fading" if forgetting == "ewma" else forgetting
        #: The paired windows (hard labels) of every (pair, fold): the rows the fold tested
        #: with both learners, forgotten the same way for both.
        self.tracker = PairedTracker(
            self.forgetting, len(self.pairs), n_folds, n_classes or 2,
            window=window, fading=fading, adwin_delta=adwin_delta,
        )
        #: With a probabilistic measure, its value of A and of B over the same paired rows:
        #: slots (side, pair, fold), the window following the paired tracker's.
        self.scores: ScoreWindows | None = None
        if measure in PROBA_MEASURES:
            self.scores = ScoreWindows(self.forgetting, 2 * len(self.pairs) * n_folds,
                                       size=window, factor=fading, n_classes=n_classes)
        n = max(1, len(self.pairs))
        self.level_alpha = alpha / n
        #: The range of a row's loss: 0/1 loss, Brier (two classes: [0, 1]; more, or classes
        #: not known in advance (None): [0, 2]), log-loss clipped at the floor; the paired
        #: difference lies in [-bound, bound].
        bound = {"brier": 1.0 if n_classes == 2 else 2.0,
                 "log_loss": -float(np.log(LOG_LOSS_FLOOR))}.get(measure, 1.0)
        self.bound = bound
        self.sequences = [
            DifferenceCS(self.level_alpha, lo=-bound, hi=bound, v_opt=v_opt * bound**2)
            for _ in self.pairs
        ]
        self.crossings = [Crossing() for _ in self.pairs]
        self._evalues: dict[tuple[str, str], list[tuple[str, float, str | None, bool]]] = {}
        self._a = np.array([a for a, _ in self.pairs], dtype=np.int64)
        self._b = np.array([b for _, b in self.pairs], dtype=np.int64)
        k, learners = n_folds, np.array(self.labels, dtype=object)
        #: The paired table's columns that every look repeats: a row per (pair, fold).
        self._paired_keys = {
            "learner_a": np.repeat(learners[self._a], k),
            "learner_b": np.repeat(learners[self._b], k),
            "fold": np.tile(np.arange(k, dtype=np.int32), len(self.pairs)),
            "forgetting": np.full(len(self.pairs) * k, self.forgetting, dtype=object),
        }

    def update(
        self, y: np.ndarray, pred: np.ndarray, per_ok: np.ndarray,
        losses: np.ndarray | None = None, proba: np.ndarray | None = None,
    ) -> None:
        """Take one batch: ``pred`` is (learners, folds, rows); with a probabilistic measure
        ``losses`` are the (learners, folds, rows) per-row losses (NaN: not tested;
        :meth:`distval.metrics.Scored.per_row`), none for AUC, and ``proba`` the
        (learners, folds, rows, classes) probabilities."""
        if not self.pairs:
            return
        pa, pb = pred[self._a], pred[self._b]
        self.tracker.update(y, pa, pb, per_ok)
        both = (pa >= 0) & (pb >= 0)
        if self.scores is not None and proba is not None:
            n = len(y)
            sides = np.concatenate([np.where(both, pa, -1), np.where(both, pb, -1)])
            probs = np.concatenate([proba[self._a], proba[self._b]])
            widths = np.tile(self.tracker.widths.ravel(), 2)
            self.scores.add(
                Scored.of(y, sides.reshape(-1, n), probs.reshape(-1, n, probs.shape[-1])),
                widths if self.forgetting == "adwin" else None,
            )
        if losses is not None:
            la, lb = losses[self._a], losses[self._b]
            wins = np.where(both, lb - la, 0.0).sum(axis=1)
        elif self.scores is None:
            wins = ((pb != y) & both).sum(axis=1) - ((pa != y) & both).sum(axis=1)
        else:
            return  # AUC: no per-row loss, no confidence sequence
        count = both.sum(axis=1)
        x = np.full(count.shape, np.nan)  # (pairs, rows); NaN where no fold tested both
        np.divide(wins, count, out=x, where=count > 0)
        for p, cs in enumerate(self.sequences):
            cs.update(x[p])

    def fold_values(self) -> tuple[np.ndarray, np.ndarray]:
        """(pairs, folds) values of the run's measure for side A and side B, each over the
        rows that fold tested with both learners under the paired forgetting."""
        if self.scores is not None:
            got = self.scores.get()[self.measure]
            m = len(self.pairs) * self.n_folds
            shape = (len(self.pairs), self.n_folds)
            return got[:m].reshape(shape), got[m:].reshape(shape)
        if self.measure == "accuracy":  # the common case: no other measure computed
            return self.tracker.accuracy()
        a, b = self.tracker.get()
        return a[self.measure], b[self.measure]

    def look(
        self, position: int, tests: Sequence[dict[str, Any]] = ()
    ) -> tuple[dict[str, np.ndarray], list[dict[str, Any]]]:
        """(paired columns, verdict rows) at this look: the paired windows of every (pair,
        fold) as :data:`~distval.columns.PAIRED_SCHEMA` columns, and one verdict row per
        pair; ``tests`` are the look's test rows (the paired Wilcoxon, else sign, rows are
        cited; Holm-adjusted across pairs). The fold differences (positive: A better) are in
        accuracy for the hard-label measures, in the measure itself for a probabilistic one
        (both over the same paired rows)."""
        widths = self.tracker.widths
        va, vb = self.fold_values()
        if self.scores is None:
            diff = self.tracker.difference()  # in accuracy, whatever the measure
        else:
            diff = vb - va if self.measure in ("brier", "log_loss") else va - vb
        keys = self._paired_keys
        paired = {
            "position": np.full(len(keys["fold"]), position, dtype=np.int64),
            **keys,
            "width": np.asarray(widths, dtype=np.float64).ravel(),
            "difference": np.asarray(diff, dtype=np.float64).ravel(),
            "value_a": np.asarray(va, dtype=np.float64).ravel(),
            "value_b": np.asarray(vb, dtype=np.float64).ravel(),
        }
        return ({name: paired[name] for name in PAIRED_FIELDS},
                self._rows_of(position, tests, diff, widths))

    def _rows_of(
        self, position: int, tests: Sequence[dict[str, Any]], diff: np.ndarray,
        widths: np.ndarray,
    ) -> list[dict[str, Any]]:
        """One verdict row per pair from the (pairs, folds) differences and widths."""
        cited = cited_fold_tests(tests, len(self.pairs), self.alpha)
        self._evalues = {}
        for t in tests:
            if str(t["test"]).endswith("_evalue"):
                self._evalues.setdefault((t["learner_a"], t["learner_b"]), []).append(
                    (t["test"], float(t["statistic"]), t.get("favours"), bool(t["reject"]))
                )
        rows: list[dict[str, Any]] = []
        for p, (ia, ib) in enumerate(self.pairs):
            a, b = self.labels[ia], self.labels[ib]
            folds = diff[p]
            ok = folds[np.isfinite(folds)]
            mean_window = float(ok.mean()) if len(ok) else np.nan
            median = float(np.median(widths[p])) if len(widths[p]) else float("nan")
            crossing = self.crossings[p].add(position, mean_window, median)
            rows.append(
                self._verdict(position, p, a, b, folds, median, cited.get((a, b)), crossing)
            )
        return rows

    def _verdict(
        self, position: int, p: int, a: str, b: str, folds: np.ndarray, window_rows: float,
        cited: Cited | None,
        crossing: int | None,
    ) -> dict[str, Any]:
        cs = self.sequences[p]
        d = cs.to_dict(self.margin)
        lower, upper, mean = d["lower"], d["upper"], d["mean"]
        decision = d["decision"]
        fold_level = self.measure not in ("accuracy", "brier", "log_loss")
        if fold_level:  # AUC: the cited fold test decides; no confidence sequence
            finite = folds[np.isfinite(folds)]
            mean = float(finite.mean()) if len(finite) else float("nan")
            lower = upper = float("nan")
            decision = "undecided"
            if cited is not None and cited[3] and cited[2] in (a, b):
                decision = "A" if cited[2] == a else "B"
        winner = {"A": a, "B": b}.get(decision)
        lead = a if (mean if np.isfinite(mean) else 0.0) >= 0 else b
        sign = 1.0 if (winner or lead) == a else -1.0
        ok = folds[np.isfinite(folds)]
        test = None if cited is None else (cited[1], cited[2], cited[3])
        evalues = tuple(
            (name, value, self.names.get(fav, fav) if fav else None, reject)
            for name, value, fav, reject in self._evalues.get((a, b), ())
        )
        ev = Evidence(
            self.names.get(a, a), self.names.get(b, b), rows=cs.t,
            mean=mean if np.isfinite(mean) else 0.0, lower=lower, upper=upper,
            level=1 - self.level_alpha, decision=decision, margin=self.margin,
            fold_diffs=folds, window_rows=window_rows, forgetting=self.forgetting,
            wilcoxon=_named(test, self.names) if cited and cited[0] == "wilcoxon" else None,
            sign=_named(test, self.names) if cited and cited[0] == "sign" else None,
            adjusted=cited[4] if cited else None, crossing=crossing,
            evalues=evalues, measure=self.measure,
        )
        return dict(zip(VERDICT_FIELDS, (
            position, a, b, cs.t, mean, lower, upper, 1 - self.level_alpha, self.margin,
            decision, winner, len(ok), int((sign * ok > 0).sum()), window_rows,
            cited[0] if cited else None, cited[1] if cited else float("nan"),
            cited[2] if cited else None,
            ("Bonferroni CS, Holm p" if len(self.pairs) > 1 else None),
            fold_verdict_line(ev) if fold_level else verdict_line(ev),
        )))


def _named(
    test: tuple[float, str | None, bool] | None, names: dict[str, str]
) -> tuple[float, str | None, bool] | None:
    """A cited test with its favoured learner under its display name."""
    if test is None:
        return None
    p, fav, reject = test
    return p, (names.get(fav, fav) if fav else None), reject
