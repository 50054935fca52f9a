"""The summary's tables of a run: measures (mean ± sd over folds), the tests at the last look and
the Q statistic, each a :data:`Block` every renderer draws.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from distval.config import RunConfig
from distval.metrics import PROBA_MEASURES
from distval.results.compact import label_words
from distval.tasks import Task, task_named

#: A summary table: (caption, columns, rows, alignment), drawn by every renderer.
Block = tuple[str, list[str], list[list[str]], str]


def _mean_sd(d: dict[str, float | None]) -> str:
    if d["mean"] is None:
        return "–"
    return f"{d['mean']:.4f}" + (f" ± {d['std']:.4f}" if d["std"] is not None else "")


def _num(v: float | None, spec: str = ".4g") -> str:
    return "–" if v is None else format(v, spec)


def _pvalue(p: float | None) -> str:
    """A p-value for a table, never ``0``.

    >>> _pvalue(0.0), _pvalue(0.01234567)
    ('< 1e-16', '0.01235')
    """
    return "–" if p is None else ("< 1e-16" if p < 1e-16 else format(p, ".4g"))


def measures_block(learners: dict[str, Any], kind: str, task: Task | None = None) -> Block:
    """The final measures under ``kind`` forgetting, with the task's measure over all rows
    (classification: accuracy), in the task's units (classification: percent)."""
    task = task or task_named("classification")
    rows = []
    first: dict[str, Any] = next(
        (per[kind] for per in learners.values() if per.get(kind)), {}
    )
    extra = [m for m in first if m not in task.shown and m in PROBA_MEASURES]
    shown = [*task.shown, *extra]
    total = task.cumulative
    for label, per in learners.items():
        if not per:
            continue
        main = per.get(kind, {})
        cum = per.get("cumulative", main)
        cells = [task.cell(m, *_pair(main.get(m))) for m in shown] if main else []
        rows.append([label, *cells, task.cell(total, *_pair(cum.get(total)))])
    return (
        " ".join(filter(None, (_measures_caption(kind, f"(mean ± sd over folds, {task.units})",
                                                 "`", total), task.measures_note))),
        ["learner", *shown, f"{total} (cumulative)"],
        rows,
        "l" + "r" * (len(shown) + 1),
    )


def _pair(d: dict[str, float | None] | None) -> tuple[float | None, float | None]:
    return (None, None) if not d else (d.get("mean"), d.get("std"))


def _measures_caption(kind: str, units: str, quote: str = "", total: str = "accuracy") -> str:
    """What a measures table covers: under a forgetting mechanism each learner's own windows
    (which may hold other rows than another learner's: the verdicts compare on the same
    rows); cumulative: every row each fold tested.

    >>> _measures_caption("cumulative", "(%)").split(": ")[1]
    'each learner over every row its folds tested; last column'
    """
    if kind == "cumulative":
        return (f"Measures at the end {units} under {quote}cumulative{quote} forgetting: each "
                "learner over every row its folds tested; last column: the same.")
    return (
        f"Measures at the end {units} under {quote}{kind}{quote} forgetting: each learner "
        "over its own windows, so two learners' values may cover different rows and need not "
        "agree with the verdicts, which compare them on the same rows; last column: "
        f"{total} over all rows."
    )


def measured(cfg: RunConfig) -> tuple[str, ...]:
    """The fold measures a run has (its task's; classification: the probabilistic ones only
    when it asked for one)."""
    return task_named(cfg.task).measured(cfg)


#: What the decisions of each ``--sequential`` rule mean, for the summary and the report.
SEQUENTIAL_NOTES = {
    "none": "Each decision is a fixed-alpha test at this check: watching the checks and "
    "stopping at the first rejection errs more often than alpha (--sequential spending or "
    "evalue give decisions that stay valid).",
    "spending": "'rule valid when watched' yes: the decision is the alpha-spending test's, "
    "which stays right when the checks are watched (whether or not it has rejected): H0 is "
    "rejected once a test's p-value meets the limit of its check (Lan-DeMets; 'p limit' at "
    "the last check), and stays rejected; 'reject H0' names the row and p-value of that "
    "check when it was an earlier one.",
    "evalue": "sign_evalue and wilcoxon_evalue are valid at every check (e-processes over "
    "the folds' settled signs and settling-order ranks; the statistic is the e-value, H0 "
    "rejected once it reaches 1/alpha, the p-value 1/largest e-value); the other rows are "
    "fixed-alpha tests at this check.",
}


