"""A suite's tables, as a paper uses them: Markdown (``suite.md``) and LaTeX with booktabs
(``suite.tex``), written from ``suite.json``'s content alone (so ``distval report`` redraws
them from a suite directory).

Per stream and learner the final measure, mean ± sd over folds, printed as the run's task
prints it (shares in percent, :meth:`~distval.tasks.base.Task.short_cell`); one rank rule,
ties within the ROPE (:func:`~distval.experiments.suite.statistics.rope_ranks`), gives the
bold (each stream's best rank), the one average-rank row (its best in bold), Friedman with
Iman–Davenport and Nemenyi's critical difference; then Wilcoxon signed-rank with Holm per
pair and the Bayesian signed-rank probabilities.

>>> data = {"measure": "accuracy", "comparison": {
...     "learners": ["a", "b"], "streams": ["s", "t", "u", "v"],
...     "values": [[0.9, 0.8], [0.7, 0.75], [0.85, 0.8], [0.802, 0.8]],
...     "spread": [[0.01, 0.02], [0.0, 0.01], [0.01, 0.01], [0.01, 0.01]], "alpha": 0.05,
...     "rope": 0.01, "average_ranks": {"a": 1.375, "b": 1.625}, "friedman": None,
...     "wilcoxon_holm": [], "bayesian_signed_rank": []}}
>>> print(results_markdown(data))
| stream | a | b |
|---|---|---|
| s | **90.0 ±1.0** | 80.0 ±2.0 |
| t | 70.0 ±0.0 | **75.0 ±1.0** |
| u | **85.0 ±1.0** | 80.0 ±1.0 |
| v | **80.2 ±1.0** | **80.0 ±1.0** |
| average rank | **1.38** | 1.62 |
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from distval.experiments.suite.units import rope_words, unit
from distval.files import write_file

__all__ = [
    "leaders",
    "rank_row",
    "ranked_on",
    "results_latex",
    "results_markdown",
    "suite_latex",
    "suite_markdown",
    "write_suite_files",
]


def leaders(c: dict[str, Any]) -> list[str]:
    """The learner(s) with the best (lowest) average rank: the bold of the rank row."""
    ranks = {lab: r for lab, r in c["average_ranks"].items()
             if r is not None and not (isinstance(r, float) and math.isnan(r))}
    best = min(ranks.values(), default=None)
    return [lab for lab in c["learners"] if best is not None and ranks.get(lab) == best]


def _cells(data: dict[str, Any]) -> tuple[list[str], list[str], list[list[str]], list[list[bool]]]:
    """Learners, streams, each value as the task prints it (``mean ±sd``, percent for shares)
    and, per stream, which learners hold its best rank under the suite's rank rule."""
    from distval.experiments.suite.statistics import stream_ranks

    c = data["comparison"]
    task, measure = unit(data)
    learners, streams = c["learners"], c["streams"]
    ranks = stream_ranks(c)
    cells, best = [], []
    for row, sd, r in zip(c["values"], c["spread"], ranks.tolist(), strict=True):
        cells.append([task.short_cell(measure, {"mean": v, "std": e})
                      for v, e in zip(row, sd, strict=True)])
        best.append([x == min(r) for x in r])
    return learners, streams, cells, best


def _rank(v: Any) -> str:
    return "–" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.2f}"


def rank_row(data: dict[str, Any]) -> tuple[str, list[str], list[bool]]:
    """The table's one average-rank row: its name, each learner's average rank, and which
    are bold (the best)."""
    c = data["comparison"]
    best = set(leaders(c))
    return ("average rank", [_rank(c["average_ranks"].get(lab)) for lab in c["learners"]],
            [lab in best for lab in c["learners"]])


