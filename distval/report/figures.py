"""The report's figures: measures over time, tests, ADWIN widths, baselines (matplotlib, Agg).

Every learner or test has its own line style and marker as well as colour, so that figures
stay readable in grey-scale print.
"""

from __future__ import annotations

import contextlib
import io
import os
import warnings
from typing import IO, TYPE_CHECKING, Any

import numpy as np
from matplotlib.figure import Figure
from numpy.typing import ArrayLike
from PIL import Image

from distval.files import replacing
from distval.learners import parse_learner
from distval.metrics.trackers import MIN_SCORED
from distval.results import SavedRun
from distval.tasks import task_named

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "STYLES",
    "baseline_labels",
    "plot_adwin_width",
    "plot_baselines",
    "plot_forgetting_comparison",
    "plot_measure",
    "plot_q",
    "png_bytes",
    "save_figure",
]


STYLES = (
    ("#1f4e9c", "-", "o"),
    ("#c0392b", "--", "s"),
    ("#1e8449", "-.", "^"),
    ("#7d3c98", ":", "D"),
    ("#b9770e", (0, (5, 1, 1, 1, 1, 1)), "v"),
    ("#17202a", (0, (8, 2)), "x"),
    ("#148f77", (0, (1, 1)), "P"),
    ("#922b21", (0, (3, 1, 1, 1)), "*"),
    ("#5d6d7e", (0, (2, 2)), "h"),
    ("#2e86c1", (0, (6, 1, 1, 1, 1, 1, 1, 1)), "<"),
    ("#6e2c00", (0, (4, 2, 4, 2, 1, 2)), ">"),
    ("#196f3d", (0, (1, 2, 1, 2, 6, 2)), "p"),
)


_BASELINES = ("majority", "persistent")


_ROWS = "stream position (rows)"


def _style(i: int, n_points: int = 0) -> dict[str, Any]:
    colour, ls, marker = STYLES[i % len(STYLES)]
    every = max(1, n_points // 8) if n_points else 1
    return {"color": colour, "linestyle": ls, "marker": marker, "markevery": every, "ms": 5}


def baseline_labels(config: dict[str, Any], labels: list[str]) -> list[str]:
    out = []
    for text, label in zip(config.get("learners") or [], config.get("labels") or []):
        try:
            name = parse_learner(text).name
        except Exception:  # a learner class not importable here: judge by its label
            name = label
        if name in _BASELINES and label in labels:
            out.append(label)
    if not config.get("learners"):
        out = [lab for lab in labels if lab.split("#")[0] in _BASELINES]
    return out


def _figure(width: float, height: float) -> Figure:
    return Figure(figsize=(width, height), layout="constrained")


def _fit(text: str, width: int) -> str:
    """``text`` cut to ``width`` characters with an ellipsis (labels inside the axes).

    >>> _fit("a_very_long_learner_name", 10), _fit("ht", 10)
    ('a_very_lo…', 'ht')
    """
    return text if len(text) <= width else text[: width - 1] + "…"


def _wrap(text: str, width: int) -> str:
    """``text`` broken into lines of at most ``width`` characters (titles with long learner
    names), long words cut as they come.

    >>> print(_wrap("first_learner vs second_learner: p-values", 20))
    first_learner vs
    second_learner:
    p-values
    """
    import textwrap

    return "\n".join(textwrap.wrap(text, width, break_on_hyphens=False)) or text


def _legend_outside(ax: Any, **kw: Any) -> None:
    """The axes' legend to the right of it, off the data (constrained layout makes room)."""
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, **kw)


def _figure_legend(fig: Figure, axes: list[Any], *, loc: Any = "outside lower center",
                   ncol: int = 3, **kw: Any) -> None:
    """One legend for ``axes`` (each label once) outside the axes, off the data."""
    handles: dict[str, Any] = {}
    for ax in axes:
        for h, lab in zip(*ax.get_legend_handles_labels(), strict=True):
            handles.setdefault(lab, h)
    if handles:
        fig.legend(list(handles.values()), list(handles), loc=loc,
                   ncol=max(1, min(ncol, len(handles))), **kw)


def _quiet(f: Any) -> Any:
    """``f`` (a numpy nan-reduction) without the warning of an all-NaN row (its NaN is
    what is wanted: nothing drawn there)."""

    def run(v: ArrayLike, axis: int | None = None) -> np.ndarray:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            return np.asarray(f(v, axis=axis))

    return run


_nanmean, _nanmin, _nanmax = _quiet(np.nanmean), _quiet(np.nanmin), _quiet(np.nanmax)


