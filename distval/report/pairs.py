"""The report's verdict figures: one per learner pair (matplotlib, Agg).

Each figure shows, over the stream, the pair's paired difference in accuracy (A - B, in
points) of every fold over its paired window (thin lines) and their mean (thick), the running
mean of the per-row difference with its confidence sequence (the band), the margin (dashed)
and, in the title, the verdict at the end.
"""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

import numpy as np
from matplotlib.figure import Figure

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["plot_pair_verdict"]

_FOLD_COLOUR = "#1f4e9c"
_CS_COLOUR = "#c0392b"


def plot_pair_verdict(
    paired: pd.DataFrame, verdicts: pd.DataFrame, a: str, b: str, *, forgetting: str = "adwin",
    measure: str = "accuracy", percent: bool | None = None, sequence: str | None = None,
) -> Figure | None:
    """The paired difference of ``a`` and ``b`` over time with its confidence sequence.

    ``paired`` has the columns position, learner_a, learner_b, fold, difference (the fold's
    difference over its paired window, positive for A: accuracy in points, else in
    ``measure``'s units); ``verdicts`` position, learner_a, learner_b, mean, lower, upper,
    level, margin, line (AUC has no sequence: no band). None when the pair has no rows.
    ``percent``: the differences are shares, drawn in points (default: unless ``measure`` is
    auc, brier or log_loss); ``sequence``: the confidence sequence is another quantity than
    the fold differences (a regression pair's share of rows where A is closer less B's),
    drawn in percent on a second axis with this label.
    """
    if percent is None:
        percent = measure not in ("auc", "brier", "log_loss")
    scale = 100.0 if percent else 1.0
    p = paired[(paired["learner_a"] == a) & (paired["learner_b"] == b)]
    v = verdicts[(verdicts["learner_a"] == a) & (verdicts["learner_b"] == b)]
    if not len(v):
        return None
    v = v.sort_values("position")
    fig = Figure(figsize=(7.2, 4.0), layout="constrained")
    ax = fig.subplots()
    if len(p):
        wide = p.pivot_table(index="position", columns="fold", values="difference",
                             aggfunc="first")
        x = wide.index.to_numpy()
        folds = scale * wide.to_numpy(dtype=float)
        lines = ax.plot(x, folds, color=_FOLD_COLOUR, lw=0.6, alpha=0.35)
        lines[0].set_label(f"single folds ({forgetting} paired window)")
        with np.errstate(all="ignore"):
            ax.plot(x, np.nanmean(folds, axis=1), color=_FOLD_COLOUR, lw=2, marker="o",
                    markevery=max(1, len(x) // 8), ms=4, label="mean of folds")
    xv = v["position"].to_numpy()
    level = float(v["level"].iloc[-1])
    cs_ax, cs_scale = (ax.twinx(), 100.0) if sequence else (ax, scale)
    lower = cs_scale * v["lower"].to_numpy(dtype=float)
    upper = cs_scale * v["upper"].to_numpy(dtype=float)
    if measure != "auc":  # AUC: no per-row loss, no sequence
        cs_ax.fill_between(xv, lower, upper, color=_CS_COLOUR, alpha=0.3, lw=0,
                           label=f"{100 * level:.4g}% confidence sequence")
        for edge in (lower, upper):
            cs_ax.plot(xv, edge, color=_CS_COLOUR, lw=0.7)
        cs_ax.plot(xv, cs_scale * v["mean"].to_numpy(dtype=float), color=_CS_COLOUR, lw=1.6,
                   ls="--", label="running mean, all paired rows")
    if sequence:
        cs_ax.set_ylabel(sequence, color=_CS_COLOUR)
        cs_ax.axhline(0, color=_CS_COLOUR, lw=0.6, ls=":")
        handles = [h for a_ in (ax, cs_ax) for h in a_.get_legend_handles_labels()[0]]
        ax.legend(handles=handles, fontsize=7, loc="best")
    margin = float(v["margin"].iloc[-1])
    ax.axhline(0, color="0.3", lw=0.9)
    if margin > 0:
        for m in (margin, -margin):
            ax.axhline(scale * m, color="0.3", lw=0.9, ls=(0, (4, 3)))
        ax.plot([], [], color="0.3", lw=0.9, ls=(0, (4, 3)),
                label=f"margin ±{scale * margin:g}")
    ax.set_xlabel("stream position (rows)")
    ax.set_ylabel(f"accuracy of {a} − {b} (points)" if scale == 100 else
                  f"{measure} advantage of {a} over {b}")
    ax.grid(alpha=0.3)
    if not sequence:
        ax.legend(fontsize=7, loc="best")
    line = str(v["line"].iloc[-1])
    fig.suptitle("\n".join(textwrap.wrap(line, 90)), fontsize=9)
    return fig
