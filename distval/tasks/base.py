"""What a task brings to a run: the one place the pipeline asks about it.

A *task* is what the learners predict and how a prediction is scored: classification (a
class label, 0/1 error) or regression (a number, its absolute and squared error). Every
stage of a run is one code path that asks the run's :class:`Task` for the few things that
differ (river keeps one ``progressive_val_score`` for every task and lets each metric say
which way is better and how it prints; MOA plugs a different evaluator object into one
evaluation task):

- its fold measures, the columns of the fold table (:attr:`Task.fold_schema`) and which way
  each is better (:meth:`Task.higher_is_better`);
- which measures a run may compare (``--measure``), its default, its forgetting mechanisms
  and default tests, and what it refuses (:meth:`Task.check`);
- its baselines (classification: the majority class and the no-change classifier;
  regression: the mean of the earlier targets and the last value) and the sentence that
  places the learners against them (:meth:`Task.baseline`);
- the per-row loss its verdict tests (:attr:`Task.loss`);
- the tables it writes, the measures its summary and report show and how a number prints
  (:meth:`Task.cell`, :meth:`Task.short_cell`), the figures of its report
  (:attr:`Task.over_time`, :attr:`Task.baseline_figure`).

A third task (multi-label, quantile regression) is one new module beside
:mod:`distval.tasks.classification` and :mod:`distval.tasks.regression` that subclasses
:class:`Task`, plus its entry in :data:`distval.tasks.TASK_OBJECTS`.

>>> from distval.tasks import task_named
>>> t = task_named("regression")
>>> t.higher_is_better("rmse"), t.higher_is_better("r2"), t.cell("rmse", 2.4512, 0.0521)
(False, True, '2.451 ± 0.052')
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import pyarrow as pa

from distval.streams import Stream, open_stream

__all__ = [
    "CLOSER",
    "Config",
    "Learners",
    "PerLearner",
    "Task",
    "and_words",
    "baselines",
    "cumulative",
    "fold_mean",
]

#: A regression verdict's tested quantity: the share of rows on which A's prediction is the
#: closer less the share on which B's is (printed as "% of rows").
CLOSER = "closer"

#: A summary's measures: learner -> forgetting -> measure -> {"mean", "std"}.
Learners = Mapping[str, Mapping[str, Mapping[str, Mapping[str, float | None]]]]
#: Each learner's measures of one forgetting: {learner: {measure: {"mean": …, "sd": …}}}.
PerLearner = dict[str, Mapping[str, Mapping[str, float | None]]]


class Config(Protocol):
    """What a task reads of a run's configuration (:class:`distval.config.RunConfig`)."""

    @property
    def stream(self) -> Any: ...

    @property
    def target(self) -> str | None: ...

    # Repeat kept: the Protocol's properties: one per setting, alike in shape by design.
    @property
    def n_rows(self) -> int | None: ...

    @property
    def seed(self) -> int: ...

    @property
    def na_values(self) -> Any: ...

    @property
    def infinite(self) -> str: ...

    @property
    def measure(self) -> str: ...

    @property
    def forgetting(self) -> str: ...

    @property
    def tests(self) -> tuple[str, ...] | None: ...

    @property
    def drift(self) -> Any: ...

    @property
    def delay(self) -> Any: ...

    @property
    def label_probability(self) -> float: ...

    @property
    def sequential(self) -> str: ...


def cumulative(learners: Learners) -> PerLearner:
    """Each learner's cumulative measures (over folds), for the learners that have them.

    >>> cumulative({"a": {"cumulative": {"accuracy": {"mean": 0.9}}}, "b": {}})
    {'a': {'accuracy': {'mean': 0.9}}}
    """
    return {label: per["cumulative"] for label, per in learners.items() if per.get("cumulative")}


