"""The aggregator: per-fold measures and across-fold tests from prediction batches.

- :mod:`~distval.aggregator.core`: :class:`~distval.aggregator.core.Aggregator`, the plain
  (actor-free) class;
- :mod:`~distval.aggregator.settings`: its settings;
- :mod:`~distval.aggregator.counts`: McNemar's pair counts;
- :mod:`~distval.aggregator.snapshot`: what it emits.
"""