def tests_block(
    tests: list[dict[str, Any]], alpha: float, sequential: str = "none",
    first: Mapping[tuple[str, str, str], tuple[int, float, str | None]] | None = None,
    task: Task | None = None,
) -> Block:
    """The final test decisions and what each compared; with ``--sequential``, which
    decisions stay valid when the checks are watched and the p-value limit each used;
    ``first``: where each sequential rejection was decided
    (:func:`~distval.statistics.sequential.first_rejections`)."""
    watched = sequential != "none"
    adjusted = _across_pairs(tests, alpha)
    rows = []
    for i, t in enumerate(tests):
        compared = f"{t['measure']}, {t['forgetting']}" if t.get("measure") else "–"
        if t["test"] in ("sign", "wilcoxon"):
            compared += ", paired"
        digits = ".4f" if t.get("measure") != "errors" else ".6g"
        measure = str(t.get("measure") or "")
        if task is not None and task.percent(measure):  # shares in percent, as every table
            va, vb = (task.cell(measure, t[k]) for k in ("value_a", "value_b"))
        else:
            va, vb = _num(t["value_a"], digits), _num(t["value_b"], digits)
        row = [
            t["learner_a"],
            t["learner_b"],
            t["test"],
            compared,
            va,
            vb,
            _num(t["statistic"]),
            _num(t["pvalue"]),
            rejected_cell(t, first),
        ]
        if watched:
            row += ["yes" if t.get("anytime_valid") else "no", _num(t.get("boundary"), ".3g")]
        if adjusted is not None:
            row.append(adjusted[i])
        row[7] = _pvalue(t["pvalue"])
        rows.append([*row, t.get("favours") or "–"])
    cols = ["A", "B", "test", "compares", "A", "B", "statistic", "p-value", "reject H0"]
    if watched:
        cols += ["rule valid when watched", "p limit"]
    if adjusted is not None:
        cols.append("across pairs")
    mcnemar = any(str(t.get("test", "")).startswith("mcnemar") for t in tests)
    caption = (
        f"Tests (alpha = {alpha}): sign and Wilcoxon across folds on the paired windows (per "
        "fold, both learners over the rows it tested with both)"
        + ("; McNemar on the errors of the (row, fold) pairs both learners tested" if mcnemar
           else "")
        + ". Values: the compared quantity of A and B (shares and κ in percent; errors: "
        "counts). "
        + SEQUENTIAL_NOTES[sequential if watched else "none"]
    )
    if adjusted is not None:
        caption += (
            " 'across pairs': the decision corrected for the number of pairs, Holm's "
            "procedure on each test's p-values (family-wise error) and e-BH on the e-values "
            "(false discovery rate)."
        )
    align = "llllrrrrl" + ("lr" if watched else "") + ("l" if adjusted is not None else "")
    return caption, [*cols, "favours"], rows, align + "l"


def rejected_cell(
    t: Mapping[str, Any],
    first: Mapping[tuple[str, str, str], tuple[int, float, str | None]] | None,
) -> str:
    """The 'reject H0' cell: a sequential rejection decided at an earlier check (its p-value
    now above the limit) names that check's row, p-value and the learner it favoured.

    >>> t = {"learner_a": "ht", "learner_b": "nb", "test": "mcnemar", "reject": True,
    ...      "pvalue": 0.96, "boundary": 0.0137}
    >>> rejected_cell(t, {("ht", "nb", "mcnemar"): (3000, 0.0004, "ht")})
    'yes, at row 3,000 (p 0.0004, for ht)'
    """
    if not t["reject"]:
        return "no"
    at = (first or {}).get((str(t["learner_a"]), str(t.get("learner_b")), str(t["test"])))
    limit = t.get("boundary")
    if at is None or limit is None or t["pvalue"] <= limit or at[1] != at[1]:
        return "yes"
    side = f", for {at[2]}" if at[2] else ""
    return f"yes, at row {at[0]:,} (p {at[1]:.2g}{side})"


def _across_pairs(tests: list[dict[str, Any]], alpha: float) -> list[str] | None:
    """With several learner pairs, each test row's decision after Holm (p-values) or e-BH
    (e-values, the ``*_evalue`` rows) across the pairs; None with one pair.

    >>> rows = [{"test": "wilcoxon", "learner_a": a, "pvalue": p, "statistic": 0.0}
    ...         for a, p in (("x", 0.01), ("y", 0.04))]
    >>> _across_pairs(rows, 0.05)
    ['Holm: yes', 'Holm: yes']
    """
    from distval.statistics.multiplicity import e_bh, holm

    pairs = {(t["learner_a"], t.get("learner_b")) for t in tests if t["learner_a"] != "*"}
    if len(pairs) < 2:
        return None
    out = ["–"] * len(tests)
    for name in dict.fromkeys(t["test"] for t in tests):
        idx = [i for i, t in enumerate(tests) if t["test"] == name and t["learner_a"] != "*"]
        if name.endswith("_evalue"):
            decided = e_bh([tests[i]["statistic"] for i in idx], alpha)
            label = "e-BH"
        else:
            decided = holm([tests[i]["pvalue"] for i in idx], alpha)
            label = "Holm"
        for i, d in zip(idx, decided.tolist()):
            out[i] = f"{label}: {'yes' if d else 'no'}"
    return out


def q_block(q_rows: list[dict[str, Any]]) -> Block:
    """The final Q statistic of every pair."""
    rows = [
        [
            q["learner_a"],
            q["learner_b"],
            q["forgetting"],
            _num(q["q"], "+.4f"),
            _num(q["errors_a"], ".6g"),
            _num(q["errors_b"], ".6g"),
            q.get("favours") or "–",
        ]
        for q in q_rows
    ]
    return (
        "Q statistic log(errors A / errors B) (gama2013; negative favours A):",
        ["A", "B", "forgetting", "Q", "errors A", "errors B", "favours"],
        rows,
        "lllrrrl",
    )


def label_note(cfg: RunConfig) -> str:
    """How labels reached the learners, for a title (:func:`label_words`).

    >>> label_note(RunConfig(delay=500, label_probability=0.1))
    ', labels 500 rows late, 10 % revealed'
    >>> label_note(RunConfig(delay="30min", delay_column="time"))
    ", labels 1800 s late (by 'time')"
    """
    d = cfg.to_dict()
    return label_words(d.get("delay"), d.get("label_probability"), d.get("delay_column"))
