"""A grid's results: its decisions, Tables 2-4 beside the paper's, the peeking tables, files.

Tables 2-4 are bifet2015 §4.1's (:func:`distval.experiments.bifet2015.tables`): the decision
at the end of the stream. The peeking tables add, over the cells that recorded every look
(cells written before per-look recording have none and are left out of them):

- *fixed alpha, at the end*: Table 2's decision, over the same cells;
- *fixed alpha, ever*: rejected at any look, what a user who watches the live p-value and
  stops at its first rejection experiences;
- *alpha spending*: O'Brien-Fleming-type Lan-DeMets boundaries over the stream's rows;
- *e-value*: the settled-sign e-process
  (:class:`~distval.statistics.sequential.SettledSignEProcess`).

The last two stay rejected once they reject, so at the end equals ever for them.

>>> import pandas as pd
>>> d = pd.DataFrame({"stream": ["S", "S"], "run": [0, 1], "scheme": "cv",
...                   "prequential": True, "pnoise": 0.0, "test": "sign",
...                   "reject": [False, False], "ever_reject": [True, False],
...                   "spending_reject": [False, False]})
>>> t = peeking_tables(d, pnoise=(), schemes=("cv",))["peeking"]
>>> float(t.set_index("row").loc["sign prequential: fixed alpha, ever", "ours"])
0.5
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from distval.experiments import bifet2015 as paper
from distval.experiments.type_errors.profiles import TESTS, GridConfig
from distval.results import markdown_table
from distval.statistics.comparison import EVALUE_TEST

__all__ = ["GRID_FILES", "RULES", "GridResult", "collect", "peeking_tables", "write"]

#: The files a grid writes into its output directory.
GRID_FILES = (
    "grid.json",
    "cells.jsonl",
    "table2.csv",
    "table3.csv",
    "table4.csv",
    "peeking.csv",
    "peeking_summary.csv",
    "decisions.csv",
    "tables.md",
    *(f"{chart}.{fmt}" for chart in ("type_errors", "peeking") for fmt in ("png", "svg", "pdf")),
)
#: The chart formats a grid writes: PNG for the page, SVG and PDF for print.
CHART_FORMATS = ("png", "svg", "pdf")

#: Decision rules of the peeking tables: (label, decisions column, tests it applies to).
RULES = (
    ("fixed alpha, at the end", "reject", TESTS),
    ("fixed alpha, ever", "ever_reject", TESTS),
    ("alpha spending", "spending_reject", TESTS),
    ("e-value", "reject", (EVALUE_TEST,)),
)
#: Columns of ``decisions.csv`` (the per-look lists stay in ``cells.jsonl``).
_LISTS = ("pvalues", "decisions")


@dataclass
class GridResult:
    """Outcome of a grid: per-cell decisions and the tables beside the paper's values."""

    config: GridConfig
    cells: pd.DataFrame
    decisions: pd.DataFrame
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    output_dir: Path | None = None

    def to_markdown(self) -> str:
        return _markdown(self)


def collect(
    config: GridConfig, cells: list[dict[str, Any]], output_dir: Path | None
) -> GridResult:
    """The decisions of finished cells (any version of ``cells.jsonl``) and their tables."""
    columns = ["stream", "run", "scheme", "n_rows", "n_classes", "seconds", "cpu_seconds"]
    meta = pd.DataFrame([{k: c.get(k, np.nan) for k in columns} for c in cells], columns=columns)
    rows = [
        {"stream": c["stream"], "run": c["run"], "scheme": c["scheme"]}
        | {k: v for k, v in r.items() if k not in _LISTS}
        for c in cells
        for r in c["results"]
    ]
    decisions = pd.DataFrame(rows)
    result = GridResult(config, meta, decisions, output_dir=output_dir)
    if len(decisions):
        fixed = decisions[decisions["test"].isin(TESTS)]
        result.tables = paper.tables(
            fixed,
            meta,
            pnoise=config.pnoise,
            schemes=config.schemes,
            streams=[label for label, _ in config.streams],
        )
        result.tables |= peeking_tables(decisions, pnoise=config.pnoise, schemes=config.schemes)
    return result


def _fraction(part: pd.DataFrame, column: str) -> float:
    """Mean over streams of the fraction of runs rejecting (as bifet2015's Table 2)."""
    if not len(part):
        return float("nan")
    return float(part[column].astype(float).groupby(part["stream"]).mean().mean())


