"""What the aggregator emits every ``test_every`` rows: the fold measures and the test, Q, drift,
paired and verdict tables, as columns.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from distval.columns import (
    COST_SCHEMA,
    EVENT_SCHEMA,
    PAIRED_SCHEMA,
    Q_SCHEMA,
    VERDICT_SCHEMA,
    Columns,
    empty_columns,
)

__all__ = ["Snapshot"]


@dataclass
class Snapshot:
    """Measures and test results at one stream position, each table as columns.

    ``folds``, ``tests``, ``q`` and ``events`` hold the columns of
    :data:`~distval.columns.FOLD_SCHEMA`, ``TEST_SCHEMA``, ``Q_SCHEMA`` and ``EVENT_SCHEMA``
    (the drift detections since the previous snapshot); ``friedman`` the Friedman result;
    ``paired`` and ``verdicts`` the columns of ``PAIRED_SCHEMA`` and ``VERDICT_SCHEMA``
    (:mod:`distval.statistics`).
    """

    position: int
    folds: Columns
    tests: Columns
    friedman: dict[str, Any] | None = None
    events: Columns = field(default_factory=lambda: empty_columns(EVENT_SCHEMA))
    q: Columns = field(default_factory=lambda: empty_columns(Q_SCHEMA))
    paired: Columns = field(default_factory=lambda: empty_columns(PAIRED_SCHEMA))
    verdicts: Columns = field(default_factory=lambda: empty_columns(VERDICT_SCHEMA))
    #: What each learner and fold has cost so far (:data:`~distval.columns.COST_SCHEMA`),
    #: the rows the learner hosts recorded since the last snapshot.
    cost: Columns = field(default_factory=lambda: empty_columns(COST_SCHEMA))
