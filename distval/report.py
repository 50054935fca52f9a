"""Figures, a self-contained HTML page and a Markdown summary of a results directory.

``distval report RESULTS_DIR`` (and ``distval run --report``) reads what a run wrote
(``config.json``, ``folds.parquet``, ``tests.parquet``; see :mod:`distval.results`) and writes

- ``accuracy.png`` and ``kappa_m.png``: every fold's value over time, the mean over folds and
  the fold-to-fold spread (min-max band), one panel per learner (bifet2015 Fig 2 shows the
  same measures for one run; the κm statistic is bifet2015 §5);
- ``tests.png`` (two learners or more): each across-fold test's statistic and p-value over
  time with the significance level and the decision (H0 rejected or not) at every check
  (bifet2015 §4 and Table 2 for the tests; Friedman for three learners or more);
- ``adwin_width.png`` (ADWIN forgetting): the width of each fold's ADWIN window (bifet2015
  §6, Fig 3);
- ``baselines.png`` (when a Majority or Persistent learner is evaluated): the learners'
  accuracy against those baselines and κm / κper relative to them (κper is zliobaite2015
  §4.4, Eq. 13; compare its Fig 2);
- ``report.html``: one page with the figures embedded as PNG data URIs and the tables
  (final measures, final tests, decisions over time, configuration); it loads nothing from
  the network;
- ``report.md``: the same tables in Markdown, with links to the PNG files.

Figures use the non-interactive Agg backend; every learner or test has its own line style
and marker as well as colour, so that they remain distinguishable in grey-scale print.

>>> import tempfile, distval
>>> d = tempfile.mkdtemp()
>>> _ = distval.evaluate(stream="sea", n_rows=2000, learners=("nb", "majority"), n_folds=3,
...                      test_every=500, output_dir=d, overwrite=True)
>>> make_report(d).name
'report.html'
"""

from __future__ import annotations

import argparse
from pathlib import Path

__all__ = [
    "STYLES",
    "Results",
    "add_arguments",
    "decision_table",
    "load_results",
    "main",
    "make_report",
    "plot_adwin_width",
    "plot_baselines",
    "plot_forgetting_comparison",
    "plot_measure",
    "plot_tests",
    "png_bytes",
]

#: (colour, line style, marker) per series: distinguishable in colour and in grey-scale.
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
_TABLE_MEASURES = ("accuracy", "kappa", "kappa_m", "kappa_per", "kappa_plus", "recall_harm")
_MEASURE_LABELS = {
    "accuracy": "accuracy (%)",
    "kappa": "κ (%)",
    "kappa_m": "κm (%)",
    "kappa_per": "κper (%)",
    "kappa_plus": "κ+ (%)",
    "recall_harm": "harmonic mean of recalls (%)",
}
_ROWS = "stream position (rows)"
_TEST_COLUMNS = (
    "position",
    "test",
    "learner_a",
    "learner_b",
    "mean_a",
    "mean_b",
    "statistic",
    "pvalue",
    "reject",
    "n",
)


