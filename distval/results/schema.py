"""The results-directory format: the Parquet schemas, the file names, JSON-ready numbers."""

from __future__ import annotations

import math
from typing import TypeVar, overload

import numpy as np
import pyarrow as pa

from distval.metrics import MEASURES

__all__ = [
    "EVENT_SCHEMA",
    "FILES",
    "FOLD_SCHEMA",
    "Q_SCHEMA",
    "SUMMARY_MEASURES",
    "TEST_SCHEMA",
    "finite_or_none",
]

FOLD_SCHEMA = pa.schema(
    [
        ("position", pa.int64()),
        ("learner", pa.string()),
        ("fold", pa.int32()),
        ("forgetting", pa.string()),
        ("n", pa.float64()),
        ("width", pa.float64()),
        *[(m, pa.float64()) for m in MEASURES],
        ("recall_by_class", pa.list_(pa.float64())),
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
EVENT_SCHEMA = pa.schema(
    [
        ("position", pa.int64()),
        ("learner", pa.string()),
        ("fold", pa.int32()),
        ("detector", pa.string()),
    ]
)
#: The files of a results directory (a report adds its own beside them).
FILES = (
    "config.json",
    "folds.parquet",
    "tests.parquet",
    "q.parquet",
    "events.parquet",
    "summary.json",
    "summary.md",
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

