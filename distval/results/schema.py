"""The results-directory format: the Parquet schemas (declared in :mod:`distval.columns`),
the file names, JSON-ready numbers, and reading one table in either of its forms (Parquet
or an Arrow stream), which the writer and the reader share."""

from __future__ import annotations

import math
import os
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TypeVar, overload

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from distval.columns import (
    COST_SCHEMA,
    EVENT_SCHEMA,
    FOLD_SCHEMA,
    PAIRED_SCHEMA,
    Q_SCHEMA,
    TEST_SCHEMA,
    VERDICT_SCHEMA,
    Columns,
    concat,
)
from distval.errors import DistvalError
from distval.tasks import Task

__all__ = [
    "COST_SCHEMA",
    "EVENT_SCHEMA",
    "FILES",
    "FOLD_SCHEMA",
    "PAIRED_SCHEMA",
    "Q_SCHEMA",
    "SUMMARY_MEASURES",
    "TABLES",
    "TABLE_SCHEMAS",
    "TEST_SCHEMA",
    "VERDICT_SCHEMA",
    "columns_of",
    "finite_or_none",
    "read_batches",
    "read_table",
    "schemas_of",
    "table",
]

#: The tables of a results directory, each ``NAME.parquet`` once the run is closed and
#: ``NAME.arrows`` (an Arrow IPC stream, readable up to its last whole batch) while it runs
#: or after it was killed (:mod:`distval.results.writer`).
TABLES = ("folds", "tests", "q", "events", "paired", "verdicts", "cost")

#: Each table's schema by name.
TABLE_SCHEMAS: dict[str, pa.Schema] = dict(
    zip(TABLES, (FOLD_SCHEMA, TEST_SCHEMA, Q_SCHEMA, EVENT_SCHEMA, PAIRED_SCHEMA, VERDICT_SCHEMA,
                 COST_SCHEMA))
)



def schemas_of(task: Task) -> dict[str, pa.Schema]:
    """Each table's schema in a run of ``task``: its fold table is the task's.

    >>> from distval.tasks import task_named
    >>> "rmse" in schemas_of(task_named("regression"))["folds"].names
    True
    """
    return TABLE_SCHEMAS | {"folds": task.fold_schema}


#: The files of a results directory (a report adds its own beside them).
FILES = (
    "config.json",
    *(f"{t}.parquet" for t in TABLES),
    *(f"{t}.arrows" for t in TABLES),
    "summary.json",
    "summary.md",
    "checkpoint.pkl",
    "checkpoint.pkl.part",
)
SUMMARY_MEASURES = ("accuracy", "kappa", "kappa_m", "kappa_per", "kappa_plus", "recall_harm")

_T = TypeVar("_T")


@overload
def finite_or_none(value: float | np.floating) -> float | None: ...
@overload
def finite_or_none(value: _T) -> _T: ...


def finite_or_none(value: object) -> object:
    """``None`` for a float NaN or infinity (JSON has neither), else ``value`` unchanged.

    >>> finite_or_none(float("nan")), finite_or_none(0.5), finite_or_none("a")
    (None, 0.5, 'a')
    """
    if isinstance(value, (float, np.floating)) and not math.isfinite(value):
        return None
    return float(value) if isinstance(value, np.floating) else value


def table(chunks: Sequence[Mapping[str, np.ndarray]], schema: pa.Schema) -> pa.Table:
    """One Arrow table of ``schema`` from column chunks (snapshots' tables), in order.

    >>> from distval.columns import EVENT_SCHEMA
    >>> one = {"position": np.array([5]), "learner": np.array(["nb"], dtype=object),
    ...        "fold": np.array([0]), "detector": np.array(["ph"], dtype=object)}
    >>> table([one, one], EVENT_SCHEMA).num_rows, table([], EVENT_SCHEMA).num_rows
    (2, 0)
    """
    return pa.Table.from_pydict(concat(chunks, schema), schema=schema)


def columns_of(rows: pa.Table) -> Columns:
    """An Arrow table as columns, as the aggregator makes them: None where a value is null
    (:func:`table` the other way).

    >>> one = {"position": np.array([5]), "learner": np.array([None], dtype=object),
    ...        "fold": np.array([0]), "detector": np.array(["ph"], dtype=object)}
    >>> columns_of(table([one], EVENT_SCHEMA))["learner"].tolist()
    [None]
    """
    out: Columns = {}
    for field in rows.schema:
        col = rows.column(field.name)
        if pa.types.is_list(field.type) or col.null_count:
            out[field.name] = np.fromiter(col.to_pylist(), dtype=object, count=len(col))
        else:
            out[field.name] = col.to_numpy()
    return out


def read_batches(reader: pa.ipc.RecordBatchStreamReader) -> Iterator[pa.RecordBatch]:
    """The whole record batches of an IPC stream, stopping at a torn tail (a stream cut off
    by a kill or a full disk) instead of failing."""
    while True:
        try:
            yield reader.read_next_batch()
        except StopIteration:
            return
        except (OSError, pa.ArrowException):
            return  # a torn tail: what came before is whole


def read_table(directory: str | os.PathLike[str], name: str) -> pa.Table:
    """Table ``name`` (``folds``, ``tests``, ``q``, ``events``) of a results directory:
    ``NAME.parquet`` of a closed run, else the ``NAME.arrows`` stream of a running or killed
    one, up to its last whole batch (:class:`~distval.results.writer.ResultWriter`).
    """
    d = Path(directory)
    path = d / f"{name}.parquet"
    try:
        if path.exists() or not (d / f"{name}.arrows").exists():
            return pq.read_table(path)
        path = d / f"{name}.arrows"
        with pa.memory_map(str(path)) as source:
            reader = pa.ipc.open_stream(source)
            return pa.Table.from_batches(list(read_batches(reader)), schema=reader.schema)
    except (OSError, pa.ArrowException) as exc:
        raise DistvalError(f"cannot read {path}: {exc}") from None