def _style(i: int, n_points: int = 0) -> dict:
    colour, ls, marker = STYLES[i % len(STYLES)]
    every = max(1, n_points // 8) if n_points else 1
    return {"color": colour, "linestyle": ls, "marker": marker, "markevery": every, "ms": 5}


class Results:
    """What a results directory holds, as pandas DataFrames.

    Attributes: ``directory``, ``config`` (dict of ``config.json``), ``folds`` and ``tests``
    (DataFrames, possibly empty), ``forgetting`` (the run's forgetting mechanism), ``labels``
    (learners in run order), ``baselines`` (labels of Majority/Persistent learners).
    """

    def __init__(self, directory, config: dict, folds, tests) -> None:
        self.directory = Path(directory)
        self.config = config
        self.folds = folds
        self.tests = tests
        kinds = list(dict.fromkeys(folds["forgetting"]))
        self.forgetting = config.get("forgetting") or next(
            (k for k in kinds if k != "cumulative"), "cumulative"
        )
        if self.forgetting not in kinds:
            self.forgetting = kinds[0]
        labels = list(config.get("labels") or [])
        present = list(dict.fromkeys(folds["learner"]))
        self.labels = [lab for lab in labels if lab in present] or present
        self.baselines = _baseline_labels(config, self.labels)

    @property
    def primary(self):
        """Fold rows under the run's forgetting mechanism."""
        return self.folds[self.folds["forgetting"] == self.forgetting]

    @property
    def final_position(self) -> int:
        return int(self.folds["position"].max())


def _baseline_labels(config: dict, labels: list[str]) -> list[str]:
    from distval.learners import parse_learner

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


def load_results(results_dir) -> Results:
    """Read a run's output directory; a clear :class:`~distval.errors.DistvalError` if unusable.

    The directory of a robustness run (``distval run --permute``) stands for its
    ``original`` sub-directory, the run on the stream in its original order.

    >>> load_results("/no/such/dir")
    Traceback (most recent call last):
    ...
    distval.errors.DistvalError: results directory /no/such/dir does not exist
    """
    import json

    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    from distval.errors import DistvalError

    d = Path(results_dir)
    if not d.exists():
        raise DistvalError(f"results directory {d} does not exist")
    if not d.is_dir():
        raise DistvalError(f"{d} is not a directory")
    if not (d / "folds.parquet").exists() and (d / "original" / "folds.parquet").exists():
        d = d / "original"  # a robustness run (--permute): report the original order
    if not (d / "folds.parquet").exists():
        raise DistvalError(
            f"{d} holds no folds.parquet: not a distval results directory "
            "(make one with `distval run --output DIR`)"
        )
    config = {}
    if (d / "config.json").exists():
        try:
            config = json.loads((d / "config.json").read_text())
        except ValueError as exc:
            raise DistvalError(f"{d / 'config.json'} is not valid JSON: {exc}") from None

    def read(name):
        try:
            return pq.read_table(d / name).to_pandas()
        except (OSError, pa.ArrowInvalid) as exc:
            if name == "tests.parquet" and not (d / name).exists():
                return pd.DataFrame(columns=_TEST_COLUMNS)
            raise DistvalError(f"cannot read {d / name}: {exc}") from None

    folds = read("folds.parquet")
    tests = read("tests.parquet")
    if folds.empty:
        raise DistvalError(
            f"{d / 'folds.parquet'} has no rows: the run stopped before its first check"
        )
    missing = {"position", "learner", "fold", "forgetting", "accuracy"} - set(folds.columns)
    if missing:
        raise DistvalError(f"{d / 'folds.parquet'} lacks the columns {', '.join(sorted(missing))}")
    folds = folds.sort_values(["position", "learner", "fold"], kind="stable")
    tests = tests.sort_values("position", kind="stable") if len(tests) else tests
    return Results(d, config, folds.reset_index(drop=True), pd.DataFrame(tests))


# --------------------------------------------------------------------------- figures


def _figure(width: float, height: float):
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout="constrained")


def _spread(df, measure: str):
    """Per position: fold values as a (positions, folds) array, with the positions."""
    wide = df.pivot_table(index="position", columns="fold", values=measure, aggfunc="first")
    return wide.index.to_numpy(), wide.to_numpy(dtype=float)


