"""The last rows each fold tested: what accuracy over a window at the end is computed from.

MOA's ``EvaluatePrequential`` scores with a ``WindowClassificationPerformanceEvaluator``
(``-w 1000`` by default): the accuracy over the last 1,000 rows its evaluator was given.
With one evaluator per fold, each fold's window holds the last ``size`` (row, fold) pairs
that fold tested (in the prequential variant every fold tests every row, so the last
``size`` rows). :class:`Tail` keeps just enough of a cell's recent batches for that and
gives them back trimmed to each fold's window.

>>> import numpy as np
>>> tail = Tail(3)
>>> ca = np.ones((2, 4), bool)                     # A right (folds, rows)
>>> cb = np.zeros((1, 2, 4), bool)                 # B right (B variants, folds, rows)
>>> masks = np.array([[[1, 0, 1, 1], [1, 1, 1, 1]]], bool)  # (variants, folds, rows)
>>> tail.add(ca, cb, masks, masks)
>>> tail.add(ca, cb, masks, masks)
>>> len(tail.parts)  # the second batch alone holds both folds' windows
1
>>> kept = tail.trimmed()[2]
>>> kept.sum(axis=-1).tolist()  # each fold's last 3 tested pairs
[[3, 3]]
>>> kept[0].astype(int).tolist()
[[1, 0, 1, 1], [0, 1, 1, 1]]
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = ["Tail"]

BoolArray = npt.NDArray[np.bool_]


class Tail:
    """The recent batches of a cell, ``(ca, cb, masks, picks)`` as the cell's counts take
    them; batches older than every fold's last ``size`` tested pairs are dropped."""

    def __init__(self, size: int) -> None:
        self.size = int(size)
        self.parts: list[tuple[BoolArray, BoolArray, BoolArray, BoolArray]] = []
        self.tested: list[npt.NDArray[np.int64]] = []  # per part, (variants, folds)

    def add(self, ca: BoolArray, cb: BoolArray, masks: BoolArray, picks: BoolArray) -> None:
        self.parts.append((ca, cb, masks, picks))
        self.tested.append(masks.sum(axis=-1))
        while len(self.parts) > 1:
            rest = np.sum(self.tested[1:], axis=0)
            # the oldest part matters to a (variant, fold) short of a window without it
            if np.any((rest < self.size) & (self.tested[0] > 0)):
                break
            self.parts.pop(0)
            self.tested.pop(0)

    def trimmed(self) -> tuple[BoolArray, BoolArray, BoolArray, BoolArray]:
        """The kept rows, with ``masks`` (and ``picks``) cut to each fold's last ``size``
        tested pairs."""
        ca, cb, masks, picks = (np.concatenate(p, axis=-1) for p in zip(*self.parts))
        from_end = np.cumsum(masks[..., ::-1], axis=-1)[..., ::-1]
        keep = masks & (from_end <= self.size)
        return ca, cb, keep, picks & keep
