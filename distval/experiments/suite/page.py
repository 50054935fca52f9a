"""``suite.html``: a suite's page, like a run's ``report.html``.

One self-contained HTML file (no network): what the suite ranks (the measure, its
forgetting, its unit, the one rank rule: ties within the ROPE, what bold means), the stream
x learner table with its one average-rank row, the Friedman line, the Wilcoxon/Holm and
Bayesian signed-rank tables, and the critical-difference diagram and rank plot as PNG data
URIs. It is written from ``suite.json``'s content alone, with the run report's style sheet
and PNG encoding (:mod:`distval.report`).

>>> data = {"measure": "accuracy", "comparison": {
...     "learners": ["a", "b"], "streams": ["s", "t"], "values": [[0.9, 0.8], [0.7, 0.75]],
...     "spread": [[0.01, 0.02], [0.0, 0.01]], "alpha": 0.05, "rope": 0.01,
...     "average_ranks": {"a": 1.5, "b": 1.5}, "friedman": None,
...     "wilcoxon_holm": [], "bayesian_signed_rank": []}}
>>> page = suite_html(data, figures=False)
>>> page.startswith("<!DOCTYPE html>"), page.count("<table")
(True, 1)
"""

from __future__ import annotations

import base64
from html import escape
from pathlib import Path
from typing import Any

from distval.files import write_file

__all__ = ["suite_html", "write_suite_page"]


def _table(columns: list[str], rows: list[list[str]], bold: list[list[bool]] | None = None) -> str:
    ths = "".join(f"<th>{escape(c)}</th>" for c in columns)
    trs = []
    for i, r in enumerate(rows):
        cells = []
        for j, v in enumerate(r):
            text = escape(v)
            if bold is not None and i < len(bold) and 0 < j <= len(bold[i]) and bold[i][j - 1]:
                text = f"<b>{text}</b>"
            cells.append(f"<td>{text}</td>")
        trs.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><thead><tr>{ths}</tr></thead><tbody>{''.join(trs)}</tbody></table>"


def _section(title: str, caption: str, body: str) -> str:
    return (f"<section><h2>{escape(title)}</h2><p class=\"caption\">{escape(caption)}</p>"
            f"{body}</section>")


def suite_html(data: dict[str, Any], figures: bool = True) -> str:
    """The page of a suite whose ``suite.json`` holds ``data``."""
    from distval.experiments.suite.tables import (
        _cells,
        _iman_davenport,
        _p,
        _p_is,
        rank_row,
        ranked_on,
    )
    from distval.experiments.suite.units import rope_words
    from distval.report.page import _CSS

    c = data["comparison"]
    learners, streams, cells, best = _cells(data)
    title = f"Suite: {len(learners)} learners on {len(streams)} streams"
    rows = [[s, *row] for s, row in zip(streams, cells, strict=True)]
    name, ranks, top = rank_row(data)
    rows.append([name, *ranks])
    parts = [_section("Results", f"{ranked_on(data)}.",
                      _table(["stream", *learners], rows, [*best, top]))]
    fr = c.get("friedman")
    if fr:
        verdict = "reject" if fr["reject"] else "do not reject"
        parts.append(_section(
            "Friedman test", "On the ranks above (Demšar 2006, §3.2.2).",
            f"<p>chi² = {fr['chi2']:.3f} ({escape(_p_is(fr['pvalue']))}); "
            f"{escape(_iman_davenport(fr))}: {verdict} equal performance at alpha = "
            f"{fr['alpha']}. Nemenyi critical difference CD = {fr['critical_difference']:.3f}."
            "</p>"))
    if c.get("wilcoxon_holm"):
        parts.append(_section(
            "Wilcoxon signed-rank per pair, Holm-corrected", "Over the streams' final values.",
            _table(["A", "B", "wins A", "wins B", "p", "p (Holm)", "differ"],
                   [[w["a"], w["b"], str(w["wins_a"]), str(w["wins_b"]), _p(w["pvalue"]),
                     _p(w["pvalue_holm"]), "yes" if w["reject"] else "no"]
                    for w in c["wilcoxon_holm"]])))
    if c.get("bayesian_signed_rank"):
        parts.append(_section(
            f"Bayesian signed-rank test (ROPE {rope_words(data)})",
            "The same region of practical equivalence ties the ranks above.",
            _table(["A", "B", "P(A better)", "P(equivalent)", "P(B better)"],
                   [[b["a"], b["b"], f"{b['p_a']:.3f}", f"{b['p_rope']:.3f}",
                     f"{b['p_b']:.3f}"] for b in c["bayesian_signed_rank"]])))
    if figures:
        from distval.experiments.suite.figures import plot_cd, plot_ranks
        from distval.report.figures import png_bytes

        for name, fig in (("Critical-difference diagram", plot_cd(data)),
                          ("Rank per stream", plot_ranks(data))):
            if fig is None:
                continue
            uri = base64.b64encode(png_bytes(fig)).decode("ascii")
            parts.append(f"<section><h2>{escape(name)}</h2><figure><img alt=\"{escape(name)}\" "
                         f"src=\"data:image/png;base64,{uri}\"></figure></section>")
    from distval.experiments.suite.cost import cost_sections

    parts += cost_sections(data, figures)
    missing = [s["name"] for s in data.get("streams", []) if not s.get("done")]
    if missing:
        parts.append(f"<p>Not finished yet: {escape(', '.join(missing))}.</p>")
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{escape(title)}'
        f"</title><style>{_CSS}</style></head><body><h1>{escape(title)}</h1>"
        + "\n".join(parts) + "</body></html>\n"
    )


def write_suite_page(out: Path, data: dict[str, Any]) -> Path:
    """Write ``suite.html`` into ``out`` (atomically) and return its path."""
    return write_file(Path(out) / "suite.html", suite_html(data))
