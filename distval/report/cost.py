"""The report's cost-over-rows figure: each learner's CPU seconds and model bytes (its folds
summed, from ``cost.parquet``) against the stream's rows, drawn beside the cost table.

>>> import tempfile, distval
>>> from distval.results import load_results
>>> d = tempfile.mkdtemp()
>>> _ = distval.evaluate(stream="sea", n_rows=1000, learners=("nb", "majority"), n_folds=2,
...                      test_every=500, output_dir=d, overwrite=True)
>>> fig = plot_cost(load_results(d))
>>> [ax.get_ylabel() for ax in fig.axes]
['CPU seconds (its folds summed)', 'model size, MB (its folds summed)']
>>> fig.axes[0].get_lines()[0].get_xdata().tolist()
[500, 1000]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from distval.report.figures import _ROWS, _figure, _legend_outside, _style

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from distval.results import SavedRun

__all__ = ["plot_cost"]


def plot_cost(res: SavedRun) -> Figure | None:
    """Two panels against the stream's rows (the test positions): each learner's thread CPU
    seconds and its model bytes in MB, both summed over its folds (a position where a fold's
    size was not measured is left out, never drawn as 0); None without a cost table."""
    cost = res.cost
    if cost is None or not len(cost):
        return None
    fig = _figure(10, 3.8)
    cpu_ax, mem_ax = fig.subplots(1, 2, sharex=True)
    labels = [lab for lab in res.labels if lab in set(cost["learner"])]
    for i, label in enumerate(labels):
        by = cost[cost["learner"] == label].groupby("position", sort=True)
        folds = int(by["fold"].nunique().max())
        x = np.asarray(by["cpu"].sum().index, dtype=np.int64)
        cpu = by["cpu"].sum().to_numpy(float)
        size = by["bytes"].sum(min_count=folds).to_numpy(float) / 1e6
        style = _style(i, len(x))
        cpu_ax.plot(x, cpu, label=label, **style)
        mem_ax.plot(x, size, label=label, **style)
    cpu_ax.set_ylabel("CPU seconds (its folds summed)")
    mem_ax.set_ylabel("model size, MB (its folds summed)")
    for ax in (cpu_ax, mem_ax):
        ax.set_xlabel(_ROWS)
        ax.grid(alpha=0.3)
    _legend_outside(mem_ax, fontsize=8)
    fig.suptitle("What each learner cost over the stream (its replicas' own work)")
    return fig