def results_markdown(data: dict[str, Any]) -> str:
    """The stream x learner table in Markdown: each stream's best rank in bold, then the
    average ranks, the best of them in bold."""
    learners, streams, cells, best = _cells(data)
    lines = [
        "| stream | " + " | ".join(learners) + " |",
        "|---" * (len(learners) + 1) + "|",
    ]
    name, ranks, top = rank_row(data)
    for s, row, b in zip([*streams, name], [*cells, ranks], [*best, top], strict=True):
        shown = [f"**{v}**" if is_best else v for v, is_best in zip(row, b, strict=True)]
        lines.append(f"| {s} | " + " | ".join(shown) + " |")
    return "\n".join(lines)


def _tex(text: str) -> str:
    for ch, rep in (
        ("\\", r"\textbackslash{}"),
        ("&", r"\&"),
        ("%", r"\%"),
        ("$", r"\$"),
        ("#", r"\#"),
        ("_", r"\_"),
        ("{", r"\{"),
        ("}", r"\}"),
        ("~", r"\~{}"),
        ("^", r"\^{}"),
    ):
        text = text.replace(ch, rep) if ch != "\\" else text.replace(ch, "\0")
    return text.replace("\0", r"\textbackslash{}")


def results_latex(data: dict[str, Any]) -> str:
    """The stream x learner table for LaTeX (``\\usepackage{booktabs}``), bold as in the
    Markdown.

    >>> data = {"measure": "accuracy", "comparison": {"learners": ["ht_1"], "streams": ["s"],
    ...     "values": [[0.9]], "spread": [[0.01]], "rope": 0.01, "average_ranks": {"ht_1": 1.0}}}
    >>> print(results_latex(data).splitlines()[4])
    s & $\\mathbf{90.0 \\pm 1.0}$ \\\\
    """
    learners, streams, cells, best = _cells(data)
    lines = [
        r"\begin{tabular}{l" + "r" * len(learners) + "}",
        r"\toprule",
        "stream & " + " & ".join(_tex(lab) for lab in learners) + r" \\",
        r"\midrule",
    ]
    for s, row, b in zip(streams, cells, best, strict=True):
        shown = []
        for cell, is_best in zip(row, b, strict=True):
            body = cell.replace(" ±", r" \pm ").replace("–", "--")
            shown.append(f"$\\mathbf{{{body}}}$" if is_best else f"${body}$")
        lines.append(f"{_tex(s)} & " + " & ".join(shown) + r" \\")
    name, ranks, top = rank_row(data)
    lines += [
        r"\midrule",
        f"{name} & " + " & ".join(f"$\\mathbf{{{r}}}$" if t else r
                                  for r, t in zip(ranks, top, strict=True)) + r" \\",
        r"\bottomrule",
        r"\end{tabular}",
    ]
    return "\n".join(lines)


def _p(v: float) -> str:
    return "< 0.0001" if v < 1e-4 else f"{v:.4f}"


def _p_is(v: float) -> str:
    """``p < 0.0001`` or ``p = 0.0123``."""
    return f"p {_p(v)}" if v < 1e-4 else f"p = {_p(v)}"


def _iman_davenport(fr: dict[str, Any]) -> str:
    """The Iman–Davenport part of the Friedman line; an infinite F (every stream ranks the
    learners alike: F's denominator is 0) in words, with its p-value of 0."""
    if fr["iman_davenport"] is None:
        return ("the Iman–Davenport F is infinite, as every stream ranks the learners alike "
                "(p = 0)")
    return f"Iman–Davenport F = {fr['iman_davenport']:.3f} ({_p_is(fr['iman_davenport_pvalue'])})"


def ranked_on(data: dict[str, Any]) -> str:
    """What the suite ranks and how a person reads it: the measure and its unit, over which
    rows (its forgetting), the one rank rule (ties within the ROPE) and what bold means;
    each run's own verdicts and tables keep that run's forgetting."""
    c = data["comparison"]
    task, measure = unit(data)
    forgetting = (data.get("config") or {}).get("forgetting", "cumulative")
    run = ((data.get("config") or {}).get("run") or {}).get("forgetting")
    rows = ("over all rows (cumulative)" if forgetting == "cumulative"
            else f"under {forgetting} forgetting")
    text = (f"Final {task.word(measure)} per stream {rows}, mean ± sd over folds, "
            f"{task.units_of(measure)}")
    if run and run != forgetting:
        text += f" (each run's own tables and verdicts use its {run} forgetting)"
    lowest = " (the lowest value: an error)" if c.get("lower_is_better") else ""
    return (text + f". Ranks: 1 is best{lowest}; two learners within {rope_words(data)} of "
            "each other on a stream tie and share their mean rank (the Bayesian test's region "
            "of practical equivalence); this one rule gives the average ranks, the tests and "
            "the figures. Bold: the best rank on each stream and the best average rank")


