"""Regression: the learners predict a number, scored by its absolute and squared error.

Per (learner, fold) window the measures are MAE, RMSE, R² (``1 - SSE / SST``, SST about the
mean of the window's own targets, as scikit-learn's ``r2_score`` and river's ``R2`` on those
rows), the two baselines' RMSE over the same rows and the learner's RMSE relative to each
(below 1: better than the baseline). The baselines are computed once on the global stream:
the *mean* predictor predicts the mean of every earlier target, the *last value* (persistent)
predictor the previous target (the first row, which has no earlier target, counts as
predicted exactly by both). ``docs/regression.md`` says what they mean.

Each window is summarised by sums of per-row *cells* (:class:`~distval.metrics.sums.SumWindows`):
per row with target ``y`` and prediction ``p`` (error ``e = y - p``): 1, ``|e|``, ``e²``,
``y - K``, ``(y - K)²`` (``K`` a fixed shift, the stream's first target, which keeps the sum of
squares accurate), ``(y - m)²`` with ``m`` the mean baseline's prediction and
``(y - y_prev)²`` the last value's.

The verdict of a pair follows the per-row sign of ``|e_B| - |e_A|``: the share of rows on
which A's prediction is the closer less the share on which B's is (bounded in [-1, 1]
whatever the target's scale, so the empirical-Bernstein confidence sequence holds as for 0/1
losses); its line says the measure first (RMSE on the same rows) and this tested quantity
after it.

>>> t = RegressionTracker("cumulative", n_slots=1)
>>> y = np.array([1.0, 2.0, 4.0])
>>> t.update(np.array([[0.0, 2.0, 3.0]]), y, mean_pred=np.array([0.0, 1.0, 1.5]),
...          prev=np.array([0.0, 1.0, 2.0]), shift=1.0)
>>> m = t.get()
>>> [round(float(m[k][0]), 4) for k in ("mae", "rmse", "r2")]
[0.6667, 0.8165, 0.5714]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa

from distval.columns import FOLD_KEYS
from distval.errors import DistvalError
from distval.metrics.sums import SUM_FORGETTING, SumWindows
from distval.streams import Stream
from distval.streams.regression import open_regression_stream
from distval.tasks.base import CLOSER, Config, Learners, Task, and_words, baselines, fold_mean

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from distval.metrics.trackers import Windows

__all__ = [
    "REGRESSION_MEASURES",
    "Regression",
    "RegressionTracker",
    "regression_measures",
    "regression_verdict_line",
]

#: The per-fold regression measures, in the fold table's column order.
REGRESSION_MEASURES = (
    "mae", "rmse", "r2", "rmse_mean", "rmse_per", "rel_rmse_mean", "rel_rmse_per",
)
#: Cells of a row of :class:`RegressionTracker`: count, |e|, e², y-K, (y-K)², mean and
#: last-value baselines' squared errors.
N_CELLS = 7

#: Names of the measures in lines and tables.
_NAMES = {"rmse": "RMSE", "mae": "MAE", "r2": "R²", "rmse_mean": "RMSE of the mean",
          "rmse_per": "RMSE of the last value", "rel_rmse_mean": "RMSE / mean's",
          "rel_rmse_per": "RMSE / last value's"}
_AXES = {"rmse": "RMSE (target units)", "mae": "MAE (target units)",
         "r2": "R² (share of variance explained)"}


class Regression(Task):
    """A numeric target, absolute and squared errors (see the module)."""

    name = "regression"
    fold_schema = pa.schema([*FOLD_KEYS, *[(m, pa.float64()) for m in REGRESSION_MEASURES]])
    compared = ("rmse", "mae", "r2")
    forgetting = SUM_FORGETTING
    tests = ("sign", "wilcoxon", "friedman")
    shown = ("rmse", "mae", "r2", "rel_rmse_mean", "rel_rmse_per")
    compact = (("rmse", "RMSE"), ("mae", "MAE"), ("r2", "R²"), ("rel_rmse_mean", "÷ mean"),
               ("rel_rmse_per", "÷ last value"))
    cumulative = "rmse"
    loss = "sign of the absolute-error difference (which prediction is closer)"
    over_time = (
        ("rmse", "RMSE over time",
         "Thin lines: single folds; thick line: mean over folds; band: min-max over folds; "
         "dotted: cumulative mean; in the target's units."),
        ("r2", "R² over time",
         "R²: the share of the target's variance over each window that the learner "
         "explains; below 0 is worse than the window's own mean."),
    )
    baseline_figure = ("rmse", (("rmse_per", "last value (persistent), same rows", "k--"),
                                ("rmse_mean", "mean of earlier targets, same rows", "k:")))
    numeric_target = True
    baseline_caption = (
        "Learners' RMSE against the mean of the earlier targets and the last value "
        "(persistent), on the rows the folds tested, in the target's units; right: each "
        "learner's RMSE divided by theirs (above 1: worse than the baseline).")
    sequence_axis = "rows where A is closer − rows where B is (% of rows)"
    relative = ((("rel_rmse_mean", "RMSE ÷ mean's"), ("rel_rmse_per", "RMSE ÷ last value's")),
                ("RMSE relative to the mean predictor and the last value",
                 "RMSE ÷ baseline's RMSE, same rows", 1.0, "above 1: worse than the baseline"))
    title_word = "regression"
    units = "in the target's units (R² and the ratios: plain numbers)"

    def higher_is_better(self, measure: str) -> bool:
        return measure in ("r2", CLOSER)

    def tested_measure(self, measure: str) -> str:
        return CLOSER

    def difference_words(self, measure: str) -> str:
        return ("as the verdict tests it: the share of rows on which A's prediction is the "
                "closer less the share on which B's is (% of rows)")

    def open_stream(self, config: Config) -> Stream:
        """A regression stream (:mod:`distval.streams.regression`): a numeric target."""
        return open_regression_stream(config.stream, target=config.target,
                                      n_rows=config.n_rows, seed=config.seed)

    def label(self, measure: str) -> str:
        return _AXES.get(measure, _NAMES.get(measure, measure))

    def check(self, config: Config) -> None:
        """What a regression run cannot do yet, refused in one line."""
        if config.measure not in self.compared:
            raise DistvalError(
                f"measure {config.measure!r} is a classification measure; a regression run "
                f"compares one of {', '.join(self.compared)}"
            )
        if config.forgetting not in self.forgetting:
            raise DistvalError(
                f"{config.forgetting} forgetting estimates class shares (classification); a "
                "regression run takes adwin, window, fading or cumulative"
            )
        if "mcnemar" in (config.tests or ()):
            raise DistvalError("McNemar's test counts 0/1 errors: not for a regression run")
        unsupported = {
            "delay": config.delay is not None or config.label_probability != 1.0,
            "drift": config.drift,
            "sequential evalue": config.sequential == "evalue",
        }
        for what, given in unsupported.items():
            if given:
                raise DistvalError(f"--{what} is not available for regression yet")

    def decimals(self, measure: str, value: float) -> int:
        if measure == "r2" or measure.startswith("rel_"):
            return 3
        return super().decimals(measure, value)

    def baseline(self, learners: Learners, names: Mapping[str, str]) -> dict[str, Any] | None:
        """The learners' RMSE over all rows against the mean predictor's and the last
        value's on the same rows.

        >>> m = lambda r, mean, per: {"rmse": {"mean": r}, "rmse_mean": {"mean": mean},
        ...                           "rmse_per": {"mean": per}}
        >>> b = Regression().baseline({"htr": {"cumulative": m(2.45, 4.95, 7.0)},
        ...     "linreg": {"cumulative": m(2.91, 4.95, 7.0)}}, {})
        >>> import textwrap; print(textwrap.fill(b["line"], 80))
        baseline: htr and linreg beat the mean predictor: RMSE 2.450 and 2.910 against
        4.950 on the same rows; the last value 7.000
        """
        got = baselines(learners, "rmse_mean", "rmse_per")
        if got is None:
            return None
        cum, r_mean, (r_per,) = got
        mean = fold_mean
        rmse = {label: v for label, m in cum.items() if (v := mean(m, "rmse")) is not None}
        if not rmse:
            return None
        digits = self.decimals("rmse", r_mean)

        def num(v: float) -> str:
            return f"{v:.{digits}f}"

        beat = [k for k, v in rmse.items() if v < r_mean]
        below = [k for k in rmse if k not in beat]
        parts = []
        for group, verb in ((beat, "beat" if len(beat) > 1 else "beats"),
                            (below, "do not beat" if len(below) > 1 else "does not beat")):
            if group:
                who = and_words([names.get(k, k) for k in group])
                values = and_words([num(rmse[k]) for k in group])
                parts.append(f"{who} {verb} the mean predictor: RMSE {values} against "
                             f"{num(r_mean)} on the same rows")
        line = "baseline: " + "; ".join(parts)
        if r_per is not None:
            behind = [names.get(k, k) for k, v in rmse.items() if v >= r_per]
            line += f"; the last value {num(r_per)}"
            if behind:
                line += f" ({and_words(behind)} not below it)"
        return {"mean": r_mean, "persistent": r_per, "below_mean": below, "line": line}


def regression_verdict_line(
    a: str, b: str, cs: dict[str, Any], level: float, margin: float, favouring: int,
    folds: int, measure: str, values: tuple[float, float], window: float,
    cited: tuple[str, float, str | None, bool, str | None] | None,
) -> str:
    """The verdict of one regression pair as one line: first the measure on the same rows
    (the folds' paired windows), then the tested quantity, the running mean of the per-row
    sign of ``|e_B| - |e_A|`` (the share of rows on which A is the closer less the share on
    which B is) with its confidence sequence, then the cited fold test.

    >>> cs = {"rows": 9000, "mean": 0.21, "lower": 0.18, "upper": 0.24, "decision": "A"}
    >>> for part in regression_verdict_line("htr", "linreg", cs, 0.95, 0.0, 10, 10, "rmse",
    ...     (2.1, 3.0), 1200.0, ("wilcoxon", 0.002, "htr", True, None)).split("; "):
    ...     print(part)
    htr better than linreg: RMSE 2.100 vs 3.000 on the same rows, 10/10 folds favour htr
    tested: htr is the closer on 21.0 % more of the 9,000 rows than linreg (95% CS 18.0 to 24.0)
    Wilcoxon p 0.002 on the last 1,200 paired rows
    valid under peeking
    """
    pct = f"{100 * level:.4g}% CS"
    mean = cs["mean"] if cs["mean"] == cs["mean"] else 0.0
    rows = f"the {cs['rows']:,} rows" if cs["rows"] else "the rows"
    decision = cs["decision"]
    name = _NAMES.get(measure, measure)
    win = a if mean >= 0 else b
    if decision in ("A", "B"):
        win = a if decision == "A" else b
    lose = b if win == a else a
    s = 1.0 if win == a else -1.0
    lo, hi = sorted((100 * s * cs["lower"], 100 * s * cs["upper"]))
    # the values in the order the head names the learners: the winner first once decided
    va, vb = values if win == a or decision not in ("A", "B") else values[::-1]
    digits = Regression().decimals(measure, va if va == va else 1.0)
    same = (f"{name} {va:.{digits}f} vs {vb:.{digits}f} on the same rows"
            if va == va and vb == vb else f"{name} not measured yet")
    folds_text = f", {favouring}/{folds} folds favour {win}" if folds else ""
    tested = (f"tested: {win} is the closer on {100 * s * mean:.1f} % more of {rows} than "
              f"{lose} ({pct} {lo:.1f} to {hi:.1f}")
    if decision in ("A", "B"):
        head = f"{win} better than {lose}: {same}{folds_text}"
        tested += ")"
    elif decision == "equivalent":
        head = f"{a} and {b} equivalent within {100 * margin:.1f} % of rows: {same}{folds_text}"
        tested += ")"
    else:
        head = f"{a} vs {b}: no verdict yet: {same}{folds_text}"
        tested += ", includes 0)"
    parts = [head, tested]
    if folds and decision in ("A", "B") and 2 * favouring < folds:
        parts.append(f"but the paired {name} favours {lose}: {win} is closer on more rows, "
                     f"{lose} errs less on the rows where errors are large")
    if cited is not None:
        test, p, fav, reject, correction = cited
        label = "Wilcoxon" if test == "wilcoxon" else "sign test"
        adj = f" ({correction})" if correction else ""
        where = ("over all paired rows" if not np.isfinite(window)
                 else f"on the last {round(window):,} paired rows")
        text = f"{label} p {p:.2g}{adj} {where}"
        if reject and fav and fav != win:
            text += f" (favours {fav})"
        parts.append(text)
    if decision != "undecided":
        parts.append("valid under peeking")
    return "; ".join(parts)


def regression_measures(sums: np.ndarray) -> dict[str, np.ndarray]:
    """The measures of :data:`REGRESSION_MEASURES` (and ``n``) from (slots, 7) sums of the
    cells of :class:`RegressionTracker`; NaN where a slot has no row (R²: where its targets
    do not vary).

    >>> s = np.array([[2.0, 3.0, 5.0, 1.0, 1.0, 8.0, 20.0]])
    >>> {k: round(float(v[0]), 3) for k, v in regression_measures(s).items()}
    {'n': 2.0, 'mae': 1.5, 'rmse': 1.581, 'r2': -9.0, 'rmse_mean': 2.0, 'rmse_per': 3.162, \
'rel_rmse_mean': 0.791, 'rel_rmse_per': 0.5}
    """
    n, abs_e, sq_e, y, y2, sq_mean, sq_per = (sums[:, i] for i in range(N_CELLS))
    with np.errstate(divide="ignore", invalid="ignore"):
        has = n > 0
        mae = np.where(has, abs_e / n, np.nan)
        rmse = np.where(has, np.sqrt(sq_e / n), np.nan)
        sst = y2 - y * y / n
        r2 = np.where(has & (sst > 1e-12 * np.maximum(y2, 1e-300)), 1.0 - sq_e / sst, np.nan)
        rmse_mean = np.where(has, np.sqrt(sq_mean / n), np.nan)
        rmse_per = np.where(has, np.sqrt(sq_per / n), np.nan)
        rel_mean = np.where(rmse_mean > 0, rmse / rmse_mean, np.nan)
        rel_per = np.where(rmse_per > 0, rmse / rmse_per, np.nan)
    return {
        "n": n.copy(), "mae": mae, "rmse": rmse, "r2": r2, "rmse_mean": rmse_mean,
        "rmse_per": rmse_per, "rel_rmse_mean": rel_mean, "rel_rmse_per": rel_per,
    }


class RegressionTracker:
    """The regression measures of every slot under one forgetting mechanism.

    ``update(pred, y, mean_pred, prev, shift)`` takes a batch: ``pred`` (slots, rows)
    predictions with NaN where the slot did not test the row, ``y`` (rows,) the targets,
    ``mean_pred`` and ``prev`` (rows,) the mean and persistent baselines' predictions of
    them, ``shift`` the fixed shift ``K`` of the targets' sums. ADWIN (``adwin``) watches
    each slot's absolute error.
    """

    def __init__(self, kind: str, n_slots: int, **settings: Unpack[Windows]) -> None:
        self.name = kind
        self.windows = SumWindows(kind, n_slots, N_CELLS, **settings)

    def update(
        self, pred: np.ndarray, y: np.ndarray, mean_pred: np.ndarray, prev: np.ndarray,
        shift: float,
    ) -> None:
        tested = ~np.isnan(pred)
        err = np.where(tested, y[None, :] - pred, 0.0)
        yk = y - shift
        shared = np.stack([yk, yk * yk, (y - mean_pred) ** 2, (y - prev) ** 2], axis=1)
        cells = np.empty((*pred.shape, N_CELLS))
        cells[:, :, 0] = 1.0
        cells[:, :, 1] = np.abs(err)
        cells[:, :, 2] = err * err
        cells[:, :, 3:] = shared[None, :, :]
        self.windows.update(tested, cells, np.abs(err))

    def get(self) -> dict[str, np.ndarray]:
        """:func:`regression_measures` of every slot's window."""
        return regression_measures(self.windows.sums)

    @property
    def widths(self) -> np.ndarray:
        return self.windows.widths
