"""The report of a regression run: its measures over time in the target's units, each pair's
verdict sequence, and the summary (``distval report`` on a regression run's directory).

Figures (each with its caption in ``report.md`` and ``report.html``):

- ``rmse``, ``mae``: every learner's error under the run's forgetting, mean over folds with
  a band of ± one standard deviation, in the target's units; the mean and persistent
  baselines' RMSE over the same rows, dashed, on the RMSE figure;
- ``r2``: R² (the share of the target's variance over the window that the learner
  explains; 1 is perfect, 0 is the window's own mean);
- ``verdict``: per pair, the running mean of the per-row sign of the error difference
  (points of rows on which A is closer, less those on which B is) with its confidence
  sequence.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
from matplotlib.figure import Figure

from distval.errors import DistvalError
from distval.report.figures import png_bytes, save_figure
from distval.results.regression import is_regression_run

__all__ = ["is_regression_run", "make_regression_report", "plot_regression_measure",
           "plot_regression_verdicts"]

#: Each figure's y axis, in the measure's units.
_AXES = {
    "rmse": "RMSE (target units)",
    "mae": "MAE (target units)",
    "r2": "R² (share of variance explained)",
}
_ROWS = "stream position (rows)"


def plot_regression_measure(folds: pd.DataFrame, measure: str, forgetting: str,
                            labels: Sequence[str]) -> Figure:
    """One learner per line: ``measure`` over the stream, mean over folds ± one sd.

    >>> df = pd.DataFrame({"position": [1, 1, 2, 2], "learner": ["a"] * 4, "fold": [0, 1] * 2,
    ...                    "forgetting": ["adwin"] * 4, "rmse": [1.0, 2.0, 1.0, 1.0],
    ...                    "rmse_mean": [3.0] * 4, "rmse_per": [2.5] * 4})
    >>> plot_regression_measure(df, "rmse", "adwin", ["a"]).axes[0].get_ylabel()
    'RMSE (target units)'
    """
    fig = Figure(figsize=(7.5, 3.6), layout="constrained")
    ax = fig.subplots()
    df = folds[folds["forgetting"] == forgetting]
    for label in labels:
        g = df[df["learner"] == label].groupby("position")[measure]
        mean, sd = g.mean(), g.std(ddof=1).fillna(0.0)
        (line,) = ax.plot(mean.index, mean.to_numpy(), lw=1.2, label=label)
        ax.fill_between(mean.index, mean - sd, mean + sd, color=line.get_color(), alpha=0.15)
    if measure == "rmse" and len(labels):
        first = df[df["learner"] == labels[0]].groupby("position")
        for name, words in (("rmse_mean", "mean baseline"), ("rmse_per", "persistent baseline")):
            base = first[name].mean()
            ax.plot(base.index, base.to_numpy(), ls="--", lw=0.9, color="grey" if
                    name == "rmse_mean" else "black", label=words)
    ax.set_xlabel(_ROWS)
    ax.set_ylabel(_AXES.get(measure, measure))
    ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.0, 0.5), frameon=False)
    return fig


def plot_regression_verdicts(verdicts: pd.DataFrame) -> Figure | None:
    """Per pair, the running mean of the per-row sign of ``|e_B| - |e_A|`` (points of
    rows) and its confidence sequence; None without pairs."""
    if verdicts.empty:
        return None
    fig = Figure(figsize=(7.5, 3.4), layout="constrained")
    ax = fig.subplots()
    for (a, b), g in verdicts.groupby(["learner_a", "learner_b"], sort=False):
        (line,) = ax.plot(g["position"], 100 * g["mean"], lw=1.2, label=f"{a} vs {b}")
        ax.fill_between(g["position"], 100 * g["lower"], 100 * g["upper"],
                        color=line.get_color(), alpha=0.2)
    ax.axhline(0.0, color="black", lw=0.7)
    ax.set_xlabel(_ROWS)
    ax.set_ylabel("A closer − B closer (points of rows)")
    ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.0, 0.5), frameon=False)
    return fig


def make_regression_report(
    results_dir: str | os.PathLike[str],
    out_dir: str | os.PathLike[str] | None = None,
    *,
    formats: Sequence[str] = ("png",),
    dpi: int | None = None,
) -> Path:
    """Write the figures, ``report.md`` and ``report.html`` of a regression run's directory;
    returns the path of ``report.html``."""
    d = Path(results_dir)
    try:
        config = json.loads((d / "config.json").read_text())
        summary = json.loads((d / "summary.json").read_text())
        folds = pq.read_table(d / "folds.parquet").to_pandas()
        verdicts = (pq.read_table(d / "verdicts.parquet").to_pandas()
                    if (d / "verdicts.parquet").exists() else pd.DataFrame())  # one learner
    except (OSError, ValueError) as exc:
        raise DistvalError(f"{d} is not a finished regression run: {exc}") from None
    out = Path(out_dir) if out_dir is not None else d
    out.mkdir(parents=True, exist_ok=True)
    labels = list(config.get("labels") or [])
    forgetting = str(config.get("forgetting", "adwin"))
    k = config.get("n_folds")
    over = f"mean over {k} folds ± one standard deviation, {forgetting} forgetting"
    figures: list[tuple[str, Figure | None, str]] = [
        ("rmse", plot_regression_measure(folds, "rmse", forgetting, labels),
         f"RMSE over the stream in the target's units ({over}); dashed: the mean and "
         "persistent baselines' RMSE over the first learner's rows."),
        ("mae", plot_regression_measure(folds, "mae", forgetting, labels),
         f"MAE over the stream in the target's units ({over})."),
        ("r2", plot_regression_measure(folds, "r2", forgetting, labels),
         f"R² over the stream: the share of the target's variance over each window that the "
         f"learner explains; 0 is the window's own mean ({over})."),
        ("verdict", plot_regression_verdicts(verdicts),
         "Per pair, points of rows on which A's prediction is closer less those on which B's "
         "is, with its confidence sequence (valid at every look; docs/regression.md)."),
    ]
    md = [f"# Regression run: {config.get('stream')}", "", "```text",
          (d / "summary.md").read_text().strip("`\n") if (d / "summary.md").is_file() else "",
          "```", ""]
    html = [f"<html><head><meta charset='utf-8'><title>{config.get('stream')}</title></head>"
            f"<body><h1>Regression run: {config.get('stream')}</h1><pre>"]
    html.append(md[3].replace("&", "&amp;").replace("<", "&lt;") + "</pre>")
    for name, fig, caption in figures:
        if fig is None:
            continue
        for fmt in dict.fromkeys(("png", *formats)):  # the page shows the PNG
            path = out / f"{name}.{fmt}"
            if fmt == "png" and dpi is None:
                path.write_bytes(png_bytes(fig))
            else:
                save_figure(fig, path, fmt, dpi or 150)
        md += [f"![{name}]({name}.png)", "", caption, ""]
        html.append(f"<figure><img src='{name}.png'><figcaption>{caption}</figcaption></figure>")
    md.append(f"{summary.get('rows', 0):,} rows.")
    (out / "report.md").write_text("\n".join(md) + "\n")
    page = out / "report.html"
    page.write_text("\n".join([*html, "</body></html>"]) + "\n", encoding="utf-8")
    return page
