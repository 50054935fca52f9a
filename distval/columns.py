"""The columns of every results table, declared once: names, order and Arrow types.

The aggregator builds each table of a snapshot as columns (``dict[str, np.ndarray]``, one
array per column, in the order declared here); the results package writes them with
``pyarrow.Table.from_pydict`` against these schemas and reads them back. Nothing else names
a table's columns.

- :data:`FOLD_SCHEMA`: per (position, learner, fold, forgetting) every measure;
- :data:`FOLD_KEYS`: the key columns every task's fold table starts with (a regression run's
  fold table: :attr:`distval.tasks.regression.Regression.fold_schema`);
- :data:`TEST_SCHEMA`: per (position, test, learner pair) what was compared and decided;
- :data:`Q_SCHEMA`: per (position, learner pair, forgetting) the Q statistic;
- :data:`EVENT_SCHEMA`: per drift detection its row, learner, fold and detector;
- :data:`PAIRED_SCHEMA`: per (position, learner pair, fold) both learners' measure over the
  rows that fold tested with both, under the paired forgetting (:mod:`distval.metrics.paired`);
- :data:`VERDICT_SCHEMA`: per (position, learner pair) the confidence sequence of the per-row
  difference, the decision and the verdict line (:mod:`distval.statistics`).

A column that may hold nulls (``favours``, ``boundary``, ...) is an object array holding
``None`` there; the others have the numpy dtype of their Arrow type.

>>> cols = to_columns([{"position": 5, "learner": "nb", "fold": 0, "detector": "ph"}],
...                   EVENT_SCHEMA)
>>> {k: v.dtype.kind for k, v in cols.items()}
{'position': 'i', 'learner': 'O', 'fold': 'i', 'detector': 'O'}
>>> rows_of(cols)
[{'position': 5, 'learner': 'nb', 'fold': 0, 'detector': 'ph'}]
"""

from __future__ import annotations

import operator
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pyarrow as pa

from distval.metrics import MEASURES, PROBA_MEASURES

__all__ = [
    "COST_SCHEMA",
    "EVENT_SCHEMA",
    "FOLD_KEYS",
    "FOLD_SCHEMA",
    "PAIRED_SCHEMA",
    "Q_SCHEMA",
    "TEST_SCHEMA",
    "VERDICT_SCHEMA",
    "Columns",
    "concat",
    "empty_columns",
    "rows_of",
    "select",
    "to_columns",
]

#: One table of a snapshot: column name -> one array per column, all of the same length.
Columns = dict[str, np.ndarray]

#: The columns every fold table (every task's) starts with: which fold, where, under which
#: forgetting.
FOLD_KEYS = [
    ("position", pa.int64()),
    ("learner", pa.string()),
    ("fold", pa.int32()),
    ("forgetting", pa.string()),
    ("n", pa.float64()),
    ("width", pa.float64()),
]
FOLD_SCHEMA = pa.schema(
    [
        *FOLD_KEYS,
        *[(m, pa.float64()) for m in MEASURES],
        ("recall_by_class", pa.list_(pa.float64())),
        *[(m, pa.float64()) for m in PROBA_MEASURES],  # null unless a run asks for one
    ]
)
TEST_SCHEMA = pa.schema(
    [
        ("position", pa.int64()),
        ("test", pa.string()),
        ("learner_a", pa.string()),
        ("learner_b", pa.string()),
        ("measure", pa.string()),  # what was compared: a fold measure, or McNemar's errors
        ("forgetting", pa.string()),  # over which rows: the run's mechanism, or McNemar's
        ("value_a", pa.float64()),  # A's value: mean over folds, or errors (faded: weighted)
        ("value_b", pa.float64()),
        ("statistic", pa.float64()),
        ("pvalue", pa.float64()),
        ("reject", pa.bool_()),
        ("favours", pa.string()),  # the learner the data favour (null: a tie)
        ("folds_used", pa.int64()),  # sign, Wilcoxon: non-tied folds; Friedman: folds
        ("discordant_pairs", pa.int64()),  # McNemar: (row, fold) pairs where A, B differ
        ("boundary", pa.float64()),  # the p-value limit `reject` used at this check
        ("anytime_valid", pa.bool_()),  # `reject` stays valid when the checks are watched
    ]
)
Q_SCHEMA = pa.schema(
    [
        ("position", pa.int64()),
        ("learner_a", pa.string()),
        ("learner_b", pa.string()),
        ("forgetting", pa.string()),
        ("q", pa.float64()),  # log(errors_a / errors_b); negative favours A (gama2013)
        ("errors_a", pa.float64()),
        ("errors_b", pa.float64()),
        ("favours", pa.string()),
    ]
)
#: Per (test position, learner, fold) what the replica has cost so far: rows it went
#: through, thread CPU seconds in its own learn and predict calls (NaN where they are not
#: told apart: ``cpu`` is their sum), the model's bytes at that position by ``measure``
#: (NaN with the ``reason`` when it cannot be measured) and RAM-hours accumulated as MOA's
#: EvaluatePrequentialCV does (:mod:`distval.learners.cost`).
# Repeat kept: schemas of (name, type) pairs: alike in shape by design.
COST_SCHEMA = pa.schema(
    [
        ("position", pa.int64()),
        ("learner", pa.string()),
        ("fold", pa.int32()),
        ("rows", pa.int64()),
        ("cpu_learn", pa.float64()),
        ("cpu_predict", pa.float64()),
        ("cpu", pa.float64()),
        ("bytes", pa.float64()),
        ("measure", pa.string()),
        ("reason", pa.string()),
        ("ram_hours", pa.float64()),
    ]
)

