"""Sums of per-row cells over a window of each slot, under four forgetting mechanisms.

A slot's window is summarised by sums of a few numbers per tested row (its *cells*); any
measure that is a function of those sums (a regression task's MAE, RMSE, R²:
:mod:`distval.tasks.regression`) is then served by one mechanism of forgetting:

- ``cumulative``: every row the slot tested; ``window``: its last ``window`` tested rows;
- ``fading``: every tested row, the one tested ``j`` rows ago weighted ``fading ** j``;
- ``adwin``: the rows inside an ADWIN window run on a per-row value the caller gives (the
  compiled ADWIN of :mod:`distval.metrics.kernels`, river's arithmetic; its buckets sum the
  cells as the classification windows' buckets sum confusion counts).

>>> w = SumWindows("cumulative", n_slots=1, n_cells=2)
>>> w.update(np.ones((1, 2), bool), np.array([[[1.0, 2.0], [1.0, 3.0]]]), np.zeros((1, 2)))
>>> w.sums.tolist()
[[2.0, 5.0]]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from distval.errors import DistvalError, check_open_unit, check_positive_int
from distval.metrics.kernels import ADWINState, adwin_settings, adwin_sums_batch
from distval.metrics.trackers import Windows, _room, window_settings

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = ["SUM_FORGETTING", "SumWindows"]

#: Forgetting mechanisms of the sum windows (``ewma`` is classification's Algorithm 1 of
#: zliobaite2015, whose estimators are class shares, not sums).
SUM_FORGETTING = ("adwin", "window", "fading", "cumulative")


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

    def __init__(self, kind: str, n_slots: int, n_cells: int, **settings: Unpack[Windows]) -> None:
        if kind not in SUM_FORGETTING:
            raise DistvalError(
                f"forgetting {kind!r} does not apply to sums of errors; choose one of "
                f"{', '.join(SUM_FORGETTING)}"
            )
        self.name = kind
        self.n_slots, self.n_cells = n_slots, n_cells
        window, fading, adwin_delta = window_settings(settings)
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
