"""The default end-of-run print: the verdict lines and a compact measures table, 100 columns.

``--verbose`` prints every test row instead of the compact table (:mod:`distval.results.memory`).
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from distval.results.tables import text_table
from distval.routing.delays import parse_duration
from distval.tasks import Task, task_named

__all__ = [
    "compact_measures",
    "compact_same_rows",
    "compact_tables",
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


def compact_same_rows(
    paired: Mapping[str, Any], names: Mapping[str, str], measure: str = "accuracy",
    task: Task | None = None,
) -> str | None:
    """What the verdicts compare, as an aligned text table: per pair, ``measure`` of A and
    of B over the same rows (:func:`same_row_means`), mean ±sd over folds in the task's
    units; None without paired values.

    >>> p = {"learner_a": np.array(["ht", "ht"], object),
    ...      "learner_b": np.array(["nb", "nb"], object),
    ...      "value_a": np.array([0.8, 0.9]), "value_b": np.array([0.7, 0.7])}
    >>> print(compact_same_rows(p, {}))
    A   accuracy of A  B   accuracy of B  folds
    --  -------------  --  -------------  -----
    ht      85.0 ±7.1  nb      70.0 ±0.0      2
    """
    task = task or task_named("classification")
    title = task.word(measure)
    rows = [[names.get(a, a), task.short_cell(measure, {"mean": ma, "std": sa}),
             names.get(b, b), task.short_cell(measure, {"mean": mb, "std": sb}), str(n)]
            for a, b, n, ma, sa, mb, sb in same_row_means(paired)]
    if not rows:
        return None
    return text_table(["A", f"{title} of A", "B", f"{title} of B", "folds"], rows, "lrlrr")


def compact_tables(
    learners: Mapping[str, Mapping[str, Mapping[str, Mapping[str, float | None]]]],
    paired: Mapping[str, Any] | None, forgetting: str, names: Mapping[str, str],
    measure: str = "accuracy", task: Task | None = None,
) -> list[tuple[str, str]]:
    """The end-of-run measures as (caption, aligned text table): first what the verdicts
    compare, ``measure`` of each pair on the same rows (:func:`compact_same_rows`), then
    each learner over its own windows and over all rows (:func:`compact_measures`), labelled
    as such. The terminal prints them under the verdicts, Jupyter shows them as HTML.

    >>> m = {"accuracy": {"mean": 0.841, "std": 0.005}}
    >>> p = {"learner_a": np.array(["ht"], object), "learner_b": np.array(["nb"], object),
    ...      "value_a": np.array([0.8]), "value_b": np.array([0.7])}
    >>> for caption, _ in compact_tables({"ht": {"adwin": m}}, p, "adwin", {}):
    ...     print(caption[:52])
    What the verdicts compare: accuracy on the same rows
    Each learner over its own windows (adwin forgetting)
    """
    task = task or task_named("classification")
    title = task.word(measure)
    out = []
    same = compact_same_rows(paired or {}, names, measure, task)
    if same is not None:
        units = "%, " if task.percent(measure) else ""
        out.append((f"What the verdicts compare: {title} on the same rows ({units}mean ±sd "
                    f"over folds of the paired windows, {forgetting} forgetting: per fold, the "
                    "rows it tested with both):", same))
    total = task.cumulative
    units = "%" if task.percent(total) else "target units"
    warning = (", which may hold other rows than another learner's (so they need not agree "
               "with the verdicts)," if same is not None else "")
    caption = (f"Each learner over its own windows ({forgetting} forgetting){warning} and "
               f"{dict(task.compact).get(total, total)} over all rows ({units}, mean ±sd over "
               "folds):")
    own = forgetting != "cumulative"
    if not own:
        caption = (f"Each learner under cumulative forgetting: over every row its folds tested "
                   f"({units}, mean ±sd over folds):")
    out.append((caption, compact_measures(learners, forgetting, names, measure, task, own)))
    return out


def compact_measures(
    learners: Mapping[str, Mapping[str, Mapping[str, Mapping[str, float | None]]]],
    forgetting: str,
    names: Mapping[str, str],
    measure: str = "accuracy",
    task: Task | None = None,
    own: bool = False,
) -> str:
    """The final measures (mean ±sd over folds) as an aligned text table, in the task's
    units (classification: percent; regression: the target's); ``own`` marks the columns of
    each learner's own windows "(own)" (all but the last over all rows).

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
    titles = [title for _, title in task.compact]
    if own:
        titles[0] += " (own)"
    cols = ["learner", *titles, f"{dict(task.compact).get(total, total)}, cumulative",
            *(f"{task.word(m)} (own)" if own else task.word(m) for m in extra)]
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
