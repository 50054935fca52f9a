"""The aggregator: per-fold measures and across-fold tests from prediction batches.

It receives, batch by batch and in stream order, the true classes and every slot's
predictions (-1 where a slot did not test a row). It keeps the per-(learner, fold) state of
the chosen forgetting mechanism and of the cumulative one, the Persistent baseline's hits on
the global stream, and McNemar's discordant counts for every learner pair (cumulative,
sliding window and fading, gama2013 §4). Every ``test_every`` rows it emits a
:class:`Snapshot`: the fold measures and, for each learner pair, the Sign, Wilcoxon and
McNemar tests (plus Friedman/Nemenyi for three learners or more; Demsar 2006; see
[tests](methods.md#tests-across-folds)), the Q statistic of every pair (cumulative,
windowed, faded; gama2013 §4.1) and, when asked, the Page-Hinkley drift detections of every
(learner, fold) since the previous snapshot (:class:`~distval.metrics.prequential.DriftMonitor`).
Each pair is compared by a :class:`~distval.statistics.comparison.PairComparison`, which also
applies the run's ``--sequential`` rule: every test row says whether its decision is valid under
peeking (``anytime_valid``) and the p-value limit it used (``boundary``).

The aggregator takes its own settings (:class:`TrackerSettings`, :class:`ComparisonSettings`
and, for drift detection, :class:`~distval.metrics.prequential.DriftSettings`);
:meth:`Aggregator.from_config` builds them from a run's :class:`~distval.config.RunConfig`.
A snapshot's tables are columns (:data:`~distval.columns.Columns`) in the order and types
of the schemas of :mod:`distval.columns`, their one owner.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from distval.aggregator.base import AggregatorOptions, BaseAggregator, favoured
from distval.aggregator.counts import PairCounts
from distval.columns import (
    PAIRED_SCHEMA,
    VERDICT_SCHEMA,
    Columns,
    empty_columns,
    to_columns,
)
from distval.config import RunConfig
from distval.metrics import (
    MEASURES,
    PROBA_MEASURES,
    Scored,
    ScoreWindows,
    Tracker,
    make_tracker,
    measures,
)
from distval.metrics.prequential import DriftMonitor, DriftSettings, q_statistic
from distval.routing.delays import LastKnown, Release
from distval.statistics.pair_verdicts import PairVerdicts
from distval.statistics.verdict import short_names
from distval.tasks.classification import Classification

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = ["Aggregator"]


class Aggregator(BaseAggregator):
    """Consumes prediction batches of every slot; emits :class:`Snapshot` on schedule.

    ``labels`` names the learners; slot ``s`` is learner ``s // n_folds``, fold
    ``s % n_folds``. ``n_classes`` is the stream's declared class count
    (:attr:`distval.streams.Stream.n_classes`) when it has one: the start values of
    ``ewma`` forgetting (Zliobaite et al. 2015, Algorithm 1) use it; without it the trackers
    start with two classes and add the others as they appear. ``planned_rows`` is the
    horizon of ``sequential="spending"`` (None: unknown). ``drift`` (None: off) turns on the
    Page-Hinkley detectors.

    With two learners or more the Sign and Wilcoxon tests compare, per pair and fold, both
    learners over the same rows (:class:`~distval.statistics.pair_verdicts.PairVerdicts`: the rows
    the fold tested with both, forgotten the same way for both), and every snapshot carries each
    pair's confidence sequence and verdict; the measures table keeps each learner's own windows.
    ``PAIRED = False`` (a benchmark's switch) compares the folds' own windows, as before the verdict
    existed, and computes no verdict.

    >>> from distval.aggregator.settings import TrackerSettings
    >>> agg = Aggregator(["nb"], 2, trackers=TrackerSettings("ewma"), n_classes=10)
    >>> agg.primary.prior[0].tolist() == [0.1] * 10
    True
    """

    PAIRED = True
    TASK = Classification()
    trackers: list[Tracker]

    def __init__(
        self,
        labels: Sequence[str],
        n_folds: int,
        *,
        drift: DriftSettings | None = None,
        n_classes: int | None = None,
        **options: Unpack[AggregatorOptions],
    ) -> None:
        super().__init__(labels, n_folds, **options)
        tr, cmp = self.tracker_settings, self.comparison
        kw = dict(self.tracker_kw)
        if n_classes is not None:
            kw["n_classes"] = n_classes
        self.trackers = [make_tracker(kind, self.n_slots, **kw) for kind in self.kinds]
        #: The fold table's columns that every look repeats: a row per (tracker, slot).
        rows = len(self.trackers) * self.n_slots
        self._fold_keys: Columns = {
            **self._key_columns(),
            **{name: np.full(rows, None, dtype=object) for name in PROBA_MEASURES},
        }
        #: With a probabilistic measure (:data:`~distval.metrics.PROBA_MEASURES`), each
        #: tracker's window of class probabilities, in the order of ``trackers``.
        self.scores: list[ScoreWindows] | None = None
        if cmp.measure in PROBA_MEASURES:
            self.scores = [
                ScoreWindows(t.name, self.n_slots, size=tr.window, factor=tr.fading,
                             n_classes=n_classes)
                for t in self.trackers
            ]
        self.pair_counts = PairCounts(len(self.pairs), tr.window, tr.fading)
        #: Per pair and fold, the (row, fold) pairs where A alone was right and where B
        #: alone was (the e-process of ``sequential="evalue"`` bets on them).
        evalue = cmp.sequential in ("evalue", "both")
        self.fold_wins = np.zeros((2, len(self.pairs), self.n_folds)) if evalue else None
        self.verdicts = None
        if self.pairs and self.PAIRED:
            self.verdicts = PairVerdicts(
                self.labels,
                self.n_folds,
                alpha=cmp.alpha,
                margin=cmp.margin,
                forgetting=tr.forgetting,
                measure=cmp.measure,
                n_classes=n_classes,
                window=tr.window,
                fading=tr.fading,
                adwin_delta=tr.adwin_delta,
                names=short_names(self.labels),
            )
        self.drift = None if drift is None else DriftMonitor(self.n_slots, drift)
        self._drifts: list[dict[str, Any]] = []
        self._last_label = 0  # the Persistent classifier's guess for row 0 is class 0 (MOA)
        self._known = LastKnown()  # the no-change guesses under delayed labels
        self._got: dict[int, dict[str, np.ndarray]] = {}  # measures per tracker, this position
        #: The measures of every tracker's slots, one after the other, when one call gave them.
        self._all_got: dict[str, np.ndarray] | None = None

    @classmethod
    def options_of(cls, config: RunConfig, n_classes: int | None) -> dict[str, Any]:
        """The class count and, with ``--drift``, the Page-Hinkley settings of a run.

        >>> agg = Aggregator.from_config(RunConfig(learners=("nb", "ht"), n_folds=3))
        >>> agg.labels, agg.n_slots, agg.tracker_settings.forgetting
        (['nb', 'ht'], 6, 'adwin')
        """
        drift = None
        if config.drift:
            drift = DriftSettings(
                delta=config.ph_delta,
                threshold=config.ph_lambda,
                window=config.window,
                fading=config.fading,
            )
        return {"drift": drift, "n_classes": n_classes}

    @property
    def primary(self) -> Tracker:
        return self.trackers[0]

    def _take(
        self, start: int, y: np.ndarray, parts: Iterable[tuple[Any, Any]], release: Release | None
    ) -> None:
        """Count one batch: ``parts`` is a list of (slot ids, (slots, rows) predictions).

        With delayed labels the rows are in the order their labels became known (drift events
        name their stream rows, ``release.rows``); the Persistent baseline then predicts each
        row with the last label known when the row arrived
        (:class:`~distval.routing.delays.LastKnown`), not with the previous row's label.
        """
        n = len(y)
        pred = np.full((self.n_slots, n), -1, dtype=np.int64)
        given: list[tuple[np.ndarray, np.ndarray]] = []
        losses = proba = None  # per-row losses and probabilities, for the verdict
        for ids, p in parts:
            if isinstance(p, tuple):  # (predictions, probabilities) of a probabilistic run
                p, probs = p
                given.append((np.asarray(ids), probs))
            pred[np.asarray(ids)] = p
        if release is None:
            prev = np.empty(n, dtype=np.int64)
            prev[0] = self._last_label
            prev[1:] = y[:-1]
        else:
            prev = self._known.guess(start, release)
        per_ok = y == prev
        for tracker in self.trackers:
            tracker.update(y, pred, per_ok)
        if self.scores is not None:
            proba = self._proba(y, given)
            scored = Scored.of(y, pred, proba)
            for tracker, window in zip(self.trackers, self.scores):
                widths = tracker.widths if tracker.name == "adwin" else None
                window.add(scored, widths)
            measure = self.comparison.measure
            if self.verdicts is not None and not self.TASK.higher_is_better(measure):
                k = self.n_folds
                losses = scored.per_row(measure, pred.shape).reshape(len(self.labels), k, n)
        self._got, self._all_got = {}, None
        if self.pairs:
            by_learner = pred.reshape(len(self.labels), self.n_folds, n)
            a, b = (np.array(side) for side in zip(*self.pairs))
            tested = (by_learner[a] >= 0) & (by_learner[b] >= 0)
            right_a, right_b = by_learner[a] == y, by_learner[b] == y
            d01 = (tested & ~right_a & right_b).sum(axis=1)
            d10 = (tested & right_a & ~right_b).sum(axis=1)
            loss_a = (tested & ~right_a).sum(axis=1)
            loss_b = (tested & ~right_b).sum(axis=1)
            self.pair_counts.update(d01, d10, loss_a, loss_b)
            if self.fold_wins is not None:
                self.fold_wins[0] += (tested & right_a & ~right_b).sum(axis=2)
                self.fold_wins[1] += (tested & ~right_a & right_b).sum(axis=2)
            if self.verdicts is not None:
                if proba is not None:
                    proba = proba.reshape(len(self.labels), self.n_folds, n, -1)
                self.verdicts.update(y, by_learner, per_ok, losses, proba)
        if self.drift is not None:
            k = self.n_folds
            for row, slot, detector in self.drift.update(pred, y, start):
                self._drifts.append(
                    {
                        "position": row if release is None else int(release.rows[row - start]),
                        "learner": self.labels[slot // k],
                        "fold": slot % k,
                        "detector": detector,
                    }
                )
        self._last_label = int(y[-1])

    def _proba(self, y: np.ndarray, given: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
        """(slots, rows, classes) probabilities from the parts' (slot ids, probabilities),
        padded to the classes seen; uniform for a slot that sent none."""
        c = max([int(y.max()) + 1, 2, *(p.shape[2] for _, p in given)])
        out = np.full((self.n_slots, len(y), c), 1.0 / c)
        for ids, p in given:
            out[ids] = 0.0
            out[ids, :, : p.shape[2]] = p
        return out

    def _measures(self, tracker: Tracker) -> dict[str, np.ndarray]:
        """``tracker.get()``, computed once per stream position.

        The trackers whose measures come from their confusion counts alone
        (:attr:`~distval.metrics.Tracker.from_counts`: all but ewma) get them from one
        :func:`~distval.metrics.measures` call on their stacked counts: the same
        element-wise arithmetic, one set of numpy calls instead of one per tracker.
        """
        got = self._got.get(id(tracker))
        if got is None:
            plain = [t for t in self.trackers if t.from_counts]
            if tracker in plain and len({t.C.shape for t in plain}) == 1:
                stacked = measures(
                    np.concatenate([t.C for t in plain]), np.concatenate([t.P for t in plain])
                )
                n = self.n_slots
                for i, t in enumerate(plain):
                    self._got[id(t)] = {k: v[i * n : (i + 1) * n] for k, v in stacked.items()}
                if len(plain) == len(self.trackers) and self.scores is None:
                    self._all_got = stacked
                got = self._got[id(tracker)]
            else:
                got = self._got[id(tracker)] = tracker.get()
        if self.scores is not None and PROBA_MEASURES[0] not in got:
            window = self.scores[self.trackers.index(tracker)]
            got = self._got[id(tracker)] = got | window.get()
        return got

    def _events(self) -> list[dict[str, Any]]:
        events, self._drifts = self._drifts, []
        return events

    def _verdict_tables(self, tests: list[dict[str, Any]]) -> tuple[Columns, Columns]:
        if self.verdicts is None:
            return empty_columns(PAIRED_SCHEMA), empty_columns(VERDICT_SCHEMA)
        paired, verdict_rows = self.verdicts.look(self.position, tests)
        return paired, to_columns(verdict_rows, VERDICT_SCHEMA)

    def _fold_table(self) -> Columns:
        """The fold table (:data:`~distval.columns.FOLD_SCHEMA`): a row per slot of each
        tracker, in the order of ``trackers``."""
        got = [self._measures(tracker) for tracker in self.trackers]
        merged = self._all_got
        if merged is None:  # the trackers' measures came from separate calls
            names = ("n", *MEASURES, *(name for name in PROBA_MEASURES if name in got[0]))
            merged = {name: np.concatenate([m[name] for m in got]) for name in names}
            recall = [row for m in got for row in np.asarray(m["recall"], dtype=float).tolist()]
        else:
            recall = merged["recall"].tolist()
        keys = self._fold_keys

        def measured(name: str) -> np.ndarray:
            if name not in merged:  # a probabilistic measure in a run that asked for none
                return keys[name]
            return np.asarray(merged[name], dtype=np.float64)

        columns: Columns = {
            "position": np.full(len(recall), self.position, dtype=np.int64),
            "learner": keys["learner"],
            "fold": keys["fold"],
            "forgetting": keys["forgetting"],
            "n": measured("n"),
            "width": np.concatenate([t.widths for t in self.trackers], dtype=np.float64),
            **{name: measured(name) for name in MEASURES},
            "recall_by_class": np.fromiter(recall, dtype=object, count=len(recall)),
            **{name: measured(name) for name in PROBA_MEASURES},
        }
        return columns

    def _test_rows(self) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """Test rows (:data:`~distval.columns.TEST_SCHEMA`) and Q rows (``Q_SCHEMA``) of
        every pair.

        Sign and Wilcoxon compare, per fold, both learners' ``measure`` over the rows the
        fold tested with both, under the run's forgetting applied to the pair (the paired
        windows of :mod:`distval.metrics.paired`; the values are the means over folds); McNemar
        compares the errors on the (row, fold) pairs both learners tested, cumulative, over
        the window and faded (the values are those error counts); the e-processes
        (``--sequential evalue``) the same errors per fold. Each row names the learner its
        data favour.
        """
        values = self.fold_values()
        paired = None
        if self.verdicts is not None:
            paired = self.verdicts.fold_values()
        counts = self.pair_counts.counts()
        tests: list[dict[str, Any]] = []
        q_rows: list[dict[str, Any]] = []
        for p, (ia, ib) in enumerate(self.pairs):
            a, b = self.labels[ia], self.labels[ib]
            va, vb = values[ia], values[ib]
            if paired is not None:
                va, vb = paired[0][p], paired[1][p]
            wins = None
            if self.fold_wins is not None:
                wins = (self.fold_wins[0, p], self.fold_wins[1, p])
            rows, losses = self._fold_tests(p, va, vb, counts, wins)
            tests.extend(rows)
            sides = np.array(list(losses.values())).T  # (A, B) x forgetting
            for (kind, (la, lb)), q in zip(losses.items(), q_statistic(*sides).tolist()):
                q_rows.append(
                    {
                        "position": self.position,
                        "learner_a": a,
                        "learner_b": b,
                        "forgetting": kind,
                        "q": q,
                        "errors_a": la,
                        "errors_b": lb,
                        "favours": favoured(a, b, -q) if np.isfinite(q) else None,
                    }
                )
        return tests, q_rows
