"""Figures of the tests: p-values and decisions over the stream, and the critical difference
diagram of the Friedman/Nemenyi ranks (Demsar 2006).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from matplotlib.figure import Figure

from distval.report.figures import _ROWS, _figure, _fit, _legend_outside, _style, _wrap
from distval.report.tables import tests_with_pvalues
from distval.results import SavedRun
from distval.statistics.verdict import short_names

__all__ = ["plot_critical_difference", "plot_tests"]


#: p-values below this are drawn at it on the logarithmic p-value axes.
P_FLOOR = 1e-16


def _learner_colour(res: SavedRun, label: str) -> str:
    """The colour of a learner, as in the figures that draw learners."""
    return _style(res.labels.index(label))["color"] if label in res.labels else "0.45"


def _test_keys(res: SavedRun) -> list[tuple[str, str]]:
    t = res.tests
    return list(dict.fromkeys(zip(t["learner_a"], t["learner_b"])))


def plot_tests(res: SavedRun) -> Figure | None:
    """p-values over time on one logarithmic axis, with alpha and the decision; None if no
    tests. The tests' statistics (wins, rank sums, chi-square) are unlike quantities, so
    only their p-values share an axis.

    One row per learner pair (and one for Friedman): the p-value of every test (the dashed
    line is alpha; p-values below :data:`P_FLOOR` are drawn at it) and the decision: a bar
    where H0 is rejected at that check, labelled with the learner the data favour. With
    ``--sequential spending`` each test's valid boundary (its p-value limit at every check)
    is the dotted line of its colour beside alpha, and the decision panel shows the valid
    decision as a solid bar and the fixed-alpha one (p <= alpha) as a pale bar; the
    e-process of ``--sequential evalue`` draws its anytime-valid p-value against alpha.
    """

    if res.tests.empty:
        return None
    alpha = float(res.config.get("alpha", 0.05))
    keys = _test_keys(res)
    tests = list(dict.fromkeys(res.tests["test"]))
    with_p = tests_with_pvalues(res.tests)
    fig = _figure(14, 3.0 * len(keys) + 1.0)
    axes = fig.subplots(len(keys), 2, squeeze=False, width_ratios=(1.3, 1))
    favoured: dict[str, str] = {}  # learner -> colour, for the decision legend
    labels: list[tuple[Any, int, str, float, str]] = []  # the last bars' "favours" labels
    for row, (a, b) in enumerate(keys):
        sub = res.tests[(res.tests["learner_a"] == a) & (res.tests["learner_b"] == b)]
        ax_p, ax_d = axes[row]
        names = [t for t in tests if t in set(sub["test"]) and t in with_p]
        # one line per distinct boundary: (positions, limits) -> the tests that use it
        limits: dict[tuple[tuple[float, ...], tuple[float, ...]], list[str]] = {}
        for j, test in enumerate(names):
            s = sub[sub["test"] == test]
            x = s["position"].to_numpy()
            st = _style(tests.index(test), len(x))
            p = np.clip(s["pvalue"].to_numpy(dtype=float), P_FLOOR, 1.0)
            ax_p.plot(x, p, label=test, **st)
            rej = s["reject"].to_numpy(dtype=bool)
            step = np.diff(x, prepend=0)
            valid = s["anytime_valid"].to_numpy(dtype=bool)
            limit = s["boundary"].to_numpy(dtype=float)
            if valid.any() and not np.allclose(limit, alpha, equal_nan=False):
                key = (tuple(x.tolist()), tuple(np.round(limit, 12).tolist()))
                limits.setdefault(key, []).append(test)
                fixed = p <= alpha
                ax_d.barh(np.full(fixed.sum(), j), step[fixed], left=(x - step)[fixed],
                          height=0.6, color=st["color"], alpha=0.25, lw=0)
            # a rejection's bar has the colour of the learner the data favour there
            favours = (
                s["favours"].to_numpy(dtype=object) if "favours" in s else np.full(len(s), None)
            )
            for fav in dict.fromkeys(favours[rej].tolist()):
                at = rej & (favours == fav) if fav is not None else rej & _missing(favours)
                colour = _learner_colour(res, fav) if isinstance(fav, str) else "0.45"
                if isinstance(fav, str):
                    favoured.setdefault(fav, colour)
                ax_d.barh(
                    np.full(at.sum(), j),
                    step[at],
                    left=(x - step)[at],
                    height=0.6,
                    color=colour,
                    lw=0,
                )
            fav = favours[-1] if len(favours) and rej[-1] else None
            if isinstance(fav, str):  # the last bar, from the start of its run of rejections
                run = np.flatnonzero(~(rej & (favours == fav)))
                start = float((x - step)[run[-1] + 1] if len(run) else (x - step)[0])
                labels.append((ax_d, j, f"favours {_fit(fav, 22)}", start,
                               _learner_colour(res, fav)))
        for i, ((xs, ys), which) in enumerate(limits.items()):
            ax_p.plot(xs, np.clip(ys, P_FLOOR, 1.0), color="0.25", ls=(0, (1, 1 + i)), lw=1.6,
                      marker="_", ms=8, label=f"valid limit: {', '.join(which)}")
        pair = "all learners (Friedman)" if a == "*" else f"{a} vs {b}"
        ax_p.set_yscale("log")
        ax_p.set_ylim(P_FLOOR / 3, 1.5)
        ax_p.axhline(alpha, color="k", ls="--", lw=1.2, label=f"alpha = {alpha:g}")
        ax_p.axhspan(P_FLOOR / 3, alpha, color="0.92", lw=0, zorder=0)
        ax_p.set_title(_wrap(f"{pair}: p-values (shaded: below alpha)", 60), fontsize=9)
        ax_p.set_ylabel("p-value (log scale)")
        ax_d.set_yticks(range(len(names)), names, fontsize=8)
        ax_d.set_ylim(-0.6, len(names) - 0.4)
        ax_d.set_xlim(0, res.final_position)
        ax_d.invert_yaxis()
        ax_d.set_title(
            _wrap(
                "decision (solid: valid rejection, in the colour of the favoured learner; "
                "pale: p <= alpha)"
                if res.tests["anytime_valid"].any()
                else "decision (bar: H0 rejected, in the colour of the favoured learner)",
                50,
            ),
            fontsize=9,
        )
        for ax in (ax_p, ax_d):
            ax.set_xlabel(_ROWS)
            ax.grid(alpha=0.3)
        _legend_outside(ax_p, fontsize=7)
    if favoured:
        from matplotlib.patches import Patch

        handles = [Patch(color=c, label=f"favours {_fit(f, 30)}") for f, c in favoured.items()]
        fig.legend(handles=handles, loc="outside lower center", ncol=min(4, len(handles)),
                   fontsize=8, title="decision bars", title_fontsize=9)  # fmt: skip
    fig.suptitle(f"Tests over time ({res.config.get('measure', 'accuracy')} across folds; "
                 "McNemar on errors)")
    _label_bars(fig, labels, float(res.final_position))
    return fig


def _label_bars(
    fig: Figure, labels: list[tuple[Any, int, str, float, str]], end: float, pad: float = 3.0,
) -> None:
    """Each decision panel's "favours" labels at the end of their bars (each bar runs from
    its ``start`` to ``end``, the last check): inside the bar's end, in a colour that
    contrasts with it, where the bar is long enough for the text; else just beside it, with
    the panel's x axis extended to hold the text (its ticks stay within the stream). ``pad``:
    points between the text and the bar's end.

    Placed from the text's rendered width and the panel's width once the figure is laid out
    (matplotlib's renderer), so no label covers another bar or leaves its panel.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.colors import to_rgb

    if not labels:
        return
    renderer = FigureCanvasAgg(fig).get_renderer()  # type: ignore[no-untyped-call]
    fig.draw_without_rendering()  # the constrained layout: the panels' final widths
    px = fig.dpi / 72.0  # pixels per point
    for ax in dict.fromkeys(lab[0] for lab in labels):
        mine = [lab for lab in labels if lab[0] is ax]
        texts = [ax.text(end, j, text, va="center", fontsize=8) for _, j, text, _, _ in mine]
        width = ax.get_window_extent(renderer).width
        need = [t.get_window_extent(renderer).width + 2 * pad * px for t in texts]
        right = end
        beside = [False] * len(mine)
        while True:  # extend until every label beside its bar fits; extending shortens bars
            scale = width / right  # pixels per row (the axis starts at 0)
            beside = [b or (end - lab[3]) * scale < n for b, lab, n in zip(beside, mine, need)]
            room = min(max((n for b, n in zip(beside, need) if b), default=0.0) * 1.1,
                       width / 2)
            wanted = end / (1 - room / width) if room else end
            if wanted <= right:
                break
            right = wanted
        ax.set_xlim(0, right)
        if right > end:
            ax.set_xticks([t for t in ax.get_xticks() if 0 <= t <= end])
            ax.set_xlim(0, right)
        for t, b, (_, _, _, _, colour) in zip(texts, beside, mine):
            light = sum(w * c for w, c in zip((0.299, 0.587, 0.114), to_rgb(colour))) > 0.55
            t.set_horizontalalignment("left" if b else "right")
            t.set_color("black" if b or light else "white")
            t.set_transform(ax.transData + _offset(fig, pad if b else -pad))


def _offset(fig: Figure, points: float) -> Any:
    """A horizontal shift by ``points``, added to a text's data transform."""
    from matplotlib.transforms import ScaledTranslation

    return ScaledTranslation(points / 72.0, 0, fig.dpi_scale_trans)


def _missing(values: np.ndarray) -> np.ndarray:
    """Elementwise: is the object missing (``None`` or NaN)?"""
    return np.array([v is None or v != v for v in values], dtype=bool)


def plot_critical_difference(res: SavedRun) -> Figure | None:
    """Nemenyi critical-difference diagram (Demšar 2006) of the last Friedman test: learners
    at their average rank (1 = best) over the folds, learners whose ranks differ by less
    than the critical difference joined by a bar; None without Friedman."""
    friedman = (res.summary or {}).get("friedman")
    if not friedman or not friedman.get("average_ranks"):
        return None
    ranks = np.asarray(friedman["average_ranks"], dtype=float)
    labels = res.labels if len(res.labels) == len(ranks) else [str(i) for i in range(len(ranks))]
    verdict = "rejects" if friedman.get("reject") else "does not reject"
    folds = res.config.get("n_folds", "the")
    return draw_critical_difference(
        ranks,
        list(labels),
        float(friedman["critical_difference"]),
        f"Average ranks over the {folds} folds of one stream (1 = best; folds share rows, "
        f"so this is no comparison across data sets); Friedman {verdict} at alpha = "
        f"{friedman.get('alpha')}",
    )


def draw_critical_difference(
    ranks: Any, labels: list[str], cd: float, title: str = ""
) -> Figure:
    """A critical-difference diagram as Demšar (2006, §3.2.2, Fig. 1) draws it: the rank
    axis (1 = best, on the left), the CD as a bar above it, each learner's name joined to
    its average rank, and a thick bar under the axis joining each maximal group of learners
    whose average ranks differ by less than ``cd`` (no difference found among them).

    >>> fig = draw_critical_difference([1.2, 2.1, 2.7], ["a", "b", "c"], 1.0)
    >>> len(fig.axes)
    1
    """
    ranks = np.asarray(ranks, dtype=float)
    k = len(ranks)
    names = short_names(labels, width=40)
    labels = [names[label] for label in labels]
    bottom = -(((k + 1) // 2) * 0.55 + 0.5)
    longest = max((len(label) for label in labels), default=0) + 8  # " (2.35) "
    # each side's names need about 0.065 in a character at fontsize 8, beside the axis
    fig = _figure(max(8.0, 3.0 + 2 * 0.065 * longest), max(3.4, 1.2 + 0.32 * k))
    ax = fig.subplots()
    lo, hi = 1, k
    ax.set_xlim(lo - 0.3, hi + 0.3)
    ax.set_ylim(bottom, 1.6)
    ax.hlines(0, lo, hi, color="k", lw=1)
    for r in range(lo, hi + 1):
        ax.vlines(r, 0, 0.12, color="k", lw=1)
        ax.text(r, 0.22, str(r), ha="center", fontsize=8)
    ax.hlines(1.15, lo, lo + cd, color="k", lw=2)
    ax.vlines([lo, lo + cd], 1.08, 1.22, color="k", lw=1)
    ax.text(lo + cd / 2, 1.3, f"CD = {cd:.2f}", ha="center", fontsize=8)
    order = np.argsort(ranks, kind="mergesort")
    for n, i in enumerate(order):
        left = n < (k + 1) // 2
        y = -(n if left else k - 1 - n) * 0.55 - 0.5
        end = lo - 0.25 if left else hi + 0.25
        ax.plot([ranks[i], ranks[i], end], [0, y, y], color="k", lw=0.8)
        ax.text(end, y, f" {labels[i]} ({ranks[i]:.2f}) ", ha="right" if left else "left",
                va="center", fontsize=8)
    for g_i, g in enumerate(cliques(ranks, cd)):
        y = -0.18 - 0.14 * g_i
        ax.hlines(y, ranks[g].min() - 0.03, ranks[g].max() + 0.03, color="k", lw=3)
    ax.axis("off")
    if title:
        width_chars = int(fig.get_figwidth() * 72 / 9 * 1.6)  # at fontsize 9
        fig.suptitle(_wrap(title, width_chars), fontsize=9)
    return fig


def cliques(ranks: Any, cd: float) -> list[list[int]]:
    """Maximal groups of learners (indices, best first) whose average ranks all lie within
    less than ``cd`` of each other: the bars of a critical-difference diagram.

    >>> cliques([1.0, 1.5, 2.4, 3.0], 1.0)
    [[0, 1], [1, 2], [2, 3]]
    >>> cliques([1.0, 3.0, 5.0], 1.0)
    []
    """
    ranks = np.asarray(ranks, dtype=float)
    order = [int(i) for i in np.argsort(ranks, kind="mergesort")]
    groups: list[list[int]] = []
    for start in order:
        members = [j for j in order if ranks[start] <= ranks[j] < ranks[start] + cd]
        if len(members) > 1 and not any(set(members) <= set(g) for g in groups):
            groups.append(members)
    return groups
