"""One answer per run, rendered by every surface: the verdicts and the numbers they rest on.

A run carries two notions of "how good", both legitimate, which disagree on a drifting stream
by design:

- **all rows** (:data:`ALL_ROWS`): each learner's measure over every row its folds tested
  (cumulative forgetting), and for a pair the mean per-row difference the verdict's
  confidence sequence follows — what the verdict is about;
- **recent window** (:data:`RECENT`): per fold, the measure over the paired window (the rows
  of the run's forgetting window tested with both learners) — what the fold tests (Sign,
  Wilcoxon) compare; and each learner over its **own window** (:data:`OWN`).

:class:`Answer` is built once from a run's summary (and its last paired table) and every
surface — the screen, ``summary.md``, ``report.html``, the notebook, ``compare``, the live
page — renders it (:func:`pairs_table`, :func:`learners_table`); a renderer chooses what to
show, never computes a number. Each :class:`Number` carries its measure, its basis and
whether it is a difference, and prints in the one unit policy of the run's task
(:meth:`distval.tasks.Task.show`): shares and κ in percent, a difference of two percentages
in points ("pts"), always with its basis; AUC, Brier score, log-loss and regression errors as
plain numbers; regression's verdict as a share of the rows ("% of rows").

>>> import numpy as np
>>> summary = {"task": "classification", "config": {"learners": ["ht", "nb"],
...     "forgetting": "adwin", "measure": "accuracy"},
...     "learners": {"ht": {"cumulative": {"accuracy": {"mean": .795, "std": .01}}},
...                  "nb": {"cumulative": {"accuracy": {"mean": .728, "std": .02}}}},
...     "verdicts": [{"learner_a": "ht", "learner_b": "nb", "decision": "A", "mean": .067,
...                   "lower": .061, "upper": .073, "level": .95, "folds": 10, "line": "…"}]}
>>> paired = {"learner_a": np.array(["ht"] * 2, object), "learner_b": np.array(["nb"] * 2,
...           object), "value_a": np.array([.80, .82]), "value_b": np.array([.85, .85])}
>>> ans = Answer.build(summary, paired)
>>> p = ans.pairs[0]
>>> p.first, p.value_first.text(ans.task), p.difference.text(ans.task), p.recent_leader
('ht', '79.5 %', '+6.7 pts', 'nb')
>>> print(text_table(*pairs_table(ans, short=True)[1:]))
A   B   A, all rows  B, all rows  A − B, pts (95% CS)
--  --  -----------  -----------  -------------------
ht  nb    79.5 ±1.0    72.8 ±2.0    +6.7 (6.1 to 7.3)
>>> print(text_table(*recent_table(ans, short=True)[1:]))
A   B   A, recent windows  B, recent windows  folds
--  --  -----------------  -----------------  -----
ht  nb          81.0 ±1.4          85.0 ±0.0     10
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from distval.results.compact import same_row_means
from distval.results.cost import price_line
from distval.results.tables import text_table
from distval.statistics.verdict import short_names, verdict_winner
from distval.tasks import Task, task_named

__all__ = [
    "ALL_ROWS",
    "OWN",
    "RECENT",
    "Answer",
    "LearnerAnswer",
    "Number",
    "PairAnswer",
    "answer_tables",
    "cost_table",
    "learners_table",
    "pairs_table",
    "recent_table",
    "render_text",
]

#: The bases of a number: over every row tested, over the recent paired windows (what the
#: fold tests compare), over each learner's own forgetting window.
ALL_ROWS, RECENT, OWN = "all rows", "recent window", "own window"


@dataclass(frozen=True)
class Number:
    """One number a person reads: a ``measure``'s ``value`` (a share kept as a fraction; the
    task prints it), its sd over folds, its ``basis`` and whether it is a ``difference`` of
    two learners' values (``rows``: regression's share of rows on which one is the closer)."""

    measure: str
    value: float | None
    sd: float | None = None
    basis: str = ALL_ROWS
    difference: bool = False

    @property
    def known(self) -> bool:
        return self.value is not None and math.isfinite(self.value)

    def text(self, task: Task, short: bool = False, sd: bool = False) -> str:
        """The value with its unit (``79.5 %``, ``+6.7 pts``, ``2.451``), ``–`` unknown;
        ``sd`` adds ``±sd`` (table cells, no unit: the caption says it)."""
        if not self.known:
            return "–"
        if sd:
            return task.short_cell(self.measure, {"mean": self.value, "std": self.sd})
        return task.show(self.measure, float(self.value or 0.0), difference=self.difference,
                         short=short)


@dataclass(frozen=True)
class LearnerAnswer:
    """One learner: its measures over all rows and over its own window."""

    label: str
    name: str
    all_rows: Mapping[str, Number]
    own: Mapping[str, Number]


@dataclass(frozen=True)
class PairAnswer:
    """One learner pair, ``first`` the learner its verdict puts ahead (else A): the verdict
    line, each learner's value over all rows, the difference the verdict tests (first less
    second, all rows, with its confidence sequence) and the recent paired windows' values."""

    first: str
    second: str
    line: str
    decision: str
    value_first: Number
    value_second: Number
    difference: Number
    lower: Number
    upper: Number
    level: float
    recent_first: Number
    recent_second: Number
    folds: int

    @property
    def recent_leader(self) -> str | None:
        """The learner ahead over the recent paired windows (None: no values, a tie)."""
        a, b = self.recent_first.value, self.recent_second.value
        if not self.recent_first.known or not self.recent_second.known or a == b:
            return None
        return self.first if (a or 0) > (b or 0) else self.second

    def interval(self, task: Task) -> str:
        """The confidence sequence ``(6.1 to 7.3)`` in the difference's units, or ``""``."""
        if not (self.lower.known and self.upper.known):
            return ""
        lo, hi = (task.number(n.measure, float(n.value or 0.0)) for n in (self.lower, self.upper))
        return f"({lo} to {hi})"