def _spread(
    df: pd.DataFrame, measure: str, scored: pd.DataFrame | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Per position: fold values as a (positions, folds) array, with the positions; NaN
    where ``scored`` (the cumulative fold rows) says the fold had scored fewer than
    :data:`MIN_SCORED` rows."""
    wide = df.pivot_table(index="position", columns="fold", values=measure, aggfunc="first")
    v = wide.to_numpy(dtype=float)
    if scored is not None and len(scored):
        n = scored.pivot_table(index="position", columns="fold", values="n", aggfunc="first")
        n = n.reindex(index=wide.index, columns=wide.columns).to_numpy(dtype=float)
        v = np.where(n >= MIN_SCORED, v, np.nan)
    return wide.index.to_numpy(), v


def _few_scored(res: SavedRun) -> bool:
    """Whether some fold had scored fewer than :data:`MIN_SCORED` rows at some look."""
    cum = res.folds[res.folds["forgetting"] == "cumulative"]
    return bool(len(cum)) and bool((cum["n"].to_numpy(dtype=float) < MIN_SCORED).any())


def plot_measure(res: SavedRun, measure: str = "accuracy") -> Figure:
    """Every fold's ``measure`` over time per learner, with mean and min-max over folds.

    The thin lines are the folds, the thick line their mean, the band the range over folds,
    all under the run's forgetting mechanism; the dotted line is the mean cumulative value.
    Values are shown in the task's units (classification: percent; regression: the
    target's).
    """
    task = res.task
    scale = 100.0 if task.percent(measure) else 1.0
    zero = measure != task.cumulative and measure not in ("mae", "rmse_mean", "rmse_per")

    labels = res.labels
    compare = len(labels) > 1  # a first panel draws every learner's mean on one axis
    panels = len(labels) + compare
    ncols = min(panels, 3)
    nrows = -(-panels // ncols)
    fig = _figure(4.6 * ncols + 1.2, 3.6 * nrows + 0.8)
    grid = fig.subplots(nrows, ncols, sharex=True, sharey=True, squeeze=False).ravel()
    prim, cum = res.primary, res.folds[res.folds["forgetting"] == "cumulative"]
    name = task.label(measure)

    def spread(df: pd.DataFrame, label: str) -> tuple[np.ndarray, np.ndarray]:
        return _spread(df[df["learner"] == label], measure, cum[cum["learner"] == label])

    if compare:
        ax0 = grid[0]
        for i, label in enumerate(labels):
            x, v = spread(prim, label)
            with np.errstate(all="ignore"):
                ax0.plot(x, scale * _nanmean(v, axis=1), lw=1.8, label=label, **_style(i, len(x)))
        if zero:
            ax0.axhline(0, color="0.5", lw=0.8)
        ax0.set_title(_wrap("all learners: mean of folds", 40), fontsize=9)
        ax0.grid(alpha=0.3)
        ax0.set_xlabel(_ROWS)
        ax0.set_ylabel(name)
        ax0.tick_params(labelsize=8)
        _figure_legend(fig, [ax0], fontsize=8, title="learners (first panel)", title_fontsize=9)
    axes = grid[1:] if compare else grid
    for i, (ax, label) in enumerate(zip(axes, labels)):
        st = _style(i)
        x, v = spread(prim, label)
        v = scale * v
        lines = ax.plot(x, v, color=st["color"], lw=0.6, alpha=0.45)
        lines[0].set_label("single folds")
        with np.errstate(all="ignore"):
            lo, hi, mean = _nanmin(v, axis=1), _nanmax(v, axis=1), _nanmean(v, axis=1)
        ax.fill_between(x, lo, hi, color=st["color"], alpha=0.15, lw=0, label="min-max of folds")
        ax.plot(x, mean, lw=2, label=f"mean of folds ({res.forgetting})", **_style(i, len(x)))
        if res.forgetting != "cumulative" and len(cum):
            xc, vc = spread(cum, label)
            with np.errstate(all="ignore"):
                ax.plot(xc, scale * _nanmean(vc, axis=1), "k:", lw=1.4, label="mean, cumulative")
        if zero:
            ax.axhline(0, color="0.5", lw=0.8)
        ev = res.events
        if ev is not None and len(ev):
            at = ev.loc[ev["learner"] == label, "position"].to_numpy()
            if len(at):  # drift detections (events.parquet): ticks along the bottom
                ax.plot(at, np.zeros(len(at)), "|", color="k", ms=9, mew=0.8,
                        transform=ax.get_xaxis_transform(), label="drift detected")
        ax.set_title(_wrap(label, 40), fontsize=9)
        ax.grid(alpha=0.3)
        ax.set_xlabel(_ROWS)
        ax.set_ylabel(name)
        ax.tick_params(labelsize=8)
        if i == len(labels) - 1:  # the line kinds once, beside the panels, off the data
            _figure_legend(fig, [ax], loc="outside right upper", ncol=1, fontsize=7)
    for ax in axes[len(labels) :]:
        ax.set_visible(False)
    few = f"; a fold is drawn once it has scored {MIN_SCORED} rows" if _few_scored(res) else ""
    fig.suptitle(_wrap(f"{name} per fold over time ({res.forgetting} forgetting){few}", 90))
    return fig


def plot_q(res: SavedRun) -> Figure | None:
    """The Q statistic of every pair over time, cumulative, over the window and faded
    (gama2013 §4.1; below 0 favours A); None without Q rows."""
    q = res.q
    if q is None or not len(q):
        return None
    pairs = list(dict.fromkeys(zip(q["learner_a"], q["learner_b"])))
    ncols = min(len(pairs), 3)
    nrows = -(-len(pairs) // ncols)
    fig = _figure(4.8 * ncols, 3.6 * nrows)
    axes = fig.subplots(nrows, ncols, sharex=True, squeeze=False).ravel()
    kinds = ["cumulative", "window", "fading"]
    for ax, (a, b) in zip(axes, pairs):
        sub = q[(q["learner_a"] == a) & (q["learner_b"] == b)]
        for i, kind in enumerate(kinds):
            s = sub[sub["forgetting"] == kind]
            if len(s):
                x = s["position"].to_numpy()
                ax.plot(x, s["q"].to_numpy(dtype=float), label=kind, **_style(i, len(x)))
        ax.axhline(0, color="0.4", lw=0.8)
        ax.set_title(_wrap(f"{a} vs {b}", 40), fontsize=9)
        ax.set_ylabel(_wrap(f"Q (< 0 favours {_fit(a, 30)})", 30), fontsize=8)
        ax.set_xlabel(_ROWS)
        ax.grid(alpha=0.3)
    _legend_outside(axes[min(len(pairs), len(axes)) - 1], fontsize=7)
    for ax in axes[len(pairs) :]:
        ax.set_visible(False)
    fig.suptitle("Q statistic log(errors A / errors B) over time")
    return fig


def plot_adwin_width(res: SavedRun) -> Figure | None:
    """ADWIN window width per fold over time (rows), mean and range over folds; None if the
    run did not use ADWIN."""

    ad = res.folds[res.folds["forgetting"] == "adwin"]
    if ad.empty or "width" not in ad:
        return None
    fig = _figure(9, 4)
    ax = fig.subplots()
    for i, label in enumerate(res.labels):
        x, w = _spread(ad[ad["learner"] == label], "width")
        st = _style(i, len(x))
        ax.fill_between(
            x, _nanmin(w, axis=1), _nanmax(w, axis=1), color=st["color"], alpha=0.12, lw=0
        )
        ax.plot(x, _nanmean(w, axis=1), lw=1.6, label=f"{label} (mean of folds)", **st)
    ax.set_xlabel(_ROWS)
    ax.set_ylabel("ADWIN window width (rows)")
    fig.suptitle("ADWIN window width over time (band: min-max over folds)")
    ax.grid(alpha=0.3)
    _legend_outside(ax, fontsize=8)
    return fig


def plot_baselines(res: SavedRun) -> Figure | None:
    """Learners against the task's baselines (:attr:`~distval.tasks.base.Task.baseline_figure`).

    Classification: left, mean accuracy over folds of every learner (baseline learners
    thinner) and, on the same rows as the first learner's folds, the accuracy of the
    Persistent classifier and the majority class's share (``p_per``, ``p_maj``: what κper and
    κm compare with); right, κm and κper of the other learners, below zero where a learner
    does worse than the majority-class or persistent baseline (bifet2015 §5; zliobaite2015
    §4.4, Eq. 13). Regression: left, RMSE with the mean predictor's and the last value's on
    the same rows; right, each learner's RMSE relative to theirs (above 1: worse). None
    without fold rows.
    """

    task = res.task
    measure, lines = task.baseline_figure
    (relative, (rel_title, rel_axis, reference, worse)) = task.relative
    scale = 100.0 if task.percent(measure) else 1.0
    rel_scale = 100.0 if relative and task.percent(relative[0][0]) else 1.0
    baselines = baseline_labels(res.config, res.labels)
    prim = res.primary
    if not len(prim) or measure not in prim:
        return None
    cum = res.folds[res.folds["forgetting"] == "cumulative"]
    fig = _figure(12, 5.0)
    ax_a, ax_k = fig.subplots(1, 2, sharex=True)
    others = [lab for lab in res.labels if lab not in baselines] or res.labels

    def spread(label: str, column: str) -> tuple[np.ndarray, np.ndarray]:
        return _spread(prim[prim["learner"] == label], column, cum[cum["learner"] == label])

    for i, label in enumerate(res.labels):
        x, v = spread(label, measure)
        with np.errstate(all="ignore"):
            m = scale * _nanmean(v, axis=1)
        base = label in baselines
        ax_a.plot(
            x,
            m,
            lw=1.0 if base else 1.8,
            label=label + (" (baseline)" if base else ""),
            **_style(i, len(x)),
        )
    first = others[0]
    for column, words, style in lines:
        if "persistent" in baselines and column == "p_per":
            continue  # drawn as a learner already
        if column in prim:
            x, v = spread(first, column)
            with np.errstate(all="ignore"):
                ax_a.plot(x, scale * _nanmean(v, axis=1), style, lw=1.2, label=words)
    n = 0
    for label in others:
        for column, tag in relative:
            x, v = spread(label, column)
            with np.errstate(all="ignore"):
                ax_k.plot(
                    x,
                    rel_scale * _nanmean(v, axis=1),
                    lw=1.6,
                    label=f"{label} {tag}",
                    **_style(n, len(x)),
                )
            n += 1
    ax_k.axhline(reference, color="k", lw=1.0)
    ax_k.annotate(worse, (0.01, 0.02), xycoords="axes fraction", fontsize=8)
    name = task.label(measure)
    ax_a.set_title(f"Mean {name.split(' (')[0]} over folds: learners and baselines")
    ax_a.set_ylabel(name)
    ax_k.set_title(rel_title)
    ax_k.set_ylabel(rel_axis)
    for ax in (ax_a, ax_k):
        ax.set_xlabel(_ROWS)
        ax.grid(alpha=0.3)
    _figure_legend(fig, [ax_a, ax_k], ncol=2, fontsize=8)
    fig.suptitle(f"Baselines ({res.forgetting} forgetting)")
    return fig


def plot_forgetting_comparison(
    curves: dict[str, tuple[ArrayLike, ArrayLike]], *, title: str = "", measure: str = "accuracy"
) -> Figure:
    """One line per forgetting mechanism: ``curves`` maps a label to (positions, values).

    Values are fractions, shown in percent (bifet2015 Fig 3 compares sliding windows of
    100, 1,000 and 10,000 rows with ADWIN in this way).

    >>> import numpy as np
    >>> fig = plot_forgetting_comparison({"a": (np.arange(3), np.array([0.5, 0.6, 0.7]))})
    >>> fig.axes[0].get_ylabel()
    'accuracy (%)'
    """

    fig = _figure(10, 4.2)
    ax = fig.subplots()
    for i, (label, (x, v)) in enumerate(curves.items()):
        x = np.asarray(x)
        ax.plot(x, 100 * np.asarray(v, dtype=float), lw=1.3, label=label, **_style(i, len(x)))
    ax.set_xlabel(_ROWS)
    ax.set_ylabel(task_named("classification").label(measure))  # shares, in percent
    ax.set_title(title or f"{measure} under different forgetting mechanisms")
    ax.grid(alpha=0.3)
    _legend_outside(ax, fontsize=8)
    return fig


#: Figure formats ``distval report --format`` writes.
FORMATS = ("png", "pdf", "svg")


def save_figure(
    fig: Figure, path: str | os.PathLike[str] | IO[bytes], fmt: str, dpi: int = 150
) -> None:
    """Write ``fig`` as ``fmt`` (png, pdf or svg) at ``dpi`` (raster parts of vector files).

    >>> import tempfile, pathlib
    >>> fig = plot_forgetting_comparison({"a": ([0, 1], [0.5, 0.6])})
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "f.pdf"
    >>> save_figure(fig, p, "pdf", dpi=300); p.read_bytes()[:4]
    b'%PDF'
    """
    # a file by its name: never through a link planted under the name
    with replacing(path) if isinstance(path, (str, os.PathLike)) else contextlib.nullcontext(
            path) as fh:
        fig.savefig(fh, format=fmt, dpi=dpi)


def png_bytes(fig: Figure) -> bytes:
    """The figure as an optimised PNG with a 64-colour palette (a few tens of KB).

    >>> png_bytes(plot_forgetting_comparison({"a": ([0, 1], [0.5, 0.6])}))[:4]
    b'\x89PNG'
    """


    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90)
    img = Image.open(io.BytesIO(buf.getvalue())).convert("RGB").quantize(colors=64)
    out = io.BytesIO()
    img.save(out, format="PNG", optimize=True)
    return out.getvalue()