def plot_measure(res: Results, measure: str = "accuracy"):
    """Every fold's ``measure`` over time per learner, with mean and min-max over folds.

    The thin lines are the folds, the thick line their mean, the band the range over folds,
    all under the run's forgetting mechanism; the dotted line is the mean cumulative value.
    Values are shown in percent.
    """
    import numpy as np

    labels = res.labels
    ncols = min(len(labels), 3)
    nrows = -(-len(labels) // ncols)
    fig = _figure(4.6 * ncols, 3.6 * nrows)
    axes = fig.subplots(nrows, ncols, sharex=True, sharey=True, squeeze=False).ravel()
    prim, cum = res.primary, res.folds[res.folds["forgetting"] == "cumulative"]
    name = _MEASURE_LABELS.get(measure, measure)
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


def _test_keys(res: Results) -> list[tuple[str, str]]:
    t = res.tests
    return list(dict.fromkeys(zip(t["learner_a"], t["learner_b"])))


def _tests_with_pvalues(tests) -> set[str]:
    """Tests with at least one p-value (descriptive statistics such as Q have none)."""
    return set(tests.loc[tests["pvalue"].notna(), "test"])


def plot_tests(res: Results):
    """Test statistics and p-values over time with alpha and the decision; None if no tests.

    One row per learner pair (and one for Friedman): the statistic (symmetric-log axis), the
    p-value (log axis, the dashed line is alpha; p-values below :data:`P_FLOOR` are drawn at
    it) and the decision: a bar where H0 is rejected at that check.
    """
    import numpy as np

    if res.tests.empty:
        return None
    alpha = float(res.config.get("alpha", 0.05))
    keys = _test_keys(res)
    tests = list(dict.fromkeys(res.tests["test"]))
    with_p = _tests_with_pvalues(res.tests)
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


def plot_adwin_width(res: Results):
    """ADWIN window width per fold over time (rows), mean and range over folds; None if the
    run did not use ADWIN."""
    import numpy as np

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


def plot_baselines(res: Results):
    """Learners against the Majority/Persistent baselines; None if none was evaluated.

    Left: mean accuracy over folds of every learner (baselines thinner). Right: κm and κper
    of the other learners, which are below zero where a learner does worse than the
    majority-class or persistent baseline (bifet2015 §5; zliobaite2015 §4.4, Eq. 13).
    """
    import numpy as np

    if not res.baselines:
        return None
    prim = res.primary
    fig = _figure(12, 4)
    ax_a, ax_k = fig.subplots(1, 2, sharex=True)
    others = [lab for lab in res.labels if lab not in res.baselines] or res.labels
    for i, label in enumerate(res.labels):
        x, v = _spread(prim[prim["learner"] == label], "accuracy")
        with np.errstate(all="ignore"):
            m = 100 * np.nanmean(v, axis=1)
        base = label in res.baselines
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
    import numpy as np

    fig = _figure(10, 4.2)
    ax = fig.subplots()
    for i, (label, (x, v)) in enumerate(curves.items()):
        x = np.asarray(x)
        ax.plot(x, 100 * np.asarray(v, dtype=float), lw=1.3, label=label, **_style(i, len(x)))
    ax.set_xlabel(_ROWS)
    ax.set_ylabel(_MEASURE_LABELS.get(measure, measure))
    ax.set_title(title or f"{measure} under different forgetting mechanisms")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return fig


def png_bytes(fig) -> bytes:
    """The figure as an optimised PNG with a 64-colour palette (a few tens of KB).

    >>> png_bytes(plot_forgetting_comparison({"a": ([0, 1], [0.5, 0.6])}))[:4]
    b'\x89PNG'
    """
    import io

    from PIL import Image

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90)
    img = Image.open(io.BytesIO(buf.getvalue())).convert("RGB").quantize(colors=64)
    out = io.BytesIO()
    img.save(out, format="PNG", optimize=True)
    return out.getvalue()


# --------------------------------------------------------------------------- tables


def _fmt(mean: float, sd: float) -> str:
    import math

    if not math.isfinite(mean):
        return "–"
    return f"{mean:.4f}" + (f" ± {sd:.4f}" if math.isfinite(sd) else "")


def _measures_table(res: Results) -> tuple[list[str], list[list[str]]]:
    f = res.folds[res.folds["position"] == res.final_position]
    cols = ["learner", "forgetting", "folds", *_TABLE_MEASURES]
    rows = []
    for kind in dict.fromkeys([res.forgetting, *f["forgetting"]]):
        for label in res.labels:
            s = f[(f["learner"] == label) & (f["forgetting"] == kind)]
            if s.empty:
                continue
            cells = []
            for m in _TABLE_MEASURES:
                v = s[m].to_numpy(dtype=float)
                v = v[~(v != v)]
                mean = float(v.mean()) if len(v) else float("nan")
                sd = float(v.std(ddof=1)) if len(v) > 1 else float("nan")
                cells.append(_fmt(mean, sd))
            rows.append([label, kind, str(len(s)), *cells])
    return cols, rows


def _final_tests_table(res: Results) -> tuple[list[str], list[list[str]]]:
    t = res.tests
    last = t[t["position"] == t["position"].max()]
    cols = ["A", "B", "test", "mean A", "mean B", "statistic", "p-value", "reject H0"]
    rows = [
        [
            r.learner_a,
            r.learner_b,
            r.test,
            "–" if r.mean_a != r.mean_a else f"{r.mean_a:.4f}",
            "–" if r.mean_b != r.mean_b else f"{r.mean_b:.4f}",
            "–" if r.statistic != r.statistic else f"{r.statistic:.4g}",
            "–" if r.pvalue != r.pvalue else f"{r.pvalue:.4g}",
            "–" if r.pvalue != r.pvalue else ("yes" if r.reject else "no"),
        ]
        for r in last.itertuples()
    ]
    return cols, rows


