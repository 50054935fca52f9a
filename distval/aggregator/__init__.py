"""The aggregator: per-fold measures and across-fold tests from prediction batches.

- :mod:`~distval.aggregator.base`: :class:`~distval.aggregator.base.BaseAggregator`, what
  every task's aggregator shares (the schedule of looks, the learner pairs and their fold
  tests, Friedman, the snapshot, the settings from a run), written once;
- :mod:`~distval.aggregator.core`: :class:`~distval.aggregator.core.Aggregator`, the plain
  (actor-free) class, for 0/1 losses (the classification task);
- :mod:`~distval.aggregator.numeric`: :class:`~distval.aggregator.numeric.RegressionAggregator`,
  for numeric errors (the regression task); each supplies only what its task needs
  (its trackers and baselines, its fold-table columns, its extra tests, its verdicts);
- :mod:`~distval.aggregator.settings`: their settings;
- :mod:`~distval.aggregator.counts`: McNemar's pair counts;
- :mod:`~distval.aggregator.snapshot`: what they emit.

:func:`aggregator_for` gives a run's: the one its task (:mod:`distval.tasks`) scores with.
"""

from __future__ import annotations

from distval.aggregator.base import BaseAggregator
from distval.aggregator.core import Aggregator
from distval.aggregator.numeric import RegressionAggregator
from distval.config import RunConfig

__all__ = ["AGGREGATORS", "AnyAggregator", "aggregator_for"]

#: What the engines drive: every task's aggregator is one.
AnyAggregator = BaseAggregator

#: The aggregator of each task by the task's name.
AGGREGATORS: dict[str, type[BaseAggregator]] = {
    "classification": Aggregator, "regression": RegressionAggregator,
}


def aggregator_for(config: RunConfig, n_classes: int | None = None,
                   planned_rows: int | None = None) -> AnyAggregator:
    """The aggregator of a run of ``config`` (its task's), its settings taken from it.

    >>> type(aggregator_for(RunConfig(learners=("linreg", "htr"), n_folds=2))).__name__
    'RegressionAggregator'
    """
    return AGGREGATORS[config.task].from_config(config, n_classes=n_classes,
                                                 planned_rows=planned_rows)
