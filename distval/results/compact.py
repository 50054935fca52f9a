"""Pieces of the end-of-run print: the verdict block, wrapped lines, how labels reached the
learners and the paired windows' means (the tables themselves are the answer's:
:mod:`distval.results.answer`).
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from distval.routing.delays import parse_duration

__all__ = [
    "label_words",
    "same_row_means",
    "verdict_block",
    "wrap",
]

#: One pair's same-row values: A, B, the folds with both, A's mean and sd, B's mean and sd.
SameRows = tuple[str, str, int, float, float | None, float, float | None]

def wrap(line: str, width: int = 100, indent: str = "  ") -> list[str]:
    """``line`` wrapped to ``width`` columns, continuation lines indented twice.

    >>> wrap("a b c d", width=4)
    ['  a', '    b', '    c', '    d']
    """
    return textwrap.wrap(line, width, initial_indent=indent, subsequent_indent=indent * 2,
                         break_on_hyphens=False) or [indent]


def label_words(delay: Any, probability: Any = None, column: str | None = None) -> str:
    """How labels reached the learners, for a title, from a saved run's ``delay``,
    ``label_probability`` and ``delay_column``: empty when at once and all.

    >>> label_words(500, 0.1)
    ', labels 500 rows late, 10 % revealed'
    >>> label_words("30min", None, "time"), label_words("python:late")
    (", labels 1800 s late (by 'time')", ', labels late by a function')
    """
    parts = []
    if isinstance(delay, str) and delay.startswith("python:"):
        parts.append("labels late by a function")
    elif column is not None and delay is not None:
        seconds = parse_duration(delay) if isinstance(delay, str) else None
        if seconds is None and isinstance(delay, str) and delay.endswith("s"):
            seconds = float(delay[:-1])  # a timedelta saved in seconds
        amount = f"{seconds:g} s" if seconds is not None else f"{float(delay):g}"
        parts.append(f"labels {amount} late (by {column!r})")
    elif delay is not None and int(delay) > 1:
        parts.append(f"labels {int(delay)} rows late")
    if probability is not None and float(probability) < 1:
        parts.append(f"{100 * float(probability):g} % revealed")
    return ", " + ", ".join(parts) if parts else ""


def same_row_means(paired: Mapping[str, Any]) -> list[SameRows]:
    """Per pair of the paired table (:data:`~distval.columns.PAIRED_SCHEMA`, one position),
    A's and B's measure over the paired windows (the rows each fold tested with both): mean
    and sd over the folds where both have a value, in the pairs' order; what the verdicts'
    fold tests compare.

    >>> p = {"learner_a": np.array(["a", "a"], object), "learner_b": np.array(["b", "b"], object),
    ...      "value_a": np.array([0.8, 0.9]), "value_b": np.array([0.7, np.nan])}
    >>> same_row_means(p)
    [('a', 'b', 1, 0.8, None, 0.7, None)]
    """
    if not len(paired.get("learner_a", ())):
        return []
    a = np.asarray(paired["learner_a"], dtype=object)
    b = np.asarray(paired["learner_b"], dtype=object)
    va = np.asarray(paired["value_a"], dtype=np.float64)
    vb = np.asarray(paired["value_b"], dtype=np.float64)
    out: list[SameRows] = []
    for pair in dict.fromkeys(zip(a.tolist(), b.tolist())):
        ok = (a == pair[0]) & (b == pair[1]) & np.isfinite(va) & np.isfinite(vb)
        n = int(ok.sum())
        if n:
            sd = [float(v[ok].std(ddof=1)) if n > 1 else None for v in (va, vb)]
            out.append((str(pair[0]), str(pair[1]), n, float(va[ok].mean()), sd[0],
                        float(vb[ok].mean()), sd[1]))
    return out


def verdict_block(
    rows: Sequence[Mapping[str, Any]], alpha: float, n_pairs: int, width: int = 100,
    extra: Sequence[str] = (), measure: str = "accuracy", loss: str = "error difference",
) -> list[str]:
    """The caption and the wrapped verdict lines of the final look (plus ``extra`` lines);
    ``measure`` and the task's ``loss`` name the per-row loss (``auc`` has none: fold-level
    tests only)."""
    level = f"{100 * (1 - alpha):g}%"
    loss = {"brier": "Brier score difference", "log_loss": "log-loss difference"}.get(
        measure, loss)
    caption = (
        f"Verdicts ({level} confidence sequences of the per-row {loss}, valid at "
        "every look"
    )
    if measure == "auc":
        caption = ("Verdicts (AUC: fold tests on each fold's AUC of both learners over the same "
                   "rows, no sequence")
    if n_pairs > 1:
        caption += f"; each at alpha/{n_pairs} (Bonferroni over the pairs), fold-test p-values "
        caption += "Holm-adjusted"
    caption += "):"
    out = textwrap.wrap(caption, width)
    for r in rows:
        out += wrap(str(r["line"]), width)
    for line in extra:
        out += wrap(line, width)
    return out