@dataclass(frozen=True)
class Answer:
    """A run's answer (see the module): built once by :meth:`build`, rendered by every
    surface."""

    task: Task
    measure: str
    forgetting: str
    pairs: tuple[PairAnswer, ...]
    learners: tuple[LearnerAnswer, ...]
    baseline: str | None = None
    twin: str | None = None
    #: Each learner's cost (``summary.json``'s ``cost``: :mod:`distval.results.cost`).
    costs: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def prices(self) -> list[str]:
        """One line per pair after its verdict: what the learner ahead costs against the
        other (:func:`~distval.results.cost.price_line`), where both were measured."""
        return [line for line in map(self.price, self.pairs) if line is not None]

    def price(self, pair: PairAnswer) -> str | None:
        """The line after ``pair``'s verdict: what its learner ahead costs against the other
        (None: a learner not measured, or the run measured nothing)."""
        if pair.first not in self.costs or pair.second not in self.costs:
            return None
        names = {x.label: x.name for x in self.learners}
        named = {names.get(k, k): v for k, v in self.costs.items()}
        return "cost: " + price_line(names.get(pair.first, pair.first),
                                     names.get(pair.second, pair.second), named)

    @classmethod
    def build(cls, summary: Mapping[str, Any], paired: Mapping[str, Any] | None = None,
              names: Mapping[str, str] | None = None) -> Answer:
        """The answer of a run from its summary (``summary.json``) and its last paired table
        (:data:`~distval.columns.PAIRED_SCHEMA` columns at one position)."""
        cfg = summary.get("config") or {}
        task = task_named(str(summary.get("task") or cfg.get("task") or "classification"))
        measure = str(cfg.get("measure") or task.default_measure)
        forgetting = str(cfg.get("forgetting") or "adwin")
        learners_summary: Mapping[str, Any] = summary.get("learners") or {}
        labels = list(cfg.get("learners_labels") or learners_summary)
        names = dict(names or short_names(labels))

        def number(label: str, kind: str, m: str, basis: str) -> Number:
            d = ((learners_summary.get(label) or {}).get(kind) or {}).get(m) or {}
            return Number(m, d.get("mean"), d.get("std"), basis)

        total = task.cumulative
        learners = tuple(
            LearnerAnswer(
                label, names.get(label, label),
                {m: number(label, "cumulative", m, ALL_ROWS)
                 for m in dict.fromkeys([total, measure, *task.shown])},
                {m: number(label, forgetting, m, OWN)
                 for m in dict.fromkeys([measure, *task.shown])},
            )
            for label in learners_summary
        )
        recent = {(a, b): (ma, sa, mb, sb)
                  for a, b, _, ma, sa, mb, sb in same_row_means(paired or {})}
        pairs = tuple(_pair(task, measure, v, recent, learners_summary)
                      for v in summary.get("verdicts") or [])
        base = summary.get("baseline") or {}
        twin = summary.get("null_twin") or {}
        return cls(task, measure, forgetting, pairs, learners, base.get("line"),
                   twin.get("line"), dict(summary.get("cost") or {}))

    def learner(self, label: str) -> LearnerAnswer:
        return next(x for x in self.learners if x.label == label)