def decision_table(tests) -> list[dict]:
    """Per (pair, test): checks, share of checks rejecting H0, first rejection, and the
    position from which H0 stayed rejected until the end (None if not rejected at the end).

    Tests without any p-value (descriptive statistics) are left out.

    >>> import pandas as pd
    >>> t = pd.DataFrame({"position": [1, 2, 3, 4], "test": "sign", "learner_a": "a",
    ...                   "learner_b": "b", "reject": [True, False, True, True]})
    >>> d = decision_table(t)[0]
    >>> d["checks"], d["share_rejected"], d["first_rejected"], d["rejected_since"]
    (4, 0.75, 1, 3)
    """
    import numpy as np

    out = []
    if len(tests) == 0:
        return out
    if "pvalue" in tests:
        tests = tests[tests["test"].isin(_tests_with_pvalues(tests))]
    for (a, b, test), g in tests.groupby(["learner_a", "learner_b", "test"], sort=False):
        pos = g["position"].to_numpy()
        rej = g["reject"].to_numpy(dtype=bool)
        first = int(pos[np.argmax(rej)]) if rej.any() else None
        since = None
        if rej[-1]:
            kept = np.flatnonzero(~rej)
            since = int(pos[kept[-1] + 1]) if len(kept) else int(pos[0])
        out.append(
            {
                "learner_a": a,
                "learner_b": b,
                "test": test,
                "checks": len(rej),
                "share_rejected": float(rej.mean()),
                "first_rejected": first,
                "rejected_since": since,
            }
        )
    return out


def _decisions_rows(res: Results) -> tuple[list[str], list[list[str]]]:
    cols = [
        "A",
        "B",
        "test",
        "checks",
        "H0 rejected (% of checks)",
        "first rejected at row",
        "rejected since row",
    ]
    rows = [
        [
            d["learner_a"],
            d["learner_b"],
            d["test"],
            str(d["checks"]),
            f"{100 * d['share_rejected']:.1f}",
            "never" if d["first_rejected"] is None else str(d["first_rejected"]),
            "not at the end" if d["rejected_since"] is None else str(d["rejected_since"]),
        ]
        for d in decision_table(res.tests)
    ]
    return cols, rows


def _config_rows(res: Results) -> tuple[list[str], list[list[str]]]:
    keep = (
        "stream_name",
        "stream",
        "n_rows",
        "learners",
        "scheme",
        "n_folds",
        "prequential",
        "fold_choice",
        "forgetting",
        "window",
        "fading",
        "delta",
        "alpha",
        "measure",
        "tests",
        "sign_method",
        "test_every",
        "seed",
        "backend",
    )
    rows = []
    for k in keep:
        if k in res.config:
            v = res.config[k]
            rows.append([k, ", ".join(map(str, v)) if isinstance(v, list) else str(v)])
    return ["setting", "value"], rows


# --------------------------------------------------------------------------- rendering


def _sections(res: Results) -> list[dict]:
    """Figures (with PNG bytes) and tables of the report, in page order."""
    sections = []

    def figure(key, title, caption, fig):
        if fig is not None:
            sections.append(
                {
                    "kind": "figure",
                    "id": f"fig-{key}",
                    "file": f"{key}.png",
                    "title": title,
                    "caption": caption,
                    "png": png_bytes(fig),
                }
            )

    def table(key, title, caption, cols_rows):
        cols, rows = cols_rows
        if rows:
            sections.append(
                {
                    "kind": "table",
                    "id": f"tab-{key}",
                    "title": title,
                    "caption": caption,
                    "columns": cols,
                    "rows": rows,
                }
            )

    fg = res.forgetting
    table(
        "measures",
        "Final measures",
        f"Mean ± sd over folds at row {res.final_position}, under {fg} forgetting"
        + (" and cumulatively." if fg != "cumulative" else "."),
        _measures_table(res),
    )
    figure(
        "accuracy",
        "Accuracy over time",
        "Thin lines: single folds; thick line: mean over folds; band: min-max over folds; "
        "dotted: cumulative mean.",
        plot_measure(res, "accuracy"),
    )
    figure(
        "kappa_m",
        "κm over time",
        "κm compares with the majority-class classifier: below 0 is worse than it.",
        plot_measure(res, "kappa_m"),
    )
    if not res.tests.empty:
        alpha = res.config.get("alpha", 0.05)
        figure(
            "tests",
            "Across-fold tests over time",
            f"Statistic, p-value against alpha = {alpha} and decision at every check.",
            plot_tests(res),
        )
        table(
            "tests",
            "Final test decisions",
            f"At row {int(res.tests['position'].max())}.",
            _final_tests_table(res),
        )
        table(
            "decisions",
            "Decisions over time",
            "How often and since when each test rejected H0 (equal performance).",
            _decisions_rows(res),
        )
    figure(
        "adwin_width",
        "ADWIN window width",
        "Rows inside each fold's ADWIN window: it shrinks after a detected change.",
        plot_adwin_width(res),
    )
    figure(
        "baselines",
        "Baselines",
        "Learners against the Majority and Persistent baselines.",
        plot_baselines(res),
    )
    table("config", "Configuration", "The run's settings (config.json).", _config_rows(res))
    return sections