def fold_mean(measures: Mapping[str, Mapping[str, float | None]], key: str) -> float | None:
    """The mean over folds of measure ``key`` (None when not measured).

    >>> fold_mean({"accuracy": {"mean": 0.9}}, "accuracy"), fold_mean({}, "kappa")
    (0.9, None)
    """
    return (measures.get(key) or {}).get("mean")


def baselines(
    learners: Learners, key: str, *others: str
) -> tuple[PerLearner, float, tuple[float | None, ...]] | None:
    """Each learner's cumulative measures, with the baselines measured beside them on the same
    rows (read from the first learner): ``key``'s mean and ``others``' (None where unmeasured).
    None when no learner has cumulative measures or ``key`` was not measured.

    >>> cum, per, (maj,) = baselines({"a": {"cumulative": {"p_per": {"mean": .8}}}},
    ...                              "p_per", "p_maj")
    >>> list(cum), per, maj
    (['a'], 0.8, None)
    >>> baselines({"a": {"cumulative": {"p_maj": {"mean": .5}}}}, "p_per") is None
    True
    """
    cum = cumulative(learners)
    if not cum:
        return None
    first = next(iter(cum.values()))
    value = fold_mean(first, key)
    if value is None:
        return None
    return cum, value, tuple(fold_mean(first, k) for k in others)


