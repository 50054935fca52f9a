"""The default end-of-run print: the verdict lines and a compact measures table, 100 columns.

``--verbose`` prints every test row instead of the compact table (:mod:`distval.results.memory`).
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from typing import Any

from distval.results.tables import text_table
from distval.routing.delays import parse_duration

__all__ = [
    "COMPACT_MEASURES",
    "baseline",
    "compact_measures",
    "label_words",
    "verdict_block",
    "wrap",
]

#: The compact table's measures (run's forgetting), then the cumulative accuracy.
COMPACT_MEASURES = (("accuracy", "accuracy"), ("kappa", "κ"), ("kappa_m", "κm"),
                    ("kappa_per", "κper"))


def wrap(line: str, width: int = 100, indent: str = "  ") -> list[str]:
    """``line`` wrapped to ``width`` columns, continuation lines indented twice.

    >>> wrap("a b c d", width=4)
    ['  a', '    b', '    c', '    d']
    """
    return textwrap.wrap(line, width, initial_indent=indent, subsequent_indent=indent * 2,
                         break_on_hyphens=False) or [indent]


def _and(words: Sequence[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def baseline(
    learners: Mapping[str, Mapping[str, Mapping[str, Mapping[str, float | None]]]],
    names: Mapping[str, str],
) -> dict[str, Any] | None:
    """The no-change and majority-class baselines over all rows, and the learners that do
    not beat the no-change (Persistent) classifier (Žliobaitė et al. 2015, §4: on a stream
    with long label runs, a learner under it has learnt less than the previous label
    tells). From each learner's cumulative means over folds: ``p_per`` (Persistent's
    accuracy on the rows the folds tested), ``p_maj`` (the majority class's share) and
    ``kappa_per``; None without cumulative measures.

    >>> m = {"accuracy": {"mean": .795}, "p_per": {"mean": .853}, "p_maj": {"mean": .575},
    ...      "kappa_per": {"mean": -.396}}
    >>> b = baseline({"ht": {"cumulative": m}}, {})
    >>> b["below_persistent"]
    ['ht']
    >>> print(textwrap.fill(b["line"], 88))
    baseline: ht does not beat the no-change classifier: accuracy 79.5 % against
    Persistent's 85.3 % on the same rows (κper -39.6 %); majority class 57.5 %
    """
    cum: dict[str, Mapping[str, Mapping[str, float | None]]] = {
        label: per["cumulative"] for label, per in learners.items() if per.get("cumulative")
    }
    if not cum:
        return None

    def mean(m: Mapping[str, Mapping[str, float | None]], key: str) -> float | None:
        return (m.get(key) or {}).get("mean")

    first = next(iter(cum.values()))
    p_per, p_maj = mean(first, "p_per"), mean(first, "p_maj")
    if p_per is None:
        return None
    below = [label for label, m in cum.items()
             if (mean(m, "kappa_per") or 0.0) <= 0 and mean(m, "accuracy") is not None]
    shown = [names.get(label, label) for label in below]
    tail = f"majority class {100 * p_maj:.1f} %" if p_maj is not None else ""
    if below:
        accs = _and([f"{100 * (mean(cum[b], 'accuracy') or 0.0):.1f} %" for b in below])
        kappas = _and([f"{100 * (mean(cum[b], 'kappa_per') or 0.0):.1f} %" for b in below])
        verb = "does" if len(below) == 1 else "do"
        line = (f"baseline: {_and(shown)} {verb} not beat the no-change classifier: accuracy "
                f"{accs} against Persistent's {100 * p_per:.1f} % on the same rows (κper "
                f"{kappas}); {tail}")
    else:
        line = (f"baseline: every learner beats the no-change classifier (Persistent "
                f"{100 * p_per:.1f} % on the same rows, κper > 0); {tail}")
    return {"persistent": p_per, "majority": p_maj, "below_persistent": below,
            "line": line.rstrip("; ")}


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


def _pct(d: Mapping[str, float | None] | None) -> str:
    if not d or d.get("mean") is None:
        return "–"
    mean = 100 * float(d["mean"] or 0.0)
    sd = d.get("std")
    return f"{mean:.1f}" + (f" ±{100 * sd:.1f}" if sd is not None else "")


def _value(d: Mapping[str, float | None] | None) -> str:
    if not d or d.get("mean") is None:
        return "–"
    sd = d.get("std")
    return f"{float(d['mean'] or 0.0):.3f}" + (f" ±{sd:.3f}" if sd is not None else "")


def compact_measures(
    learners: Mapping[str, Mapping[str, Mapping[str, Mapping[str, float | None]]]],
    forgetting: str,
    names: Mapping[str, str],
    measure: str = "accuracy",
) -> str:
    """The final measures in percent (mean ±sd over folds) as an aligned text table.

    A run's ``measure`` outside the four shown (``auc``, ``log_loss``, ``f1``, …) gets a last
    column of its own, as a plain number (log-loss is no percentage).

    >>> m = {"accuracy": {"mean": 0.841, "std": 0.005}, "kappa": {"mean": 0.67, "std": None}}
    >>> print(compact_measures({"ht": {"adwin": m, "cumulative": m}}, "adwin", {"ht": "ht"}))
    learner   accuracy     κ  κm  κper  accuracy, cumulative
    -------  ---------  ----  --  ----  --------------------
    ht       84.1 ±0.5  67.0   –     –             84.1 ±0.5
    >>> m["auc"] = {"mean": 0.9, "std": 0.01}
    >>> print(compact_measures({"ht": {"adwin": m}}, "adwin", {}, "auc").splitlines()[2])
    ht       84.1 ±0.5  67.0   –     –             84.1 ±0.5  0.900 ±0.010
    """
    extra = [] if measure in {m for m, _ in COMPACT_MEASURES} else [measure]
    rows = []
    for label, per in learners.items():
        main = per.get(forgetting) or {}
        cum = per.get("cumulative") or main
        rows.append([names.get(label, label), *(_pct(main.get(m)) for m, _ in COMPACT_MEASURES),
                     _pct(cum.get("accuracy")), *(_value(main.get(m)) for m in extra)])
    cols = ["learner", *(title for _, title in COMPACT_MEASURES), "accuracy, cumulative", *extra]
    return text_table(cols, rows, "l" + "r" * (len(cols) - 1))


def verdict_block(
    rows: Sequence[Mapping[str, Any]], alpha: float, n_pairs: int, width: int = 100,
    extra: Sequence[str] = (), measure: str = "accuracy",
) -> list[str]:
    """The caption and the wrapped verdict lines of the final look (plus ``extra`` lines);
    ``measure`` names the per-row loss (``auc`` has none: fold-level tests only)."""
    level = f"{100 * (1 - alpha):g}%"
    loss = {"brier": "Brier score", "log_loss": "log-loss"}.get(measure, "error")
    caption = (
        f"Verdicts ({level} confidence sequences of the per-row {loss} difference, valid at "
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