def peeking_tables(
    decisions: pd.DataFrame, *, pnoise: tuple[float, ...], schemes: tuple[str, ...]
) -> dict[str, pd.DataFrame]:
    """``peeking``: per (test, variant, rule) and (pnoise, scheme) the fraction of runs
    rejecting H0 (mean over streams), with the cells counted; ``peeking_summary``: per
    (test, rule) averaged over the schemes and both variants. Empty without per-look rows.
    """
    if "ever_reject" not in decisions.columns:
        return {}
    d = decisions[decisions["ever_reject"].notna()]
    if not len(d):
        return {}
    changes = (0.0, *pnoise)
    long, short = [], []
    for label, column, tests in RULES:
        for test in tests:
            name = "sign e-value" if test == EVALUE_TEST else test
            sel = d[d["test"] == test]
            for prequential in (False, True):
                variant = sel[sel["prequential"] == prequential]
                row = f"{name} {'prequential' if prequential else 'non-prequential'}: {label}"
                for change in changes:
                    for scheme in schemes:
                        part = variant[np.isclose(variant["pnoise"], change)
                                       & (variant["scheme"] == scheme)]
                        long.append({"row": row, "pnoise": change, "scheme": scheme,
                                     "ours": _fraction(part, column), "cells": len(part)})
            for change in changes:
                part = sel[np.isclose(sel["pnoise"], change)]
                groups = [g for _, g in part.groupby(["prequential", "scheme"])]
                value = np.mean([_fraction(g, column) for g in groups]) if groups else np.nan
                short.append({"test": name, "rule": label, "pnoise": change,
                              "ours": float(value), "cells": len(part)})
    return {"peeking": pd.DataFrame(long), "peeking_summary": pd.DataFrame(short)}


def _wide(frame: pd.DataFrame, rows: str, digits: int = 2) -> pd.DataFrame:
    """One row per ``rows`` value, one column per (pnoise, scheme) or pnoise."""
    cols = ["pnoise", "scheme"] if "scheme" in frame.columns else ["pnoise"]
    f = frame.assign(
        col=[
            " ".join([("no change" if c == 0 else f"pnoise={c:.2f}"), *rest])
            for c, *rest in frame[cols].itertuples(index=False)
        ],
        text=["–" if not np.isfinite(v) else f"{v:.{digits}f}" for v in frame["ours"]],
    )
    wide = f.pivot(index=rows, columns="col", values="text")
    return wide.loc[list(dict.fromkeys(f[rows])), list(dict.fromkeys(f["col"]))]


def _table(frame: pd.DataFrame, digits: int = 2) -> str:
    return paper.markdown_table(paper.wide(frame, digits))


def _peeking_markdown(result: GridResult) -> list[str]:
    if "peeking" not in result.tables:
        return []
    summary = result.tables["peeking_summary"].copy()
    summary["test / rule"] = summary["test"] + ": " + summary["rule"]
    looked = result.decisions.dropna(subset=["ever_reject"])
    n_cells = len(looked.drop_duplicates(["stream", "run", "scheme"]))
    return [
        "## Peeking: decisions at every look",
        "",
        f"Over the {n_cells} of {len(result.cells)} cells that recorded the decision at each "
        f"of their {result.config.looks} looks (equally spaced over the stream; fractions "
        "of runs rejecting H0, mean over streams). 'no change' columns: type I error rates; "
        "'pnoise' columns: power. 'fixed alpha, ever': rejected at some look, what a user who "
        "stops at the first live rejection gets; 'alpha spending' (O'Brien-Fleming-type, "
        "Lan-DeMets) and 'e-value' (the settled-sign e-process) stay valid at every look.",
        "",
        "Averaged over the schemes and both variants:",
        "",
        markdown_table(*_frame_rows(_wide(summary, "test / rule"))),
        "",
        "Per scheme and variant:",
        "",
        markdown_table(*_frame_rows(_wide(result.tables["peeking"], "row"))),
        "",
    ]


def _frame_rows(frame: pd.DataFrame) -> tuple[list[str], list[list[Any]]]:
    return ["", *frame.columns], [[idx, *row.tolist()] for idx, row in frame.iterrows()]


def _markdown(result: GridResult) -> str:
    cfg = result.config
    n_cells = len(result.cells)
    rows = cfg.n_rows if cfg.n_rows is not None else f"whole files, {cfg.synthetic_rows} generated"
    lines = [
        "# Type I / type II errors (bifet2015 §4.1, Tables 2-4)",
        "",
        f"Learner `{cfg.learner}`, {cfg.n_folds} folds, alpha = {cfg.alpha}, "
        f"{cfg.runs} runs per stream, rows per stream: "
        f"{rows}"
        f"; {n_cells} cells. Each entry: ours (paper). 'no change' columns are type I error "
        "rates (lower is better); 'pnoise' columns are power, 1 - type II error (higher is "
        "better). Times are wall seconds of one pass, which serves both variants.",
        "",
    ]
    labels = [label for label, _ in cfg.streams]
    if set(labels) != set(paper.PAPER_STREAMS):
        lines += [
            f"Streams run: {', '.join(labels)} ({len(labels)} of the paper's "
            f"{len(paper.PAPER_STREAMS)}). Table 2's values in parentheses are the paper's "
            f"averages over all of the paper's {len(paper.PAPER_STREAMS)} streams, ours over "
            f"these {len(labels)}; the Average rows of Tables 3 and 4 give the paper's mean "
            "over the same streams as ours.",
            "",
        ]
    for name in ("table2", "table3", "table4"):
        frame = result.tables.get(name)
        if frame is None:
            continue
        if name == "table2":
            timing = frame[frame.row.str.startswith("avg time")]
            body = frame[~frame.row.str.startswith("avg time")]
            lines += [f"## {paper.TITLES[name]}", "", _table(body), ""]
            lines += ["Average wall time per cell (s):", "", _table(timing, 1), ""]
            continue
        lines += [f"## {paper.TITLES[name]}", "", _table(frame), ""]
    return "\n".join(lines + _peeking_markdown(result))


