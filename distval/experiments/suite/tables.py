"""A suite's tables, as a paper uses them: Markdown (``suite.md``) and LaTeX with booktabs
(``suite.tex``), written from ``suite.json``'s content alone (so ``distval report`` redraws
them from a suite directory).

Per stream and learner the final measure, mean ± sd over folds, the best of each stream in
bold; then average ranks, Friedman with Iman–Davenport and Nemenyi's critical difference,
Wilcoxon signed-rank with Holm per pair, and the Bayesian signed-rank probabilities.

>>> data = {"measure": "accuracy", "comparison": {
...     "learners": ["a", "b"], "streams": ["s", "t"], "values": [[0.9, 0.8], [0.7, 0.75]],
...     "spread": [[0.01, 0.02], [0.0, 0.01]], "alpha": 0.05, "rope": 0.01,
...     "average_ranks": {"a": 1.5, "b": 1.5}, "friedman": None,
...     "wilcoxon_holm": [], "bayesian_signed_rank": []}}
>>> print(results_markdown(data))
| stream | a | b |
|---|---|---|
| s | **0.9000 ± 0.0100** | 0.8000 ± 0.0200 |
| t | 0.7000 ± 0.0000 | **0.7500 ± 0.0100** |
| average rank | 1.50 | 1.50 |
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from distval.files import write_file

__all__ = [
    "ranked_on",
    "results_latex",
    "results_markdown",
    "suite_latex",
    "suite_markdown",
    "write_suite_files",
]


def _cells(data: dict[str, Any]) -> tuple[list[str], list[str], list[list[str]], list[list[bool]]]:
    c = data["comparison"]
    learners, streams = c["learners"], c["streams"]
    cells, best = [], []
    pick = min if c.get("lower_is_better") else max
    for row, sd in zip(c["values"], c["spread"], strict=True):
        top = pick(row) if row else None
        cells.append(
            [
                f"{v:.4f} ± {s:.4f}" if s is not None else f"{v:.4f}"
                for v, s in zip(row, sd, strict=True)
            ]
        )
        best.append([v == top for v in row])
    return learners, streams, cells, best


def _lowest(c: dict[str, Any]) -> str:
    """What "best" means when lower is better (an error, in the target's units)."""
    return ": the lowest, an error in the target's units" if c.get("lower_is_better") else ""


def _rank(v: Any) -> str:
    return "–" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.2f}"


def results_markdown(data: dict[str, Any]) -> str:
    """The stream x learner table in Markdown, the best of each stream in bold."""
    learners, streams, cells, best = _cells(data)
    lines = [
        "| stream | " + " | ".join(learners) + " |",
        "|---" * (len(learners) + 1) + "|",
    ]
    for s, row, b in zip(streams, cells, best, strict=True):
        shown = [f"**{v}**" if is_best else v for v, is_best in zip(row, b, strict=True)]
        lines.append(f"| {s} | " + " | ".join(shown) + " |")
    c = data["comparison"]
    ranks = c["average_ranks"]
    raw = c.get("average_ranks_raw")
    tied = f" (ties within ± {c['rope']})" if raw and c.get("ranks_tie_within_rope") else ""
    lines.append(f"| average rank{tied} | "
                 + " | ".join(_rank(ranks.get(lab)) for lab in learners) + " |")
    if raw and raw != ranks:
        lines.append("| average rank (every difference) | "
                     + " | ".join(_rank(raw.get(lab)) for lab in learners) + " |")
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
    """The stream x learner table for LaTeX (``\\usepackage{booktabs}``), best in bold.

    >>> data = {"measure": "accuracy", "comparison": {"learners": ["ht_1"], "streams": ["s"],
    ...     "values": [[0.9]], "spread": [[0.01]], "average_ranks": {"ht_1": 1.0}}}
    >>> print(results_latex(data).splitlines()[4])
    s & $\\mathbf{0.9000 \\pm 0.0100}$ \\\\
    """
    learners, streams, _, best = _cells(data)
    c = data["comparison"]
    lines = [
        r"\begin{tabular}{l" + "r" * len(learners) + "}",
        r"\toprule",
        "stream & " + " & ".join(_tex(lab) for lab in learners) + r" \\",
        r"\midrule",
    ]
    for s, row, sd, b in zip(streams, c["values"], c["spread"], best, strict=True):
        shown = []
        for v, e, is_best in zip(row, sd, b, strict=True):
            body = f"{v:.4f} \\pm {e:.4f}" if e is not None else f"{v:.4f}"
            shown.append(f"$\\mathbf{{{body}}}$" if is_best else f"${body}$")
        lines.append(f"{_tex(s)} & " + " & ".join(shown) + r" \\")
    ranks = c["average_ranks"]
    lines += [
        r"\midrule",
        "average rank & " + " & ".join(_rank(ranks.get(lab)) for lab in learners) + r" \\",
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
    """What the suite ranks: the measure, over which rows (its forgetting), and how ties are
    counted; each run's own verdicts and tables keep that run's forgetting."""
    c = data["comparison"]
    measure = data.get("measure", "accuracy")
    forgetting = (data.get("config") or {}).get("forgetting", "cumulative")
    run = ((data.get("config") or {}).get("run") or {}).get("forgetting")
    rows = ("over all rows (cumulative)" if forgetting == "cumulative"
            else f"under {forgetting} forgetting")
    text = f"Final {measure} per stream {rows}, mean ± sd over folds"
    if run and run != forgetting:
        text += f" (each run's own tables and verdicts use its {run} forgetting)"
    if c.get("ranks_tie_within_rope"):
        text += (f"; in the ranks, two learners within ± {c['rope']} of each other on a stream "
                 "tie (the Bayesian test's region of practical equivalence)")
    return text


def suite_markdown(data: dict[str, Any]) -> str:
    """``suite.md``: the results table and every cross-stream test."""
    c = data["comparison"]
    n, k = len(c["streams"]), len(c["learners"])
    out = [
        f"# Suite: {k} learners on {n} streams",
        "",
        f"{ranked_on(data)}. Best in bold{_lowest(c)}; rank 1 is best.",
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
            f"## Bayesian signed-rank test (ROPE ± {c['rope']})",
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
    measure = data.get("measure", "accuracy")
    return (
        "% needs \\usepackage{booktabs}\n"
        f"% final {measure}, mean $\\pm$ sd over folds; best per stream in bold\n"
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