def and_words(words: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``.

    >>> and_words(["a", "b", "c"])
    'a, b and c'
    """
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


class Task:
    """A task's description (see the module); subclasses fill in the class attributes."""

    #: The task's name, as ``--task`` and ``config.json`` spell it.
    name: str = ""
    #: The fold table's schema: the key columns, then the task's measures.
    fold_schema: pa.Schema
    #: The measures a run may compare (``--measure``), the first its default.
    compared: tuple[str, ...] = ()
    #: The forgetting mechanisms of its windows.
    forgetting: tuple[str, ...] = ()
    #: The tests a run of two learners or more runs unless told.
    tests: tuple[str, ...] = ()
    #: Tables written only once they have a row (a regression run has no Q statistics).
    optional_tables: tuple[str, ...] = ()
    #: The measures of the summary's and the report's measures table, in order.
    shown: tuple[str, ...] = ()
    #: The measures of the compact end-of-run table: (measure, its column title).
    compact: tuple[tuple[str, str], ...] = ()
    #: The measure over all rows in the last column of the measures tables.
    cumulative: str = ""
    #: What the verdict's confidence sequence follows per row (a loss difference).
    loss: str = ""
    #: The report's figures of a measure over time: (measure, title, caption).
    over_time: tuple[tuple[str, str, str], ...] = ()
    #: The report's baseline figure: the measure, then (column, words, line style) of each
    #: baseline's value on the same rows.
    baseline_figure: tuple[str, tuple[tuple[str, str, str], ...]] = ("", ())
    #: Whether ``config.json`` names the task (a classification run's is as it was before
    #: regression came: without the key).
    named_in_config: bool = True
    #: Whether the target is a number (the learners are regressors).
    numeric_target: bool = False
    #: What the baseline figure shows, for its caption.
    baseline_caption: str = ""
    #: The verdict figure's axis of the confidence sequence when it is not in the fold
    #: differences' units (None: the same axis).
    sequence_axis: str | None = None
    #: The baseline figure's second panel: (measure, words) of each learner's value relative
    #: to a baseline, then (title, axis label, the value at which it equals the baseline,
    #: which side is worse).
    relative: tuple[tuple[tuple[str, str], ...], tuple[str, str, float, str]] = (
        (), ("", "", 0.0, ""))
    #: What the measures tables need said of a measure (e.g. how it is clipped).
    measures_note: str = ""
    #: A short word for titles ("" for the default task).
    title_word: str = ""
    #: How numbers print, said once for the tables' captions.
    units: str = ""

    @property
    def measures(self) -> tuple[str, ...]:
        """The fold table's measure columns (after position, learner, fold, forgetting, n,
        width)."""
        return tuple(self.fold_schema.names[6:])

    @property
    def default_measure(self) -> str:
        return self.compared[0]

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"<task {self.name}>"

    def higher_is_better(self, measure: str) -> bool:
        """Whether a larger ``measure`` is better."""
        raise NotImplementedError

    def open_stream(self, config: Config) -> Stream:
        """The stream ``config`` names, opened with its row limit and seed."""
        return open_stream(config.stream, target=config.target, n_rows=config.n_rows,
                           seed=config.seed, na_values=config.na_values,
                           infinite=config.infinite)

    def percent(self, measure: str) -> bool:
        """Whether ``measure`` prints in percent (a share or a κ)."""
        return False

    def label(self, measure: str) -> str:
        """``measure``'s name with its unit, for a figure's axis or a column."""
        return measure

    def word(self, measure: str) -> str:
        """``measure``'s name in lines, captions and headers (as the verdicts name it)."""
        return dict(self.compact).get(measure, measure)

    def units_of(self, measure: str) -> str:
        """How ``measure``'s numbers print, said in a caption."""
        return self.units

    def number(self, measure: str, value: float) -> str:
        """``value`` in ``measure``'s display units, without the unit (percent: one decimal,
        a share of rows too; else four significant digits).

        >>> from distval.tasks import task_named
        >>> c, r = task_named("classification"), task_named("regression")
        >>> c.number("accuracy", 0.0612), r.number("rmse", 2.4512)
        ('6.1', '2.451')
        """
        if self.scale(measure) != 1:
            return f"{self.scale(measure) * value:.1f}"
        return f"{value:.{self.decimals(measure, value)}f}"

    def scale(self, measure: str) -> float:
        """The factor from a stored value of ``measure`` (a share kept as a fraction) to the
        number a person reads, for a chart drawn in :meth:`show`'s units: 100 for a share, a
        κ or regression's share of rows, else 1.

        >>> from distval.tasks import task_named
        >>> c = task_named("classification")
        >>> c.scale("accuracy"), c.scale("auc")
        (100.0, 1.0)
        """
        return 100.0 if self.percent(measure) or measure == CLOSER else 1.0

    def axis(self, measure: str, *, difference: bool = False) -> str:
        """A chart axis's title, with the unit of :meth:`show`: ``accuracy (%)``; a
        ``difference`` of two shares ``accuracy difference (pts)``; regression's tested
        share of rows (:data:`CLOSER`) as its :attr:`sequence_axis`; a plain measure bare.

        >>> from distval.tasks import task_named
        >>> c = task_named("classification")
        >>> c.axis("accuracy"), c.axis("accuracy", difference=True), c.axis("auc")
        ('accuracy (%)', 'accuracy difference (pts)', 'AUC')
        """
        if measure == CLOSER:
            return self.sequence_axis or "rows where A is closer − rows where B is (% of rows)"
        if not difference:
            return self.label(measure)
        return f"{self.word(measure)} difference" + (" (pts)" if self.percent(measure) else "")

    def show(self, measure: str, value: float, *, difference: bool = False,
             short: bool = False, signed: bool | None = None) -> str:
        """The one unit policy of every number a person reads: a share or a κ in percent
        (``78.5 %``), a ``difference`` of two in points (``-3.1 pts``), a regression
        verdict's share of rows as ``+14.1 % of rows``, any other measure as a plain number
        (``0.912``); ``short`` for a narrow terminal (whole percent, two decimals).

        >>> from distval.tasks import task_named
        >>> c = task_named("classification")
        >>> c.show("accuracy", 0.785), c.show("accuracy", -0.031, difference=True)
        ('78.5 %', '-3.1 pts')
        >>> c.show("accuracy", 0.781, short=True)
        '78%'
        >>> c.show("kappa", -0.031, difference=True, short=True)
        '-3pt'
        >>> c.show("auc", 0.9123), c.show("auc", -0.031, difference=True, short=True)
        ('0.912', '-.03')
        >>> task_named("regression").show(CLOSER, 0.141, difference=True)
        '+14.1 % of rows'
        """
        sign = "+" if (difference if signed is None else signed) else ""
        if measure == CLOSER:
            return f"{100 * value:{sign}.{0 if short else 1}f}{'%' if short else ' % of rows'}"
        if self.percent(measure):
            if short:  # whole percent, as two decimals of a share
                return f"{100 * value:{sign}.0f}{'pt' if difference else '%'}"
            return f"{100 * value:{sign}.1f}{' pts' if difference else ' %'}"
        if short:  # a leading zero dropped (.91, -.03), never another (10.52 stays)
            return re.sub(r"^([+-]?)0\.", r"\1.", f"{value:{sign}.2f}")
        return f"{value:{sign}.3f}"

    def difference_unit(self, measure: str) -> str:
        """A column title's unit of a difference of ``measure`` (``, pts``; plain: none)."""
        if measure == CLOSER:
            return ", % of rows"
        return ", pts" if self.percent(measure) else ""

    def verdict_measure(self, measure: str) -> str:
        """The measure over all rows that a verdict on ``measure`` is about (the per-row
        loss's mean: accuracy for the 0/1 error)."""
        return measure

    def tested_measure(self, measure: str) -> str:
        """What a verdict's difference is a difference of (regression: :data:`CLOSER`)."""
        return measure

    def difference_words(self, measure: str) -> str:
        """How a pair's difference is said in a caption."""
        if self.percent(measure):
            return ("in points (a difference of two percentages: the mean per-row difference "
                    "the verdict's confidence sequence follows)")
        return (f"as a plain number ({self.word(measure)} difference, the one the verdict "
                "tests; negative: A's is lower)")

    def measured(self, config: Config) -> tuple[str, ...]:
        """The fold measures the summary keeps for a run of ``config``."""
        return self.measures

    def default_tests(self, n_learners: int) -> tuple[str, ...]:
        """The tests a run of ``n_learners`` runs when none are named."""
        return self.tests if n_learners >= 2 else ()

    def check(self, config: Config) -> None:
        """Refuse, in one line (:class:`~distval.errors.DistvalError`), what this task
        cannot do with ``config``; resolve its defaults."""

    def baseline(self, learners: Learners, names: Mapping[str, str]) -> dict[str, Any] | None:
        """The learners against the task's baselines over all rows: a dict with its
        ``line`` (None without cumulative measures)."""
        return None

    def cell(self, measure: str, mean: float | None, sd: float | None = None) -> str:
        """``mean ± sd`` of ``measure`` as the tables print it (percent: two decimals)."""
        if mean is None or not math.isfinite(mean):
            return "–"
        if self.percent(measure):
            text = f"{100 * mean:.2f}"
            return text + (f" ± {100 * sd:.2f}" if sd is not None else "")
        digits = self.decimals(measure, mean)
        return f"{mean:.{digits}f}" + (f" ± {sd:.{digits}f}" if sd is not None else "")

    def short_cell(self, measure: str, d: Mapping[str, float | None] | None) -> str:
        """The compact table's ``mean ±sd`` (percent: one decimal)."""
        if not d or d.get("mean") is None:
            return "–"
        mean, sd = float(d["mean"] or 0.0), d.get("std")
        if self.percent(measure):
            return f"{100 * mean:.1f}" + (f" ±{100 * sd:.1f}" if sd is not None else "")
        digits = self.decimals(measure, mean)
        return f"{mean:.{digits}f}" + (f" ±{sd:.{digits}f}" if sd is not None else "")

    def decimals(self, measure: str, value: float) -> int:
        """Decimals of a plain (not percent) value: four significant digits of ``value``,
        the same for its sd, so a column reads evenly."""
        if not math.isfinite(value) or value == 0:
            return 3
        return max(0, min(6, 3 - math.floor(math.log10(abs(value)))))