def _chart(result: GridResult, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t2 = result.tables["table2"]
    t2 = t2[~t2.row.str.startswith("avg time")]
    changes = list(dict.fromkeys(t2.pnoise))
    rows = list(dict.fromkeys(t2.row))
    schemes = list(result.config.schemes)
    fig, axes = plt.subplots(
        1, len(changes), figsize=(5 * len(changes), 4.8), sharey=True, layout="constrained"
    )
    axes = np.atleast_1d(axes)
    width = 0.8 / len(schemes)
    x = np.arange(len(rows))
    for ax, change in zip(axes, changes):
        part = t2[np.isclose(t2.pnoise, change)]
        for i, scheme in enumerate(schemes):
            s = part[part.scheme == scheme].set_index("row").loc[rows]
            ax.bar(x + (i - (len(schemes) - 1) / 2) * width, s.ours, width, label=scheme)
            ax.plot(
                x + (i - (len(schemes) - 1) / 2) * width,
                s.paper,
                "k_",
                markersize=10,
                label="paper" if i == 0 else None,
            )
        ax.set_xticks(
            x,
            [
                r.replace(" non-prequential", "\nnon-preq.").replace(" prequential", "\npreq.")
                for r in rows
            ],
            fontsize=7,
        )
        kind = "type I error" if change == 0 else f"power (pnoise={change:.2f})"
        ax.set_title(f"{'no change' if change == 0 else 'change'}: {kind}")
        ax.set_ylim(0, 1.05)
        if change == 0:
            ax.axhline(result.config.alpha, color="grey", lw=0.8, ls="--")
    axes[0].set_ylabel("fraction of runs rejecting H0")
    handles, names = axes[-1].get_legend_handles_labels()
    fig.legend(handles, names, loc="outside lower center", ncol=len(names), fontsize=8)
    _save(fig, path)
    plt.close(fig)


def _save(fig: Any, path: Path) -> None:
    """The chart as PNG (``path``) and beside it as SVG and PDF (:data:`CHART_FORMATS`)."""
    for fmt in CHART_FORMATS:
        fig.savefig(path.with_suffix(f".{fmt}"), format=fmt, dpi=110)


def _peeking_chart(result: GridResult, path: Path) -> None:
    """Type I error and power per test under each rule (averaged over schemes, variants)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    s = result.tables["peeking_summary"]
    changes = list(dict.fromkeys(s.pnoise))
    labels = [r[0] for r in RULES]
    fig, axes = plt.subplots(
        1, len(changes), figsize=(4.6 * len(changes), 4.6), sharey=True, layout="constrained"
    )
    axes = np.atleast_1d(axes)
    tests = list(dict.fromkeys(s.test))
    width = 0.8 / len(labels)
    for ax, change in zip(axes, changes):
        part = s[np.isclose(s.pnoise, change)]
        for i, label in enumerate(labels):
            vals = [part[(part.test == t) & (part.rule == label)].ours for t in tests]
            y = [float(v.iloc[0]) if len(v) else np.nan for v in vals]
            ax.bar(np.arange(len(tests)) + (i - (len(labels) - 1) / 2) * width, y, width,
                   label=label, hatch=["", "//", "..", "xx"][i], edgecolor="k", lw=0.4)
        ax.set_xticks(np.arange(len(tests)), tests, fontsize=8)
        ax.set_ylim(0, 1.05)
        if change == 0:
            ax.axhline(result.config.alpha, color="k", lw=0.9, ls="--")
            ax.set_title("no change: type I error")
        else:
            ax.set_title(f"power (pnoise={change:.2f})")
    axes[0].set_ylabel("fraction of runs rejecting H0")
    handles, names = axes[0].get_legend_handles_labels()
    fig.legend(handles, names, loc="outside lower center", ncol=len(names), fontsize=7)
    _save(fig, path)
    plt.close(fig)


def write(result: GridResult) -> None:
    """Write the tables (CSV, Markdown), ``decisions.csv`` and the charts (PNG, SVG, PDF)."""
    out = result.output_dir
    if out is None:
        return
    for name, frame in result.tables.items():
        frame.to_csv(out / f"{name}.csv", index=False)
    result.decisions.to_csv(out / "decisions.csv", index=False)
    (out / "tables.md").write_text(result.to_markdown())
    _chart(result, out / "type_errors.png")
    if "peeking_summary" in result.tables:
        _peeking_chart(result, out / "peeking.png")
