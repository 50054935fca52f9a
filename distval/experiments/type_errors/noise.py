"""The changes a cell makes to the second learner: noise on its predictions (the paper's
filter, bifet2015 §4.1) or on its training labels (MOA's ``AddNoiseFilter -c``), and the one
(row, fold) pair per row that McNemar's row variant draws.

>>> import numpy as np
>>> noise_filter(np.array([0, 1, -1]), 0.0, 2, np.random.default_rng(0)).tolist()
[0, 1, -1]
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["label_noise", "noise_filter", "one_pair_per_row"]

BoolArray = npt.NDArray[np.bool_]


def noise_filter(
    pred: npt.NDArray[Any], pnoise: float, n_classes: int, rng: np.random.Generator
) -> npt.NDArray[Any]:
    """Replace each prediction, with probability ``pnoise``, by one of the other classes.

    The replacement is uniform over the ``n_classes - 1`` other classes (bifet2015 §4.1), so
    a learner of accuracy p0 becomes one of accuracy
    ``p0 (1 - pnoise) + (1 - p0) pnoise / (c - 1)`` (bifet2015 §4.1 derives the same kind
    of formula). Entries of -1 (not tested) stay -1.

    >>> rng = np.random.default_rng(0)
    >>> out = noise_filter(np.zeros(10_000, dtype=np.int32), 0.1, 3, rng)
    >>> round(float((out != 0).mean()), 2), sorted(np.unique(out).tolist())
    (0.1, [0, 1, 2])
    """
    pred = np.asarray(pred)
    if n_classes < 2:
        return np.array(pred, copy=True)
    flip = (rng.random(pred.shape) < pnoise) & (pred >= 0)
    shift = rng.integers(1, n_classes, size=pred.shape)
    return np.where(flip, (pred + shift) % n_classes, pred).astype(pred.dtype)


def label_noise(
    y: npt.NDArray[Any], pnoise: float, rng: np.random.Generator, seen: BoolArray
) -> tuple[npt.NDArray[Any], BoolArray]:
    """MOA's ``AddNoiseFilter`` on the class labels (``-c pnoise -a 0``): the noisy labels
    and where they differ from ``y``.

    Row by row, as MOA does: the row's class joins the classes ``seen`` so far (updated in
    place); with probability ``pnoise``, and if more than one class has been seen, the
    label is redrawn uniformly among the *other* seen classes (MOA draws until the class
    differs from the original and has been seen). A flip therefore always changes the label.

    >>> rng = np.random.default_rng(0)
    >>> seen = np.zeros(3, dtype=bool)
    >>> y = np.tile(np.arange(3), 4000)
    >>> noisy, flip = label_noise(y, 0.1, rng, seen)
    >>> bool((noisy[flip] != y[flip]).all()), bool((noisy[~flip] == y[~flip]).all())
    (True, True)
    >>> round(float(flip.mean()), 2), seen.tolist()
    (0.1, [True, True, True])
    """
    y = np.asarray(y)
    draw = rng.random(len(y)) < pnoise
    noisy = np.array(y, copy=True)
    flip = np.zeros(len(y), dtype=bool)
    for i in range(len(y)):
        seen[y[i]] = True
        if draw[i]:
            others = np.flatnonzero(seen)
            others = others[others != y[i]]
            if len(others):
                noisy[i] = others[rng.integers(len(others))]
                flip[i] = True
    return noisy, flip


def one_pair_per_row(masks: BoolArray, rng: np.random.Generator) -> BoolArray:
    """One tested (row, fold) pair per row: of the folds ``masks`` (..., folds, rows) marks
    for a row, one drawn uniformly; rows with no tested fold keep none.

    >>> m = np.array([[True, False], [True, True], [True, False]])  # 3 folds, 2 rows
    >>> pick = one_pair_per_row(m, np.random.default_rng(1))
    >>> pick.sum(axis=0).tolist(), bool((pick <= m).all())
    ([1, 1], True)
    """
    score = np.where(masks, rng.random(masks.shape), -1.0)
    best = score.argmax(axis=-2)
    pick = np.zeros_like(masks)
    np.put_along_axis(pick, np.expand_dims(best, -2), True, axis=-2)
    return pick & masks
