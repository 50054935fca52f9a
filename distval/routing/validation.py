"""Which fold replicas test and train on each row: k-fold distributed validation.

bifet2015 §3 defines three ways of sharing a stream among k replicas of a learner,
each with a prequential variant ([methods](methods.md#validation-schemes)):

========== ===================================== ============================ ==============
scheme     training weight w[t, f]               tested (non-prequential)     prequential
========== ===================================== ============================ ==============
cv         0 for one fold f*, 1 for the others   f* only                      every fold
split      1 for one fold f*, 0 for the others   every fold but f*            every fold
bootstrap  Poisson(1) per fold                   folds with w = 0             every fold
========== ===================================== ============================ ==============

f* is drawn uniformly at random per row (the paper's rule, default) or taken round-robin as
``t mod k`` (MOA's ``EvaluatePrequentialCV``). All draws come from one seeded generator, row
by row in stream order, so an assignment never depends on how the stream is cut into batches.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from distval.errors import DistvalError

__all__ = ["FOLD_CHOICES", "MAX_FOLDS", "SCHEMES", "Assignment", "FoldAssigner", "Validation"]

SCHEMES = ("cv", "split", "bootstrap")
#: The most folds a run may have: each is a replica of every learner with its own measures,
#: so memory grows with them (bifet2015 uses 10; the tests' power stops improving long before).
MAX_FOLDS = 1000
FOLD_CHOICES = ("random", "round-robin")


@dataclass(frozen=True, slots=True)
class Validation:
    """A validation scheme: how k fold replicas share the stream.

    >>> Validation("cv", n_folds=5, prequential=False)
    Validation(scheme='cv', n_folds=5, prequential=False, fold_choice='random')
    >>> Validation("holdout")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    distval.errors.DistvalError: unknown validation scheme 'holdout'; choose one of ...
    """

    scheme: str = "bootstrap"
    n_folds: int = 10
    prequential: bool = True
    fold_choice: str = "random"

    def __post_init__(self) -> None:
        if self.scheme not in SCHEMES:
            raise DistvalError(
                f"unknown validation scheme {self.scheme!r}; choose one of {', '.join(SCHEMES)}"
            )
        if isinstance(self.n_folds, bool) or not isinstance(self.n_folds, (int, np.integer)):
            raise DistvalError(f"the number of folds must be an integer, got {self.n_folds!r}")
        if self.n_folds < 2:
            raise DistvalError(f"at least 2 folds are needed, got {self.n_folds}")
        if self.n_folds > MAX_FOLDS:
            raise DistvalError(
                f"at most {MAX_FOLDS} folds, got {self.n_folds}: every fold keeps its own "
                "replica of each learner and its own measures (memory grows with the folds)"
            )
        if self.fold_choice not in FOLD_CHOICES:
            raise DistvalError(
                f"unknown fold choice {self.fold_choice!r}; choose one of {', '.join(FOLD_CHOICES)}"
            )


@dataclass(frozen=True, slots=True)
class Assignment:
    """Fold routing of one batch of rows.

    ``weights[i, f]`` is the training weight of row ``start + i`` in fold ``f``;
    ``held_out[i, f]`` says whether fold ``f`` tests that row in the non-prequential variant.
    The prequential variant tests every row in every fold; training is the same in both, so
    one pass over a stream serves both variants.
    """

    start: int
    weights: np.ndarray
    held_out: np.ndarray

    def tested(self, prequential: bool) -> np.ndarray:
        """The (rows, folds) mask of rows each fold predicts before training."""
        return np.ones_like(self.held_out) if prequential else self.held_out

    def __len__(self) -> int:
        return len(self.weights)


class FoldAssigner:
    """Draws fold assignments batch by batch, identical for any cut of the stream.

    >>> a = FoldAssigner(Validation("cv", n_folds=4), seed=7)
    >>> first = a.assign(6)
    >>> first.weights.sum(axis=1).tolist()   # every row trains in k - 1 = 3 folds
    [3, 3, 3, 3, 3, 3]
    >>> (first.held_out.sum(axis=1) == 1).all()
    np.True_
    >>> b = FoldAssigner(Validation("cv", n_folds=4), seed=7)
    >>> parts = [b.assign(2), b.assign(4)]
    >>> bool((np.vstack([p.weights for p in parts]) == first.weights).all())
    True
    """

    def __init__(self, validation: Validation, seed: int | None = None) -> None:
        self.validation = validation
        self.seed = seed
        self._rng = np.random.default_rng(seed)
        self._next = 0

    @property
    def position(self) -> int:
        """Index of the next row to be assigned."""
        return self._next

    def assign(self, n_rows: int) -> Assignment:
        """Assign the next ``n_rows`` rows of the stream."""
        v, k, start = self.validation, self.validation.n_folds, self._next
        if v.scheme == "bootstrap":
            # Row-major draws: row t's k weights, then row t + 1's, as a row-by-row loop would.
            weights = self._rng.poisson(1.0, size=(n_rows, k)).astype(np.int32)
            held_out = weights == 0
        else:
            if v.fold_choice == "random":
                chosen = self._rng.integers(0, k, size=n_rows, dtype=np.int64)
            else:
                chosen = np.arange(start, start + n_rows, dtype=np.int64) % k
            is_chosen = chosen[:, None] == np.arange(k)[None, :]
            if v.scheme == "cv":
                weights, held_out = (~is_chosen).astype(np.int32), is_chosen
            else:
                weights, held_out = is_chosen.astype(np.int32), ~is_chosen
        self._next += n_rows
        return Assignment(start, weights, held_out)
