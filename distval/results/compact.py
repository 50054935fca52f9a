"""The default end-of-run print: the verdict lines and a compact measures table, 100 columns.

``--verbose`` prints every test row instead of the compact table (:mod:`distval.results.memory`).
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from typing import Any

from distval.results.tables import text_table
from distval.routing.delays import parse_duration
from distval.tasks import Task, task_named

__all__ = [
    "compact_measures",
    "label_words",
    "verdict_block",
    "wrap",
]

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


def compact_measures(
    learners: Mapping[str, Mapping[str, Mapping[str, Mapping[str, float | None]]]],
    forgetting: str,
    names: Mapping[str, str],
    measure: str = "accuracy",
    task: Task | None = None,
) -> str:
    """The final measures (mean ±sd over folds) as an aligned text table, in the task's
    units (classification: percent; regression: the target's).

    A run's ``measure`` outside the columns shown (``auc``, ``log_loss``, ``f1``, …) gets a
    last column of its own.

    >>> m = {"accuracy": {"mean": 0.841, "std": 0.005}, "kappa": {"mean": 0.67, "std": None}}
    >>> print(compact_measures({"ht": {"adwin": m, "cumulative": m}}, "adwin", {"ht": "ht"}))
    learner   accuracy     κ  κm  κper  accuracy, cumulative
    -------  ---------  ----  --  ----  --------------------
    ht       84.1 ±0.5  67.0   –     –             84.1 ±0.5
    >>> m["auc"] = {"mean": 0.9, "std": 0.01}
    >>> print(compact_measures({"ht": {"adwin": m}}, "adwin", {}, "auc").splitlines()[2])
    ht       84.1 ±0.5  67.0   –     –             84.1 ±0.5  0.9000 ±0.0100
    """
    task = task or task_named("classification")
    extra = [] if measure in {m for m, _ in task.compact} else [measure]
    total = task.cumulative
    rows = []
    for label, per in learners.items():
        main = per.get(forgetting) or {}
        cum = per.get("cumulative") or main
        rows.append([names.get(label, label),
                     *(task.short_cell(m, main.get(m)) for m, _ in task.compact),
                     task.short_cell(total, cum.get(total)),
                     *(task.short_cell(m, main.get(m)) for m in extra)])
    cols = ["learner", *(title for _, title in task.compact),
            f"{dict(task.compact).get(total, total)}, cumulative", *extra]
    return text_table(cols, rows, "l" + "r" * (len(cols) - 1))


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
