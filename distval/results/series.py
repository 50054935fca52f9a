"""Where a run's time series goes: compact columns in memory, or its results directory.

Every check adds one snapshot (:class:`~distval.aggregator.snapshot.Snapshot`): the folds' measures,
the tests, Q, the paired windows, the verdicts, the drift events. A run's
:class:`~distval.results.memory.EvaluationResult` keeps only the last snapshot and a few
running aggregates itself; the whole series goes to a :class:`Series`:

- a run with an output directory appends it to its
  :class:`~distval.results.writer.ResultWriter`, which writes it to disk and reads it back
  on demand: the run's memory does not grow with the number of checks;
- a run without one keeps it in a :class:`TimeSeries`: Arrow record batches, one per
  :data:`BATCH_CHECKS` checks. Its memory grows by O(checks): about 9.4 kB per check with
  two learners and ten folds, 17 kB with three (SEA, every measure; 19 MB for the 2,000
  checks of 2M rows tested every 1,000).
"""

from __future__ import annotations

from typing import Protocol

import pyarrow as pa

from distval.aggregator.snapshot import Snapshot
from distval.columns import Columns
from distval.results.schema import TABLE_SCHEMAS, TABLES, table

__all__ = ["BATCH_CHECKS", "Series", "TimeSeries", "tables_of"]

#: Checks gathered as columns before they become one Arrow record batch.
BATCH_CHECKS = 64


class Series(Protocol):
    """A run's time series: each check's snapshot appended, each table read back whole."""

    def append(self, snapshot: Snapshot) -> None: ...

    def table(self, name: str) -> pa.Table: ...


def tables_of(snapshot: Snapshot) -> dict[str, Columns]:
    """The tables of one snapshot by name (:data:`~distval.results.schema.TABLES`)."""
    return {
        "folds": snapshot.folds,
        "tests": snapshot.tests,
        "q": snapshot.q,
        "events": snapshot.events,
        "paired": snapshot.paired,
        "verdicts": snapshot.verdicts,
        "cost": snapshot.cost,
    }


class TimeSeries:
    """A time series in memory as Arrow record batches (no Python object per value).

    >>> import numpy as np
    >>> from distval.columns import empty_columns, FOLD_SCHEMA
    >>> folds = empty_columns(FOLD_SCHEMA)
    >>> series = TimeSeries()
    >>> for position in range(100):
    ...     series.append(Snapshot(position, folds, {}))
    >>> series.table("folds").num_rows, series.table("tests").num_rows
    (0, 0)
    """

    def __init__(self, schemas: dict[str, pa.Schema] | None = None) -> None:
        #: Each table's schema (a task's fold table: :func:`~distval.results.schema.schemas_of`).
        self.schemas = schemas or TABLE_SCHEMAS
        self._batches: dict[str, list[pa.RecordBatch]] = {name: [] for name in TABLES}
        self._pending: dict[str, list[Columns]] = {name: [] for name in TABLES}
        self._checks = 0

    def append(self, snapshot: Snapshot) -> None:
        for name, columns in tables_of(snapshot).items():
            if columns and len(next(iter(columns.values()))):
                self._pending[name].append(columns)
        self._checks += 1
        if self._checks % BATCH_CHECKS == 0:
            self._pack()

    def _pack(self) -> None:
        """The pending columns of each table as one record batch."""
        for name, pending in self._pending.items():
            if pending:
                rows = table(pending, self.schemas[name]).combine_chunks()
                self._batches[name].extend(rows.to_batches())
                pending.clear()

    def table(self, name: str) -> pa.Table:
        self._pack()
        return pa.Table.from_batches(self._batches[name], schema=self.schemas[name])

    @property
    def nbytes(self) -> int:
        """The bytes of the packed record batches (the columns still pending not counted)."""
        return sum(b.nbytes for batches in self._batches.values() for b in batches)
