"""McNemar's discordant counts of every learner pair under each forgetting mechanism (gama2013
§4.1).
"""

from __future__ import annotations

from collections import deque

import numpy as np

__all__ = ["PairCounts"]


class PairCounts:
    """Per learner pair, row by row: McNemar's discordant counts and both learners' losses,
    cumulative, over a sliding window of stream rows and faded (gama2013 §4).

    ``update(d01, d10, loss_a, loss_b)`` takes (pairs, rows) arrays: ``d01`` counts the folds
    where A was wrong and B right on that row, ``d10`` the reverse, ``loss_a`` / ``loss_b``
    the 0/1 losses summed over the folds that tested the row for both. The window covers the
    last ``window`` stream rows; the fading factor weighs a row j rows old by ``factor ** j``.

    >>> d = PairCounts(n_pairs=1, window=2, factor=0.5)
    >>> d.update(*np.array([[[1, 0, 2]], [[0, 1, 0]], [[1, 1, 2]], [[0, 1, 0]]]))
    >>> d.counts()["window"][:2], d.counts()["fading"][:2], d.counts()["cumulative"][:2]
    ((array([2.]), array([1.])), (array([2.25]), array([0.5])), (array([3.]), array([1.])))
    """

    def __init__(self, n_pairs: int, window: int, factor: float) -> None:
        self.window, self.factor = window, factor
        self.cum = np.zeros((4, n_pairs))
        self.win = np.zeros((4, n_pairs))
        self.fade = np.zeros((4, n_pairs))
        self._recent: deque[np.ndarray] = deque()
        self._recent_rows = 0

    def update(
        self, d01: np.ndarray, d10: np.ndarray, loss_a: np.ndarray, loss_b: np.ndarray
    ) -> None:
        d = np.stack([d01, d10, loss_a, loss_b]).astype(np.float64)  # (4, pairs, rows)
        n = d.shape[2]
        self.cum += d.sum(axis=2)
        decay = self.factor ** np.arange(n - 1, -1, -1, dtype=np.float64)
        self.fade = self.fade * self.factor**n + d @ decay
        self._recent.append(d)
        self.win += d.sum(axis=2)
        self._recent_rows += n
        while self._recent_rows > self.window:
            extra = self._recent_rows - self.window
            head = self._recent[0]
            if head.shape[2] <= extra:
                self._recent.popleft()
                self.win -= head.sum(axis=2)
                self._recent_rows -= head.shape[2]
            else:
                self.win -= head[:, :, :extra].sum(axis=2)
                self._recent[0] = head[:, :, extra:]
                self._recent_rows -= extra

    def counts(self) -> dict[str, tuple[np.ndarray, ...]]:
        """(n01, n10, loss of A, loss of B) per pair, per forgetting."""
        return {
            "cumulative": tuple(self.cum),
            "window": tuple(self.win),
            "fading": tuple(self.fade),
        }