def _title(res: Results) -> str:
    c = res.config
    stream = c.get("stream_name") or c.get("stream") or "stream"
    scheme = f"{c.get('n_folds', '?')}-fold {c.get('scheme', '')}".strip()
    return f"distval report: {stream}, {scheme}, {res.final_position} rows"


def _markdown(res: Results, sections: list[dict]) -> str:
    lines = [f"# {_title(res)}", "", f"Learners: {', '.join(res.labels)}.", ""]
    for s in sections:
        lines += [f"## {s['title']}", "", s["caption"], ""]
        if s["kind"] == "figure":
            lines += [f"![{s['title']}]({s['file']})", ""]
        else:
            lines.append("| " + " | ".join(s["columns"]) + " |")
            lines.append("|" + "---|" * len(s["columns"]))
            lines += ["| " + " | ".join(r) + " |" for r in s["rows"]]
            lines.append("")
    return "\n".join(lines)


_CSS = """
body{font-family:system-ui,sans-serif;max-width:1200px;margin:2em auto;padding:0 1em;color:#222}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ccc}
figure{margin:1em 0}img{max-width:100%;height:auto;border:1px solid #ddd}
figcaption,p.caption{color:#555;font-size:.9em}
table{border-collapse:collapse;font-size:.85em}th,td{border:1px solid #ccc;padding:.25em .6em}
th{background:#f0f0f0}td{text-align:right}td:first-child,td:nth-child(2){text-align:left}
"""


def _html(res: Results, sections: list[dict]) -> str:
    import base64
    from html import escape

    title = escape(_title(res))
    toc = "".join(f'<li><a href="#{s["id"]}">{escape(s["title"])}</a></li>' for s in sections)
    body = []
    for s in sections:
        head = f"<h2>{escape(s['title'])}</h2>"
        if s["kind"] == "figure":
            data = base64.b64encode(s["png"]).decode("ascii")
            body.append(
                f'<section>{head}<figure id="{s["id"]}" data-file="{s["file"]}">'
                f'<img alt="{escape(s["title"])}" src="data:image/png;base64,{data}">'
                f"<figcaption>{escape(s['caption'])}</figcaption></figure></section>"
            )
        else:
            ths = "".join(f"<th>{escape(c)}</th>" for c in s["columns"])
            trs = "".join(
                "<tr>" + "".join(f"<td>{escape(v)}</td>" for v in r) + "</tr>" for r in s["rows"]
            )
            body.append(
                f'<section>{head}<p class="caption">{escape(s["caption"])}</p>'
                f'<table id="{s["id"]}"><thead><tr>{ths}</tr></thead>'
                f"<tbody>{trs}</tbody></table></section>"
            )
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{title}</title>'
        f"<style>{_CSS}</style></head><body><h1>{title}</h1>"
        f"<p>Learners: {escape(', '.join(res.labels))}.</p>"
        f'<nav><h2>Contents</h2><ul id="contents">{toc}</ul></nav>'
        + "\n".join(body)
        + "</body></html>\n"
    )


def make_report(results_dir, out_dir=None) -> Path:
    """Write the figures, ``report.html`` and ``report.md`` of a results directory.

    Parameters
    ----------
    results_dir
        A directory written by :func:`distval.evaluate` (``output_dir``) or ``distval run``
        (for a robustness run: its ``original`` sub-directory).
    out_dir
        Where to write (created if needed); default: the results directory itself.

    Returns
    -------
    pathlib.Path
        The path of ``report.html``.
    """
    res = load_results(results_dir)
    out = Path(out_dir) if out_dir is not None else res.directory
    from distval.errors import DistvalError

    if out.exists() and not out.is_dir():
        raise DistvalError(f"report output {out} exists and is not a directory")
    out.mkdir(parents=True, exist_ok=True)
    sections = _sections(res)
    for s in sections:
        if s["kind"] == "figure":
            (out / s["file"]).write_bytes(s["png"])
    (out / "report.md").write_text(_markdown(res, sections))
    path = out / "report.html"
    path.write_text(_html(res, sections), encoding="utf-8")
    return path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("results_dir", metavar="RESULTS_DIR", help="a run's output directory")
    parser.add_argument(
        "--output",
        default=None,
        metavar="DIR",
        help="where to write the PNG figures, report.html and report.md (default: RESULTS_DIR)",
    )


def main(args) -> int:
    path = make_report(args.results_dir, args.output)
    print(f"report: {path}")
    print(f"summary: {path.with_name('report.md')}")
    return 0
