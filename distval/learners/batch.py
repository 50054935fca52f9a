"""A batch of consecutive stream rows with their fold routing (what travels to the learner
hosts), and the rows as the dicts river's learners read.

>>> b = Batch(0, np.zeros((2, 1)), np.array([1, 0]), np.ones((2, 3), np.int32),
...           np.ones((2, 3), bool))
>>> len(b), b.scored_y.tolist()
(2, [1, 0])
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from distval.learners.nominal import category_names
from distval.routing.delays import Release

__all__ = ["Batch", "to_dicts"]


@dataclass(frozen=True, slots=True)
class Batch:
    """Consecutive stream rows with their fold routing; what travels to the hosts.

    ``weights`` and ``tested`` have shape (rows, folds). With delayed labels
    (:mod:`distval.routing.delays`) the replicas train on the rows of ``release``, not on these
    arrivals, and the measures score the released rows; ``revealed`` (rows,) marks the rows
    whose label the replicas get (None: all).
    """

    start: int
    X: np.ndarray
    y: np.ndarray
    weights: np.ndarray
    tested: np.ndarray
    release: Release | None = None
    revealed: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.y)

    @property
    def scored_y(self) -> np.ndarray:
        """The classes of the rows the measures score with this batch, in that order."""
        return self.y if self.release is None else self.release.y


def to_dicts(
    X: np.ndarray, names: list[str], nominal: dict[int, list[str]] | None = None
) -> list[dict[str, Any]]:
    """Rows as the dicts river expects, missing (NaN) features left out; the columns in
    ``nominal`` (index -> category names in code order) as their category names.

    >>> to_dicts(np.array([[1.0, np.nan], [3.0, 4.0]]), ["a", "b"])
    [{'a': 1.0}, {'a': 3.0, 'b': 4.0}]
    >>> to_dicts(np.array([[1.0, 0.5], [np.nan, 2.0]]), ["c", "b"], {0: ["red", "blue"]})
    [{'c': 'blue', 'b': 0.5}, {'b': 2.0}]
    """
    rows = X.tolist()
    if nominal:
        for j, cats in nominal.items():
            top = np.fmax.reduce(X[:, j]) if len(X) else np.nan
            if top == top and int(top) >= len(cats):
                cats[:] = category_names(cats, int(top) + 1)
            for r in rows:
                v = r[j]
                if v == v:
                    r[j] = cats[int(v)]
    missing = np.isnan(X).any(axis=1)
    if not missing.any():
        return [dict(zip(names, r)) for r in rows]
    out = []
    for r, skip in zip(rows, missing.tolist()):
        out.append({k: v for k, v in zip(names, r) if v == v} if skip else dict(zip(names, r)))
    return out
