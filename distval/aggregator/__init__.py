"""The aggregator: per-fold measures and across-fold tests from prediction batches.

- :mod:`~distval.aggregator.core`: :class:`~distval.aggregator.core.Aggregator`, the plain
  (actor-free) class, for 0/1 losses (the classification task);
- :mod:`~distval.aggregator.numeric`: :class:`~distval.aggregator.numeric.RegressionAggregator`,
  the same interface for numeric errors (the regression task);
- :mod:`~distval.aggregator.settings`: their settings;
- :mod:`~distval.aggregator.counts`: McNemar's pair counts;
- :mod:`~distval.aggregator.snapshot`: what they emit.

:func:`aggregator_for` gives a run's: the one its task (:mod:`distval.tasks`) scores with.
"""

from __future__ import annotations

from distval.aggregator.core import Aggregator
from distval.aggregator.numeric import RegressionAggregator
from distval.config import RunConfig

__all__ = ["AGGREGATORS", "AnyAggregator", "aggregator_for"]

AnyAggregator = Aggregator | RegressionAggregator

#: The aggregator of each task by the task's name.
AGGREGATORS: dict[str, type[Aggregator] | type[RegressionAggregator]] = {
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
