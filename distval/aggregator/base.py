"""What every task's aggregator shares: the schedule of looks, the learner pairs and their
fold tests, Friedman, the snapshot's assembly and the settings taken from a run.

:class:`BaseAggregator` is written once; a task's aggregator
(:class:`~distval.aggregator.core.Aggregator` for 0/1 losses,
:class:`~distval.aggregator.numeric.RegressionAggregator` for numeric errors) names its
:attr:`~BaseAggregator.TASK` (:mod:`distval.tasks`: which way each measure is better) and
supplies what differs between tasks:

- ``__init__`` (after :meth:`BaseAggregator.__init__`): its per-row trackers and the state of
  its baselines, its paired windows and verdicts;
- ``update``: one batch into that state;
- ``_measures(tracker)``: a tracker's fold measures (``fold_values`` and Friedman read them);
- ``_fold_table()``: the fold table in its task's fold schema;
- ``_test_rows()``: the test and Q rows of every pair (each pair's Sign and Wilcoxon rows come
  from :meth:`BaseAggregator._fold_tests`, the task adds its own tests' counts);
- ``_verdict_tables(tests)``: the paired and verdict tables;
- ``_events()``: the drift detections since the previous snapshot (none by default);
- ``options_of(config, n_classes)``: its own constructor arguments beyond the shared ones.

>>> favoured("a", "b", 0.3), favoured("a", "b", -1.0), favoured("a", "b", 0.0)
('a', 'b', None)
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, TypedDict, TypeVar

import numpy as np

from distval.aggregator.settings import ComparisonSettings, TrackerSettings
from distval.aggregator.snapshot import Snapshot
from distval.columns import EVENT_SCHEMA, Q_SCHEMA, TEST_SCHEMA, Columns, to_columns
from distval.config import RunConfig
from distval.routing.delays import Release
from distval.statistics.comparison import Decision
from distval.statistics.friedman import friedman as stats_friedman
from distval.tasks.base import Task

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = ["AggregatorOptions", "BaseAggregator", "comparison_row", "favoured"]


class AggregatorOptions(TypedDict, total=False):
    """The keywords every aggregator's constructor takes (a task's own come beside them)."""

    #: The forgetting mechanism and its settings (default :class:`TrackerSettings`()).
    trackers: TrackerSettings | None
    #: The tests, alpha and measure (default the class's ``DEFAULT_COMPARISON``).
    comparison: ComparisonSettings | None
    #: Rows between two looks (default 1000).
    test_every: int
    #: The run's planned rows, for the sequential plans (default None: open-ended).
    planned_rows: int | None

_A = TypeVar("_A", bound="BaseAggregator")


class BaseAggregator:
    """The shared part of every task's aggregator: ``labels`` names the learners; slot ``s``
    is learner ``s // n_folds``, fold ``s % n_folds``; a :class:`Snapshot` every
    ``test_every`` rows and at the end of the stream (:meth:`finish`). ``planned_rows`` is
    the horizon of ``sequential="spending"`` (None: unknown).
    """

    #: The task whose measures this aggregator scores (which way each is better).
    TASK: ClassVar[Task]
    #: The comparison settings when none are given.
    DEFAULT_COMPARISON: ClassVar[ComparisonSettings] = ComparisonSettings()

    position: int
    test_every: int
    last: Snapshot | None
    #: The per-row trackers, one per forgetting of ``kinds`` (the task's tracker class).
    trackers: list[Any]

    def __init__(
        self, labels: Sequence[str], n_folds: int, **options: Unpack[AggregatorOptions]
    ) -> None:
        unknown = set(options) - set(AggregatorOptions.__annotations__)
        if unknown:
            raise TypeError(f"unexpected keyword argument {sorted(unknown)[0]!r}")
        tr = self.tracker_settings = options.get("trackers") or TrackerSettings()
        cmp = self.comparison = options.get("comparison") or self.DEFAULT_COMPARISON
        self.test_every = options.get("test_every", 1000)
        planned_rows = options.get("planned_rows")
        self.labels = list(labels)
        self.n_folds = n_folds
        self.n_slots = len(self.labels) * self.n_folds
        #: Keyword arguments of every tracker and paired window.
        self.tracker_kw: dict[str, Any] = {
            "window": tr.window, "fading": tr.fading, "adwin_delta": tr.adwin_delta,
        }
        #: The trackers' forgetting: the run's, then the cumulative one (the baselines and
        #: the final measures) unless the run's is cumulative.
        self.kinds = [tr.forgetting] + (["cumulative"] if tr.forgetting != "cumulative" else [])
        self.pairs = list(itertools.combinations(range(len(self.labels)), 2))
        self.comparisons = [
            cmp.comparison(self.n_folds, planned_rows, tr.forgetting) for _ in self.pairs
        ]
        self.friedman_rule = Decision(cmp.alpha, cmp.plan(planned_rows),
                                      canonical=tr.forgetting == "cumulative")
        self.position = 0
        self.last = None
        self._start()

    def _start(self) -> None:
        """What a task's aggregator sets up once the shared state stands (its trackers);
        an aggregator with constructor arguments of its own sets up in ``__init__``."""

    @classmethod
    def from_config(
        cls: type[_A], config: RunConfig, n_classes: int | None = None,
        planned_rows: int | None = None,
    ) -> _A:
        """The aggregator of a run: its settings taken from ``config``."""
        trackers = TrackerSettings(
            config.forgetting, config.window, config.fading, config.adwin_delta
        )
        comparison = ComparisonSettings(
            tests=tuple(config.tests or ()),
            alpha=config.alpha,
            measure=config.measure,
            mcnemar_alpha=config.mcnemar_alpha,
            sign_method=config.sign_method,
            sequential=config.sequential,
            spending_function=config.spending_function,
            margin=config.margin,
        )
        return cls(
            config.labels,
            config.n_folds,
            trackers=trackers,
            comparison=comparison,
            test_every=config.test_every,
            planned_rows=planned_rows,
            **cls.options_of(config, n_classes),
        )

    @classmethod
    def options_of(cls, config: RunConfig, n_classes: int | None) -> dict[str, Any]:
        """This task's own constructor arguments for a run of ``config``."""
        return {}

    # -- the schedule --------------------------------------------------------------------

    def _advance(self, rows: int) -> Snapshot | None:
        self.position += rows
        if rows and self.position % self.test_every == 0:
            return self.snapshot()
        return None

    def finish(self) -> Snapshot | None:
        """The snapshot at the end of the stream, unless the schedule just took it."""
        if self.last is not None and self.last.position == self.position:
            return None
        return self.snapshot()

    # -- what a task supplies ------------------------------------------------------------

    def update(
        self,
        start: int,
        y: np.ndarray,
        parts: Iterable[tuple[Any, Any]],
        arrived: int | None = None,
        release: Release | None = None,
    ) -> Snapshot | None:
        """Take one batch: the targets ``y`` of the rows from ``start`` and, per part, (slot
        ids, their (slots, rows) predictions); the snapshot when a look is due.

        With delayed labels (:mod:`distval.routing.delays`) ``y`` and the predictions are those
        of the rows whose labels became known during the batch (``release``), and ``arrived``
        is the number of rows the batch brought (the stream position moves by it)."""
        if start != self.position:
            raise RuntimeError(f"batch starting at row {start} arrived at row {self.position}")
        if len(y) == 0:
            return self._advance(arrived or 0)
        self._take(start, y, parts, release)
        return self._advance(len(y) if arrived is None else arrived)

    def _take(
        self, start: int, y: np.ndarray, parts: Iterable[tuple[Any, Any]], release: Release | None
    ) -> None:
        """Count a batch of at least one row (see :meth:`update`) into the trackers."""
        raise NotImplementedError

    def _measures(self, tracker: Any) -> Mapping[str, np.ndarray]:
        raise NotImplementedError

    def _fold_table(self) -> Columns:
        raise NotImplementedError

    def _test_rows(self) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        raise NotImplementedError

    def _verdict_tables(self, tests: list[dict[str, Any]]) -> tuple[Columns, Columns]:
        raise NotImplementedError

    def _events(self) -> list[dict[str, Any]]:
        return []

    # -- written once --------------------------------------------------------------------

    def fold_values(self) -> np.ndarray:
        """(learners, folds) values of the run's measure under its forgetting mechanism
        (each learner's own windows)."""
        m = self._measures(self.trackers[0])[self.comparison.measure]
        return np.asarray(m).reshape(len(self.labels), self.n_folds)

    def snapshot(self) -> Snapshot:
        folds = self._fold_table()
        tests, q_rows = self._test_rows()
        friedman = self._friedman(tests)
        events = self._events()
        paired, verdicts = self._verdict_tables(tests)
        self.last = Snapshot(
            self.position,
            folds,
            to_columns(tests, TEST_SCHEMA),
            friedman,
            to_columns(events, EVENT_SCHEMA),
            to_columns(q_rows, Q_SCHEMA),
            paired,
            verdicts,
        )
        return self.last

    def _friedman(self, tests: list[dict[str, Any]]) -> dict[str, Any] | None:
        """Friedman's test over the learners' fold values (three learners or more, when
        asked), its row appended to ``tests``."""
        cmp = self.comparison
        if "friedman" not in cmp.tests or len(self.labels) < 3:
            return None
        values = self.fold_values()
        if not self.TASK.higher_is_better(cmp.measure):
            values = -values
        ok = np.isfinite(values).all(axis=0)
        if ok.sum() < 2:
            return None
        r = stats_friedman(values[:, ok].T, alpha=cmp.alpha)
        best = int(np.argmin(r.average_ranks))
        reject, boundary, valid = self.friedman_rule(self.position, r.pvalue, r.reject)
        tests.append(
            comparison_row(
                self.position, "friedman", "*", "*", cmp.measure,
                self.tracker_settings.forgetting, float("nan"), float("nan"), r.statistic,
                r.pvalue, reject, self.labels[best] if reject else None,
                folds_used=int(ok.sum()), boundary=boundary, anytime_valid=valid,
            )
        )
        return r.to_dict() | {"position": self.position}

    def _fold_tests(
        self,
        p: int,
        va: np.ndarray,
        vb: np.ndarray,
        counts: Mapping[str, Sequence[np.ndarray]] | None = None,
        wins: tuple[np.ndarray, np.ndarray] | None = None,
    ) -> tuple[list[dict[str, Any]], dict[str, tuple[float, float]]]:
        """The test rows of pair ``p`` from its (folds,) values ``va``/``vb`` of the run's
        measure (Sign, Wilcoxon; their values are the means over the folds with both) and,
        for 0/1 losses, McNemar's ``counts`` per forgetting (A-only errors, B-only errors,
        A's errors, B's errors per pair; the values are those errors) and the e-process's
        per-fold ``wins``. Also the (A, B) errors per forgetting of ``counts``."""
        cmp, forgetting = self.comparison, self.tracker_settings.forgetting
        ia, ib = self.pairs[p]
        a, b = self.labels[ia], self.labels[ib]
        ok = np.isfinite(va) & np.isfinite(vb)
        n_ok = int(ok.sum())  # the means over the folds with both values (np.mean's sums)
        mean_a = float(va[ok].sum() / n_ok) if n_ok else float("nan")
        mean_b = float(vb[ok].sum() / n_ok) if n_ok else float("nan")
        if not self.TASK.higher_is_better(cmp.measure):  # the tests see "higher is better"
            va, vb = -va, -vb
        counts = counts or {}
        losses = {kind: (float(c[2][p]), float(c[3][p])) for kind, c in counts.items()}
        outcomes = self.comparisons[p].look(
            self.position, va, vb, {kind: (c[0][p], c[1][p]) for kind, c in counts.items()},
            wins,
        )
        rows: list[dict[str, Any]] = []
        for o in outcomes:
            if o.test in ("sign", "wilcoxon"):
                compared = (cmp.measure, forgetting, mean_a, mean_b)
            else:
                compared = ("errors", o.forgetting, *losses[o.forgetting])
            pairs = o.test.startswith("mcnemar")
            rows.append(
                comparison_row(
                    self.position, o.test, a, b, *compared, o.statistic, o.pvalue, o.reject,
                    favoured(a, b, o.margin), boundary=o.boundary,
                    anytime_valid=o.anytime_valid, folds_used=None if pairs else o.n,
                    discordant_pairs=o.n if pairs else None,
                )
            )
        return rows, losses

    def _key_columns(self) -> Columns:
        """The fold table's learner, fold and forgetting columns: a row per (tracker, slot),
        in the order of ``trackers``."""
        slots = np.tile(np.arange(self.n_slots, dtype=np.int64), len(self.trackers))
        return {
            "learner": np.array(self.labels, dtype=object)[slots // max(self.n_folds, 1)],
            "fold": slots % max(self.n_folds, 1),
            "forgetting": np.repeat(np.array([t.name for t in self.trackers], dtype=object),
                                    self.n_slots),
        }


def favoured(a: str, b: str, margin: float) -> str | None:
    """``a`` for a positive margin (A better), ``b`` for a negative one, None for a tie."""
    if not margin or margin != margin:
        return None
    return a if margin > 0 else b


def comparison_row(
    position: int,
    test: str,
    a: str,
    b: str,
    measure: str,
    forgetting: str,
    value_a: float,
    value_b: float,
    statistic: float,
    pvalue: float,
    reject: bool,
    favours: str | None,
    *,
    folds_used: int | None = None,
    discordant_pairs: int | None = None,
    boundary: float | None = None,
    anytime_valid: bool = False,
) -> dict[str, Any]:
    """One test row: what it compared (``measure`` under ``forgetting``; A's and B's
    values), the outcome and the learner the data favour; ``reject`` used the p-value limit
    ``boundary`` (None: alpha of a fixed-sample test) and is valid under peeking when
    ``anytime_valid``.

    >>> comparison_row(10, "sign", "a", "b", "accuracy", "adwin", 0.9, 0.8, 9, 0.02, True, "a",
    ...           folds_used=10)["favours"]
    'a'
    """
    return {
        "position": position,
        "test": test,
        "learner_a": a,
        "learner_b": b,
        "measure": measure,
        "forgetting": forgetting,
        "value_a": float(value_a),
        "value_b": float(value_b),
        "statistic": float(statistic),
        "pvalue": float(pvalue),
        "reject": bool(reject),
        "favours": favours,
        "folds_used": folds_used,
        "discordant_pairs": discordant_pairs,
        "boundary": None if boundary is None else float(boundary),
        "anytime_valid": bool(anytime_valid),
    }