def _pair(task: Task, measure: str, v: Mapping[str, Any],
          recent: Mapping[tuple[str, str], tuple[float, float | None, float, float | None]],
          learners: Mapping[str, Any]) -> PairAnswer:
    """One verdict row as a :class:`PairAnswer`: the winner (else the leader) first."""
    a, b = str(v["learner_a"]), str(v["learner_b"])
    flip = verdict_winner(dict(v), measure) == b
    first, second = (b, a) if flip else (a, b)
    sign = -1.0 if flip else 1.0
    ra = recent.get((a, b))
    rec: dict[str, tuple[float | None, float | None]] = (
        {a: (ra[0], ra[1]), b: (ra[2], ra[3])} if ra else {})
    # all rows: the verdict's measure over every row (the task's loss decides which)
    total = task.verdict_measure(measure)

    def cum(label: str) -> Number:
        d = ((learners.get(label) or {}).get("cumulative") or {}).get(total) or {}
        return Number(total, d.get("mean"), d.get("std"), ALL_ROWS)

    def fin(x: Any) -> float | None:
        return float(x) if x is not None and x == x else None

    tested = task.tested_measure(measure)
    mean, lower, upper = fin(v.get("mean")), fin(v.get("lower")), fin(v.get("upper"))
    basis = ALL_ROWS
    if mean is None or measure == "auc":  # no per-row loss: the fold-level difference
        basis = RECENT
        va, vb = rec.get(a, (None, None))[0], rec.get(b, (None, None))[0]
        mean = va - vb if va is not None and vb is not None else None
        lower = upper = None
    if not task.higher_is_better(tested):  # a loss (Brier, log-loss): first's less second's
        sign = -sign
    lo, hi = (None, None) if lower is None or upper is None else sorted(
        (sign * lower, sign * upper))
    diff = Number(tested, None if mean is None else sign * mean, None, basis, True)
    return PairAnswer(
        first, second, str(v.get("line") or ""), str(v.get("decision") or ""),
        cum(first), cum(second), diff,
        Number(tested, lo, None, basis, True), Number(tested, hi, None, basis, True),
        float(v.get("level") or 0.95),
        Number(measure, *rec.get(first, (None, None)), basis=RECENT),
        Number(measure, *rec.get(second, (None, None)), basis=RECENT),
        int(v.get("folds") or 0),
    )


#: A table for every renderer: (caption, columns, rows, alignment).
Table = tuple[str, list[str], list[list[str]], str]


def pairs_table(answer: Answer, short: bool = False) -> Table | None:
    """What the verdicts rest on, one row per pair: A (the learner the verdict puts ahead)
    and B over all rows and A − B as the verdict tests it, with its confidence sequence;
    None without pairs. ``short``: the screen's one decimal."""
    if not answer.pairs:
        return None
    task, measure = answer.task, answer.measure
    level = f"{100 * answer.pairs[0].level:.4g}%"
    names = {x.label: x.name for x in answer.learners}
    rows = [[names.get(p.first, p.first), names.get(p.second, p.second),
             p.value_first.text(task, short, sd=True), p.value_second.text(task, short, sd=True),
             _signed(task, p.difference) + (f" {p.interval(task)}" if p.interval(task) else "")]
            for p in answer.pairs]
    total = task.word(answer.pairs[0].value_first.measure)
    caption = (
        f"What the verdicts rest on: {total} of each pair over all rows "
        f"({task.units_of(total)}, mean ±sd over folds), A the learner its verdict puts "
        f"ahead, and A − B {task.difference_words(measure)}:"
    )
    unit = task.difference_unit(answer.pairs[0].difference.measure)
    cols = ["A", "B", "A, all rows", "B, all rows", f"A − B{unit} ({level} CS)"]
    if any(p.difference.basis == RECENT for p in answer.pairs):
        cols[4] = f"A − B{unit}, recent windows"
    return caption, cols, rows, "llrrr"


def _signed(task: Task, n: Number) -> str:
    """A difference's signed number in its display units, without the unit (the column's)."""
    if not n.known:
        return "–"
    text = task.number(n.measure, float(n.value or 0.0))
    return text if text.startswith("-") else "+" + text


