"""A grid's charts and files: Table 2 beside the paper's (``type_errors``), the peeking
rules (``peeking``) and every cell of Tables 2-4 against the paper (``paper_vs_distval``),
each as PNG, SVG and PDF, and :func:`write`, which saves a grid's tables and charts.

>>> from distval.experiments.type_errors.tables import CHART_FORMATS
>>> CHART_FORMATS
('png', 'svg', 'pdf')
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from distval.experiments.type_errors.tables import CHART_FORMATS, RULES, GridResult
from distval.files import replacing, write_file


def type_errors_chart(result: GridResult, path: Path) -> None:
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
    save(fig, path)
    plt.close(fig)


def save(fig: Any, path: Path) -> None:
    """The chart as PNG (``path``) and beside it as SVG and PDF (:data:`CHART_FORMATS`)."""
    for fmt in CHART_FORMATS:
        with replacing(path.with_suffix(f".{fmt}")) as fh:
            fig.savefig(fh, format=fmt, dpi=110)


def peeking_chart(result: GridResult, path: Path) -> None:
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
    save(fig, path)
    plt.close(fig)


def write(result: GridResult) -> None:
    """Write the tables (CSV, Markdown), ``decisions.csv`` and the charts (PNG, SVG, PDF)."""
    out = result.output_dir
    if out is None:
        return
    for name, frame in result.tables.items():
        write_file(out / f"{name}.csv", frame.to_csv(index=False))
    write_file(out / "decisions.csv", result.decisions.to_csv(index=False))
    write_file(out / "tables.md", result.to_markdown())
    type_errors_chart(result, out / "type_errors.png")
    if "paper_vs_distval" in result.tables:
        paper_chart(result, out / "paper_vs_distval.png")
    if "peeking_summary" in result.tables:
        peeking_chart(result, out / "peeking.png")


def paper_chart(result: GridResult, path: Path) -> None:
    """distval against the paper, one point per cell of Tables 2-4, odd cells marked."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t = result.tables["paper_vs_distval"]
    t = t[t["distval"].notna()]
    fig, ax = plt.subplots(figsize=(6, 6), layout="constrained")
    styles = {"table2": ("o", "C0"), "table3": ("s", "C1"), "table4": ("^", "C2")}
    for name, (marker, color) in styles.items():
        part = t[(t["table"] == name) & (t["odd"] == "")]
        kinds = np.where(part["pnoise"] == 0, "none", color)
        ax.scatter(part["paper"], part["distval"], marker=marker, s=22,
                   facecolors=kinds, edgecolors=color, label=f"{name} (hollow: type I)")
    odd = t[t["odd"] != ""]
    ax.scatter(odd["paper"], odd["distval"], marker="x", color="k", s=40,
               label="the paper's odd cells")
    ax.plot([0, 1], [0, 1], color="grey", lw=0.8, ls="--")
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.02, 1.02)
    cfg = result.config
    ran = result.decisions["stream"].nunique()
    ax.set_title(f"bifet2015 Tables 2-4 against distval: {ran} of the paper's 13 streams, "
                 f"{cfg.runs} runs, {cfg.n_rows or 'whole'} rows, noise on {cfg.noise_on}",
                 fontsize=9)
    ax.set_xlabel("paper (fraction of runs rejecting H0)")
    ax.set_ylabel("distval")
    ax.legend(fontsize=7, loc="upper left")
    save(fig, path)
    plt.close(fig)

