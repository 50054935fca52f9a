"""Feeding an aggregator predictions batch by batch, as the engine does (tests only)."""

from __future__ import annotations

import numpy as np


def feed(agg, y: np.ndarray, pred: np.ndarray, size: int) -> list:
    """Every snapshot ``agg`` emits while it takes ``y`` and ``pred`` (slots x rows) in
    batches of ``size`` rows."""
    snaps = []
    for lo in range(0, len(y), size):
        hi = lo + size
        snap = agg.update(lo, y[lo:hi], [(np.arange(pred.shape[0]), pred[:, lo:hi])])
        if snap:
            snaps.append(snap)
    return snaps