def recent_table(answer: Answer, short: bool = False) -> Table | None:
    """The same pairs, in the same order, over the recent paired windows (what the fold
    tests compare), labelled as such: they may favour the other learner on a drifting
    stream; None without paired values."""
    pairs = [p for p in answer.pairs if p.recent_first.known or p.recent_second.known]
    if not pairs:
        return None
    task, word = answer.task, answer.task.word(answer.measure)
    names = {x.label: x.name for x in answer.learners}
    rows = [[names.get(p.first, p.first), names.get(p.second, p.second),
             p.recent_first.text(task, short, sd=True),
             p.recent_second.text(task, short, sd=True), str(p.folds)] for p in pairs]
    caption = (
        f"The same pairs over the recent paired windows ({answer.forgetting} forgetting: per "
        f"fold, the recent rows it tested with both), {word} {task.units_of(answer.measure)}, "
        "mean ±sd over folds: what the fold tests compare, which may favour the other "
        "learner when the stream drifts:"
    )
    return (caption, ["A", "B", "A, recent windows", "B, recent windows", "folds"], rows,
            "llrrr")


def learners_table(answer: Answer, short: bool = False) -> Table:
    """Each learner: the verdict's measure over all rows, then the task's measures over its
    own window (each learner's own rows: they need not agree with the verdicts)."""
    task = answer.task
    total = task.cumulative
    shown = [m for m, _ in task.compact] if short else list(task.shown)
    if answer.measure not in shown:
        shown.append(answer.measure)
    own = answer.forgetting != "cumulative"
    rows = [[x.name, x.all_rows[total].text(task, short, sd=True),
             *((x.own[m].text(task, short, sd=True) if m in x.own else "–") for m in shown)]
            for x in answer.learners]
    suffix = (" (own)" if short else " (own window)") if own else ", all rows"
    cols = ["learner", f"{task.word(total)}, all rows",
            *(f"{task.word(m)}{suffix}" for m in shown)]
    if not own:
        cols, rows = cols[:1] + cols[2:], [r[:1] + r[2:] for r in rows]
    caption = (f"Each learner: {task.word(total)} over all rows, then over its own "
               f"{answer.forgetting} window (its own recent rows, which may hold other rows "
               f"than another learner's), {task.units}, mean ±sd over folds:" if own else
               f"Each learner over all rows (cumulative forgetting), {task.units}, mean ±sd "
               "over folds:")
    return caption, cols, rows, "l" + "r" * (len(cols) - 1)


def answer_tables(answer: Answer, short: bool = False, learners: bool = True) -> list[Table]:
    """The answer's tables in the order every surface shows them: what the verdicts rest on
    (all rows), the same pairs over the recent windows, then (``learners``) each learner."""
    out = [pairs_table(answer, short), recent_table(answer, short)]
    if learners:
        out += [learners_table(answer, short), cost_table(answer)]
    return [t for t in out if t is not None]


def cost_table(answer: Answer) -> Table | None:
    """What each learner cost: thread CPU seconds over its folds (learning / predicting),
    rows per CPU second, its folds' model size at the end and MOA's RAM-hours; None when the
    run measured nothing. An empty size names its reason below the table's caption."""
    if not answer.costs:
        return None

    def num(x: Any, spec: str) -> str:
        return "–" if x is None else format(x, spec)

    rows = []
    for x in answer.learners:
        c = answer.costs.get(x.label)
        if not c:
            continue
        split = (f"{num(c.get('cpu_learn_s'), '.2f')} / {num(c.get('cpu_predict_s'), '.2f')}")
        rows.append([x.name, num(c.get("cpu_s"), ".2f"), split,
                     num(c.get("rows_per_second"), ",.0f"),
                     num(None if c.get("bytes_final") is None else c["bytes_final"] / 1e6,
                         ".3g"), num(c.get("ram_hours"), ".2g"),
                     str(c.get("measure") or "") + (f" ({c['reason']})" if c.get("reason")
                                                     else "")])
    caption = ("What each learner cost (its replicas' own work, summed over folds): CPU "
               "seconds, learning / predicting, rows per CPU second, model size at the end "
               "(MB) and RAM-hours (GB held per CPU hour, as MOA counts them)")
    cols = ["learner", "CPU s", "learn / predict", "rows/s", "MB", "RAM-hours",
            "size measured by"]
    if len({r[-1] for r in rows}) == 1:  # one measure: said once, in the caption
        caption += f"; size measured by {rows[0][-1]}"
        cols, rows = cols[:-1], [r[:-1] for r in rows]
    return caption + ":", cols, rows, "lrrrrrl"[:len(cols)]


def render_text(tables: Sequence[Table | None], width: int = 100) -> list[str]:
    """Tables as the screen prints them: the caption wrapped, the aligned table, a blank."""
    import textwrap

    out: list[str] = []
    for t in tables:
        if t is None:
            continue
        caption, cols, rows, align = t
        out += [*textwrap.wrap(caption, width), text_table(cols, rows, align), ""]
    return out
