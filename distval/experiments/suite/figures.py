"""A suite's figures (matplotlib, no display): the critical-difference diagram over streams
and a rank plot, each as SVG and PDF, drawn from ``suite.json``'s content alone. Both show
the suite's one rank rule (ties within the ROPE), the ranks of its table.

>>> data = {"comparison": {"learners": ["a", "b", "c"], "streams": ["s", "t"],
...     "values": [[0.9, 0.8, 0.7], [0.8, 0.85, 0.6]], "alpha": 0.05, "rope": 0.01,
...     "average_ranks": {"a": 1.5, "b": 1.5, "c": 3.0}, "friedman": None}}
>>> len(plot_ranks(data).axes), len(plot_cd(data).axes)
(1, 1)
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from distval.experiments.suite.statistics import stream_ranks
from distval.experiments.suite.units import rope_words
from distval.report.figures import save_figure
from distval.report.significance import draw_critical_difference
from distval.statistics.friedman import nemenyi_critical_difference

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["plot_cd", "plot_ranks", "write_figures"]


def plot_cd(data: dict[str, Any]) -> Figure | None:
    """Demšar's critical-difference diagram of the learners' average ranks over the streams
    (Nemenyi's CD at the suite's alpha); None with fewer than 2 streams or learners."""
    c = data["comparison"]
    learners, n = c["learners"], len(c["streams"])
    if n < 2 or len(learners) < 2:
        return None
    ranks = [c["average_ranks"][lab] for lab in learners]
    fr = c.get("friedman")
    alpha = float(c.get("alpha", 0.05))
    cd = (
        fr["critical_difference"]
        if fr
        else nemenyi_critical_difference(len(learners), n, alpha=alpha)
    )
    title = (f"Average ranks over {n} streams (1 = best; within {rope_words(data)}: tied); "
             f"Nemenyi CD at alpha = {alpha}")
    if fr:
        verdict = "rejects" if fr["reject"] else "does not reject"
        title += f"; Friedman (Iman–Davenport) {verdict}"
    return draw_critical_difference(ranks, list(learners), float(cd), title)


def plot_ranks(data: dict[str, Any]) -> Figure:
    """Each learner's rank on every stream (1 = best, at the top; ties within the ROPE share
    their mean rank), its average rank, the table's, as a dashed line."""
    from matplotlib.figure import Figure

    c = data["comparison"]
    learners, streams = c["learners"], c["streams"]
    ranks = stream_ranks(c).reshape(len(streams), len(learners))
    fig = Figure(figsize=(max(5.0, 1.0 + 0.7 * len(streams)), 3.4), layout="constrained")
    ax = fig.subplots()
    x = np.arange(len(streams))
    markers = "osD^v<>ph*"
    for j, lab in enumerate(learners):
        (line,) = ax.plot(x, ranks[:, j], marker=markers[j % len(markers)], lw=0.8, label=lab)
        avg = c["average_ranks"].get(lab)
        if avg is not None:
            ax.axhline(avg, color=line.get_color(), ls="--", lw=0.8)
    ax.set_xticks(x, streams, rotation=30, ha="right", fontsize=8)
    ax.set_ylim(len(learners) + 0.5, 0.5)
    ax.set_yticks(range(1, len(learners) + 1))
    ax.set_ylabel("rank (1 = best)")
    tie = f"within {rope_words(data)}: tied"
    title = f"Rank per stream ({tie}); dashed: average rank"
    if c.get("lower_is_better"):  # an error: rank 1 is the lowest
        title = (f"Rank per stream by final {data.get('measure')} (1 = lowest; {tie}); "
                 "dashed: average rank")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.0, 0.5), frameon=False)
    return fig


def write_figures(
    out: Path, data: dict[str, Any], formats: tuple[str, ...] = ("svg", "pdf")
) -> list[Path]:
    """``cd.<fmt>`` and ``ranks.<fmt>`` in ``out``; returns the files written."""
    written = []
    for name, fig in (("cd", plot_cd(data)), ("ranks", plot_ranks(data))):
        if fig is None:
            continue
        for fmt in formats:
            path = Path(out) / f"{name}.{fmt}"
            save_figure(fig, path, fmt)
            written.append(path)
    return written