EVENT_SCHEMA = pa.schema(
    [
        ("position", pa.int64()),
        ("learner", pa.string()),
        ("fold", pa.int32()),
        ("detector", pa.string()),
    ]
)

PAIRED_SCHEMA = pa.schema(
    [
        ("position", pa.int64()),
        ("learner_a", pa.string()),
        ("learner_b", pa.string()),
        ("fold", pa.int32()),
        ("forgetting", pa.string()),  # the paired window's mechanism
        ("width", pa.float64()),  # rows both learners were tested on inside it (faded: weight)
        ("difference", pa.float64()),  # accuracy of A - accuracy of B over those rows
        ("value_a", pa.float64()),  # the run's measure of A over those rows
        ("value_b", pa.float64()),
    ]
)
VERDICT_SCHEMA = pa.schema(
    [
        ("position", pa.int64()),
        ("learner_a", pa.string()),
        ("learner_b", pa.string()),
        ("rows", pa.int64()),  # rows some fold tested with both learners
        ("mean", pa.float64()),  # running mean of loss_B - loss_A (A's accuracy advantage)
        ("lower", pa.float64()),  # its confidence sequence at this look
        ("upper", pa.float64()),
        ("level", pa.float64()),  # 1 - alpha of the sequence (after Bonferroni over pairs)
        ("margin", pa.float64()),
        ("decision", pa.string()),  # A, B, equivalent, undecided
        ("favours", pa.string()),  # the winner's name (null: no winner)
        ("folds", pa.int64()),  # folds with a paired value
        ("folds_favouring", pa.int64()),  # of them, those on the winner's (or leader's) side
        ("window_rows", pa.float64()),  # median paired window width over folds
        ("test", pa.string()),  # the fold test cited (wilcoxon, else sign)
        ("pvalue", pa.float64()),  # its p-value (Holm-adjusted with 3+ learners)
        ("test_favours", pa.string()),
        ("correction", pa.string()),  # what multiplicity correction applies (null: none)
        ("line", pa.string()),  # the verdict line
    ]
)


def _dtype(field: pa.Field) -> np.dtype[Any]:
    """The numpy dtype of a column without nulls (object for strings and lists)."""
    t = field.type
    if pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_boolean(t):
        out: np.dtype[Any] = np.dtype(t.to_pandas_dtype())
        return out
    return np.dtype(object)


def column(values: Sequence[Any], field: pa.Field) -> np.ndarray:
    """One column from Python values: its numpy dtype, or object where a value is None.

    >>> column([1, None], TEST_SCHEMA.field("folds_used")).tolist()
    [1, None]
    >>> column([0.5, 1.0], TEST_SCHEMA.field("pvalue")).dtype
    dtype('float64')
    """
    return _column(values, _dtype(field))


def _column(values: Sequence[Any], dtype: np.dtype[Any]) -> np.ndarray:
    if dtype.kind == "O" or None in values:  # element by element: a value may be a list
        return np.fromiter(values, dtype=object, count=len(values))
    return np.array(values, dtype=dtype)


Layout = tuple[tuple[str, np.dtype[Any]], ...]
_LAYOUTS: dict[int, tuple[pa.Schema, Layout, operator.itemgetter[Any]]] = {}


def _layout(schema: pa.Schema) -> tuple[Layout, operator.itemgetter[Any]]:
    """Each column's name and numpy dtype, and a getter of a row's values in that order,
    worked out once per schema object (a snapshot builds several tables at every look;
    hashing a schema costs more than the lookup saves, so the schemas are told apart by
    identity, and kept)."""
    got = _LAYOUTS.get(id(schema))
    if got is None or got[0] is not schema:
        layout = tuple((f.name, _dtype(f)) for f in schema)
        getter = operator.itemgetter(*(name for name, _ in layout))
        got = _LAYOUTS[id(schema)] = (schema, layout, getter)
    return got[1], got[2]


def to_columns(rows: Sequence[Mapping[str, Any]], schema: pa.Schema) -> Columns:
    """Rows (one dict per row, every column of ``schema``) as columns, in the schema's order."""
    layout, getter = _layout(schema)
    if not rows:
        return empty_columns(schema)
    if len(layout) < 2:
        return {name: _column([r[name] for r in rows], dtype) for name, dtype in layout}
    values = zip(*map(getter, rows))  # one tuple per column
    return {name: _column(v, dtype) for (name, dtype), v in zip(layout, values)}


def empty_columns(schema: pa.Schema) -> Columns:
    """A table of ``schema`` with no row."""
    return {name: np.empty(0, dtype=dtype) for name, dtype in _layout(schema)[0]}


def rows_of(columns: Mapping[str, np.ndarray]) -> list[dict[str, Any]]:
    """The rows of a table as plain dicts of Python values (for JSON and Markdown)."""
    names = list(columns)
    return [dict(zip(names, values)) for values in zip(*(c.tolist() for c in columns.values()))]


def select(columns: Mapping[str, np.ndarray], mask: np.ndarray) -> Columns:
    """The rows of a table where ``mask`` holds."""
    return {k: v[mask] for k, v in columns.items()}


def concat(chunks: Sequence[Mapping[str, np.ndarray]], schema: pa.Schema) -> Columns:
    """Tables of ``schema`` (e.g. of successive snapshots) one after the other.

    >>> one = to_columns([{"position": 5, "learner": "nb", "fold": 0, "detector": "ph"}],
    ...                  EVENT_SCHEMA)
    >>> concat([one, one], EVENT_SCHEMA)["position"].tolist(), len(concat([], EVENT_SCHEMA))
    ([5, 5], 4)
    """
    if not chunks:
        return empty_columns(schema)
    return {f.name: np.concatenate([c[f.name] for c in chunks]) for f in schema}
