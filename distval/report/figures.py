"""The report's figures: measures over time, tests, ADWIN widths, baselines (matplotlib, Agg).

Every learner or test has its own line style and marker as well as colour, so that figures
stay readable in grey-scale print.
"""

from __future__ import annotations

import io

import numpy as np
from matplotlib.figure import Figure
from PIL import Image

from distval.learners import parse_learner
from distval.report.tables import tests_with_pvalues
from distval.results import SavedRun

__all__ = [
    "MEASURE_LABELS",
    "STYLES",
    "baseline_labels",
    "plot_adwin_width",
    "plot_baselines",
    "plot_forgetting_comparison",
    "plot_measure",
    "plot_tests",
    "png_bytes",
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
#: p-values below this are drawn at it on the logarithmic p-value axes.
P_FLOOR = 1e-16
_BASELINES = ("majority", "persistent")
MEASURE_LABELS = {
    "accuracy": "accuracy (%)",
    "kappa": "κ (%)",
    "kappa_m": "κm (%)",
    "kappa_per": "κper (%)",
    "kappa_plus": "κ+ (%)",
    "recall_harm": "harmonic mean of recalls (%)",
}
_ROWS = "stream position (rows)"


def _style(i: int, n_points: int = 0) -> dict:
    colour, ls, marker = STYLES[i % len(STYLES)]
    every = max(1, n_points // 8) if n_points else 1
    return {"color": colour, "linestyle": ls, "marker": marker, "markevery": every, "ms": 5}


def baseline_labels(config: dict, labels: list[str]) -> list[str]:
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


def _figure(width: float, height: float):


    return Figure(figsize=(width, height), layout="constrained")


def _spread(df, measure: str):
    """Per position: fold values as a (positions, folds) array, with the positions."""
    wide = df.pivot_table(index="position", columns="fold", values=measure, aggfunc="first")
    return wide.index.to_numpy(), wide.to_numpy(dtype=float)


def plot_measure(res: SavedRun, measure: str = "accuracy"):
    """Every fold's ``measure`` over time per learner, with mean and min-max over folds.

    The thin lines are the folds, the thick line their mean, the band the range over folds,
    all under the run's forgetting mechanism; the dotted line is the mean cumulative value.
    Values are shown in percent.
    """

    labels = res.labels
    ncols = min(len(labels), 3)
    nrows = -(-len(labels) // ncols)
    fig = _figure(4.6 * ncols, 3.6 * nrows)
    axes = fig.subplots(nrows, ncols, sharex=True, sharey=True, squeeze=False).ravel()
    prim, cum = res.primary, res.folds[res.folds["forgetting"] == "cumulative"]
    name = MEASURE_LABELS.get(measure, measure)
    for i, (ax, label) in enumerate(zip(axes, labels)):
        st = _style(i)
        x, v = _spread(prim[prim["learner"] == label], measure)
        v = 100 * v
        lines = ax.plot(x, v, color=st["color"], lw=0.6, alpha=0.45)
        lines[0].set_label("single folds")
        with np.errstate(all="ignore"):
            lo, hi, mean = np.nanmin(v, axis=1), np.nanmax(v, axis=1), np.nanmean(v, axis=1)
        ax.fill_between(x, lo, hi, color=st["color"], alpha=0.15, lw=0, label="min-max of folds")
        ax.plot(x, mean, lw=2, label=f"mean of folds ({res.forgetting})", **_style(i, len(x)))
        if res.forgetting != "cumulative" and len(cum):
            xc, vc = _spread(cum[cum["learner"] == label], measure)
            with np.errstate(all="ignore"):
                ax.plot(xc, 100 * np.nanmean(vc, axis=1), "k:", lw=1.4, label="mean, cumulative")
        if measure != "accuracy":
            ax.axhline(0, color="0.5", lw=0.8)
        ax.set_title(label)
        ax.grid(alpha=0.3)
        ax.set_xlabel(_ROWS)
        ax.set_ylabel(name)
        if i == 0:
            ax.legend(fontsize=7, loc="best")
    for ax in axes[len(labels) :]:
        ax.set_visible(False)
    fig.suptitle(f"{name} per fold over time ({res.forgetting} forgetting)")
    return fig


def _test_keys(res: SavedRun) -> list[tuple[str, str]]:
    t = res.tests
    return list(dict.fromkeys(zip(t["learner_a"], t["learner_b"])))


def plot_tests(res: SavedRun):
    """Test statistics and p-values over time with alpha and the decision; None if no tests.

    One row per learner pair (and one for Friedman): the statistic (symmetric-log axis), the
    p-value (log axis, the dashed line is alpha; p-values below :data:`P_FLOOR` are drawn at
    it) and the decision: a bar where H0 is rejected at that check.
    """

    if res.tests.empty:
        return None
    alpha = float(res.config.get("alpha", 0.05))
    keys = _test_keys(res)
    tests = list(dict.fromkeys(res.tests["test"]))
    with_p = tests_with_pvalues(res.tests)
    fig = _figure(14, 2.7 * len(keys) + 0.6)
    axes = fig.subplots(len(keys), 3, squeeze=False, width_ratios=(1, 1, 0.8))
    for row, (a, b) in enumerate(keys):
        sub = res.tests[(res.tests["learner_a"] == a) & (res.tests["learner_b"] == b)]
        ax_s, ax_p, ax_d = axes[row]
        present = [t for t in tests if t in set(sub["test"])]
        for test in present:
            s = sub[sub["test"] == test]
            x = s["position"].to_numpy()
            ax_s.plot(x, s["statistic"].to_numpy(), label=test, **_style(tests.index(test), len(x)))
        names = [t for t in present if t in with_p]
        for j, test in enumerate(names):
            s = sub[sub["test"] == test]
            x = s["position"].to_numpy()
            st = _style(tests.index(test), len(x))
            p = np.clip(s["pvalue"].to_numpy(dtype=float), P_FLOOR, 1.0)
            ax_p.plot(x, p, label=test, **st)
            rej = s["reject"].to_numpy(dtype=bool)
            step = np.diff(x, prepend=0)
            ax_d.barh(
                np.full(rej.sum(), j),
                step[rej],
                left=(x - step)[rej],
                height=0.6,
                color=st["color"],
                lw=0,
            )
        pair = "all learners (Friedman)" if a == "*" else f"{a} vs {b}"
        ax_s.set_yscale("symlog", linthresh=1.0)
        ax_s.set_title(f"{pair}: test statistic")
        ax_s.set_ylabel("statistic (symlog scale)")
        ax_p.set_yscale("log")
        ax_p.set_ylim(P_FLOOR / 3, 1.5)
        ax_p.axhline(alpha, color="k", ls="--", lw=1.2, label=f"alpha = {alpha:g}")
        ax_p.axhspan(P_FLOOR / 3, alpha, color="0.92", lw=0, zorder=0)
        ax_p.set_title(f"{pair}: p-value (shaded: below alpha)")
        ax_p.set_ylabel("p-value (log scale)")
        ax_d.set_yticks(range(len(names)), names)
        ax_d.set_ylim(-0.6, len(names) - 0.4)
        ax_d.set_xlim(0, res.final_position)
        ax_d.invert_yaxis()
        ax_d.set_title("decision (bar: H0 rejected)")
        for ax in (ax_s, ax_p, ax_d):
            ax.set_xlabel(_ROWS)
            ax.grid(alpha=0.3)
        ax_p.legend(fontsize=7, loc="lower left")
        if set(present) - set(names):
            ax_s.legend(fontsize=7, loc="best")
    fig.suptitle(f"Across-fold tests on {res.config.get('measure', 'accuracy')} over time")
    return fig


def plot_adwin_width(res: SavedRun):
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
            x, np.nanmin(w, axis=1), np.nanmax(w, axis=1), color=st["color"], alpha=0.12, lw=0
        )
        ax.plot(x, np.nanmean(w, axis=1), lw=1.6, label=f"{label} (mean of folds)", **st)
    ax.set_xlabel(_ROWS)
    ax.set_ylabel("ADWIN window width (rows)")
    ax.set_title("ADWIN window width over time (band: min-max over folds)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return fig


def plot_baselines(res: SavedRun):
    """Learners against the Majority/Persistent baselines; None if none was evaluated.

    Left: mean accuracy over folds of every learner (baselines thinner). Right: κm and κper
    of the other learners, which are below zero where a learner does worse than the
    majority-class or persistent baseline (bifet2015 §5; zliobaite2015 §4.4, Eq. 13).
    """

    baselines = baseline_labels(res.config, res.labels)
    if not baselines:
        return None
    prim = res.primary
    fig = _figure(12, 4)
    ax_a, ax_k = fig.subplots(1, 2, sharex=True)
    others = [lab for lab in res.labels if lab not in baselines] or res.labels
    for i, label in enumerate(res.labels):
        x, v = _spread(prim[prim["learner"] == label], "accuracy")
        with np.errstate(all="ignore"):
            m = 100 * np.nanmean(v, axis=1)
        base = label in baselines
        ax_a.plot(
            x,
            m,
            lw=1.0 if base else 1.8,
            label=label + (" (baseline)" if base else ""),
            **_style(i, len(x)),
        )
    n = 0
    for label in others:
        for measure, tag in (("kappa_m", "κm"), ("kappa_per", "κper")):
            x, v = _spread(prim[prim["learner"] == label], measure)
            with np.errstate(all="ignore"):
                ax_k.plot(
                    x,
                    100 * np.nanmean(v, axis=1),
                    lw=1.6,
                    label=f"{label} {tag}",
                    **_style(n, len(x)),
                )
            n += 1
    ax_k.axhline(0, color="k", lw=1.0)
    ax_k.annotate(
        "below 0: worse than the baseline", (0.01, 0.02), xycoords="axes fraction", fontsize=8
    )
    ax_a.set_title("Mean accuracy over folds: learners and baselines")
    ax_a.set_ylabel("accuracy (%)")
    ax_k.set_title("κm (vs majority class) and κper (vs persistent)")
    ax_k.set_ylabel("κ relative to baseline (%)")
    for ax in (ax_a, ax_k):
        ax.set_xlabel(_ROWS)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(f"Baselines ({res.forgetting} forgetting)")
    return fig


def plot_forgetting_comparison(curves: dict, *, title: str = "", measure: str = "accuracy"):
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
    ax.set_ylabel(MEASURE_LABELS.get(measure, measure))
    ax.set_title(title or f"{measure} under different forgetting mechanisms")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return fig


def png_bytes(fig) -> bytes:
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
