"""Regression measures per slot under four forgetting mechanisms, from sums of per-row cells.

A regression slot's window is summarised by sums of a few numbers per tested row (its
*cells*); every measure is a function of those sums, so one mechanism of forgetting serves
them all:

- ``cumulative``: every row the slot tested; ``window``: its last ``window`` tested rows;
- ``fading``: every tested row, the one tested ``j`` rows ago weighted ``fading ** j``;
- ``adwin``: the rows inside an ADWIN window run on the slot's per-row absolute error (the
  compiled ADWIN of :mod:`distval.metrics.kernels`, river's arithmetic; its buckets sum the
  cells as the classification windows' buckets sum confusion counts).

The cells of :class:`RegressionTracker` are, per row with target ``y`` and prediction
``p`` (error ``e = y - p``): 1, ``|e|``, ``e²``, ``y - K``, ``(y - K)²`` (``K`` a fixed shift,
the stream's first target, which keeps the sum of squares accurate), ``(y - m)²`` with ``m``
the *mean* baseline's prediction (the mean of every earlier target of the stream) and
``(y - y_prev)²`` the *persistent* baseline's (the previous target of the stream). From them
(:func:`regression_measures`): MAE, RMSE, R² (``1 - SSE / SST``, SST about the mean of the
window's own targets, as scikit-learn's ``r2_score`` and river's ``R2`` on those rows), the
baselines' RMSE over the same rows, and the learner's RMSE relative to each (below 1: better
than the baseline). ``docs/regression.md`` says what they mean.

>>> t = RegressionTracker("cumulative", n_slots=1)
>>> y = np.array([1.0, 2.0, 4.0])
>>> t.update(np.array([[0.0, 2.0, 3.0]]), y, mean_pred=np.array([0.0, 1.0, 1.5]),
...          prev=np.array([0.0, 1.0, 2.0]), shift=1.0)
>>> m = t.get()
>>> [round(float(m[k][0]), 4) for k in ("mae", "rmse", "r2")]
[0.6667, 0.8165, 0.5714]
"""

from __future__ import annotations

import numpy as np

from distval.errors import DistvalError, check_open_unit, check_positive_int
from distval.metrics.kernels import ADWINState, adwin_settings, adwin_sums_batch
from distval.metrics.trackers import _room

__all__ = [
    "REGRESSION_FORGETTING",
    "REGRESSION_HIGHER_IS_BETTER",
    "REGRESSION_MEASURES",
    "RegressionTracker",
    "SumWindows",
    "regression_measures",
]

#: The per-fold regression measures, in the fold table's column order.
REGRESSION_MEASURES = (
    "mae", "rmse", "r2", "rmse_mean", "rmse_per", "rel_rmse_mean", "rel_rmse_per",
)
#: Of them, those where higher is better (the others are errors: lower is better).
REGRESSION_HIGHER_IS_BETTER = ("r2",)
#: Forgetting mechanisms of the regression windows (``ewma`` is classification's
#: Algorithm 1 of zliobaite2015, whose estimators are class shares).
REGRESSION_FORGETTING = ("adwin", "window", "fading", "cumulative")

#: Cells of a row of :class:`RegressionTracker`: count, |e|, e², y-K, (y-K)², mean and
#: persistent baselines' squared errors.
N_CELLS = 7


class SumWindows:
    """Per slot, the sums of per-row cells over the rows the slot's window holds.

    ``update(tested, cells, adwin_values)`` takes a batch: ``tested`` (slots, rows) which
    rows each slot tested, ``cells`` (slots, rows, c) their cells, ``adwin_values`` (slots,
    rows) what ADWIN watches (used by ``adwin`` only). :attr:`sums` (slots, c) are the sums
    over each window, weighted by the fading factor with ``fading``; :attr:`widths` the
    rows in each window (faded: their weight).

    >>> w = SumWindows("window", n_slots=1, n_cells=2, window=2)
    >>> cells = np.array([[[1.0, 5.0], [1.0, 7.0], [1.0, 9.0]]])
    >>> w.update(np.ones((1, 3), bool), cells, np.zeros((1, 3)))
    >>> w.sums.tolist(), w.widths.tolist()
    ([[2.0, 16.0]], [2.0])
    """

    def __init__(
        self,
        kind: str,
        n_slots: int,
        n_cells: int,
        *,
        window: int = 1000,
        fading: float = 0.999,
        adwin_delta: float = 0.002,
    ) -> None:
        if kind not in REGRESSION_FORGETTING:
            raise DistvalError(
                f"forgetting {kind!r} does not apply to regression; choose one of "
                f"{', '.join(REGRESSION_FORGETTING)}"
            )
        self.name = kind
        self.n_slots, self.n_cells = n_slots, n_cells
        self.size = check_positive_int(window, "window")
        self.factor = check_open_unit(fading, "fading factor")
        self.sums = np.zeros((n_slots, n_cells))
        self._buffers = [np.zeros((0, n_cells)) for _ in range(n_slots)]
        if kind == "adwin":
            self._params = adwin_settings(check_open_unit(adwin_delta, "ADWIN's delta"))
            self._adwin = ADWINState.empty(n_slots)
            self._bc = np.zeros((n_slots, 1, self._adwin.bt.shape[2], n_cells))

    def update(self, tested: np.ndarray, cells: np.ndarray, adwin_values: np.ndarray) -> None:
        tested = np.asarray(tested, dtype=bool)
        kept = np.where(tested[:, :, None], cells, 0.0)
        if self.name == "cumulative":
            self.sums += kept.sum(axis=1)
        elif self.name == "fading":
            # a tested row's weight: the factor to the power of the tested rows after it
            after = np.cumsum(tested[:, ::-1], axis=1)[:, ::-1] - tested
            weight = np.where(tested, self.factor ** after.astype(np.float64), 0.0)
            m = tested.sum(axis=1).astype(np.float64)
            self.sums = self.sums * (self.factor**m)[:, None] + np.einsum(
                "sn,snc->sc", weight, kept
            )
        elif self.name == "window":
            for s in range(self.n_slots):
                rows = cells[s][tested[s]]
                if len(rows):
                    buf = np.concatenate([self._buffers[s], rows])[-self.size :]
                    self._buffers[s] = buf
                    self.sums[s] = buf.sum(axis=0)
        else:
            values = np.where(tested, adwin_values, np.nan).astype(np.float64)
            self._bc = _room(self._bc, self._adwin.stat[:, 2], values.shape[1])
            adwin_sums_batch(
                np.ascontiguousarray(values), np.ascontiguousarray(cells, dtype=np.float64),
                self._adwin, self._bc, self._params, self.sums,
            )

    @property
    def widths(self) -> np.ndarray:
        """Rows in each slot's window (fading: their summed weight)."""
        if self.name == "adwin":
            out: np.ndarray = self._adwin.stat[:, 2].copy()
            return out
        weights: np.ndarray = self.sums[:, 0].copy()
        return weights


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

    def __init__(
        self,
        kind: str,
        n_slots: int,
        *,
        window: int = 1000,
        fading: float = 0.999,
        adwin_delta: float = 0.002,
    ) -> None:
        self.name = kind
        self.windows = SumWindows(
            kind, n_slots, N_CELLS, window=window, fading=fading, adwin_delta=adwin_delta
        )

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