def suite_markdown(data: dict[str, Any]) -> str:
    """``suite.md``: the results table and every cross-stream test."""
    c = data["comparison"]
    n, k = len(c["streams"]), len(c["learners"])
    out = [
        f"# Suite: {k} learners on {n} streams",
        "",
        f"{ranked_on(data)}.",
        "",
        results_markdown(data),
    ]
    fr = c.get("friedman")
    if fr:
        verdict = "reject" if fr["reject"] else "do not reject"
        out += [
            "",
            "## Friedman test",
            "",
            f"On the ranks above: chi² = {fr['chi2']:.3f} ({_p_is(fr['pvalue'])}); "
            f"{_iman_davenport(fr)}: "
            f"{verdict} equal performance at alpha = {fr['alpha']}. Nemenyi critical difference "
            f"CD = {fr['critical_difference']:.3f} (learners whose average ranks differ by "
            "at least CD differ).",
        ]
    if c.get("wilcoxon_holm"):
        out += [
            "",
            "## Wilcoxon signed-rank per pair, Holm-corrected",
            "",
            "| A | B | wins A | wins B | p | p (Holm) | differ |",
            "|---|---|---|---|---|---|---|",
        ]
        out += [
            f"| {w['a']} | {w['b']} | {w['wins_a']} | {w['wins_b']} | {_p(w['pvalue'])} | "
            f"{_p(w['pvalue_holm'])} | {'yes' if w['reject'] else 'no'} |"
            for w in c["wilcoxon_holm"]
        ]
    if c.get("bayesian_signed_rank"):
        out += [
            "",
            f"## Bayesian signed-rank test (ROPE {rope_words(data)})",
            "",
            "| A | B | P(A better) | P(equivalent) | P(B better) |",
            "|---|---|---|---|---|",
        ]
        out += [
            f"| {b['a']} | {b['b']} | {b['p_a']:.3f} | {b['p_rope']:.3f} | {b['p_b']:.3f} |"
            for b in c["bayesian_signed_rank"]
        ]
    missing = [s["name"] for s in data.get("streams", []) if not s.get("done")]
    if missing:
        out += ["", f"Not finished yet: {', '.join(missing)}."]
    return "\n".join(out) + "\n"


def suite_latex(data: dict[str, Any]) -> str:
    """``suite.tex``: the results table (booktabs), ready for ``\\input``."""
    task, measure = unit(data)
    return (
        "% needs \\usepackage{booktabs}\n"
        f"% final {measure}, mean $\\pm$ sd over folds, {task.units_of(measure)}; bold: the "
        f"best rank per stream and on average (ties within {rope_words(data)})\n"
        + results_latex(data)
        + "\n"
    )


def write_suite_files(out: Path, data: dict[str, Any], *, figures: bool = True) -> list[Path]:
    """Write ``suite.json``, ``suite.md``, ``suite.tex`` and, with ``figures``, the CD diagram
    and rank plot (SVG and PDF) into ``out``; returns the paths written
    (:func:`distval.experiments.suite.page.write_suite_page` adds the page)."""
    out = Path(out)
    written = []
    for name, text in (
        ("suite.json", json.dumps(data, indent=2, allow_nan=False) + "\n"),
        ("suite.md", suite_markdown(data)),
        ("suite.tex", suite_latex(data)),
    ):
        written.append(write_file(out / name, text))  # atomic, never through a link
    if figures:
        from distval.experiments.suite.figures import write_figures

        written += write_figures(out, data)
    return written
