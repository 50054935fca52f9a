"""MOA's ``AddNoiseFilter`` on the attributes (its ``-a`` option), a batch at a time.

MOA (``moa.streams.filters.AddNoiseFilter``) walks the attributes of every row in order:

- a numeric value first joins a running Gaussian estimate of its attribute (MOA's
  ``GaussianEstimator``: Welford's update, the standard deviation with ``n - 1``, 0 before
  two values), then is shifted by ``N(0, 1) * sd * P``: *every* numeric value moves;
- a nominal value first joins the counts of its attribute; then, with probability ``P`` and
  once two values of it have been seen, it is redrawn uniformly among the *other* values
  seen so far (MOA draws until the value differs and has been seen).

:class:`AttributeNoise` does the same, vectorised over a batch (the running estimates carry
over from batch to batch). Missing values (NaN) are neither observed nor changed.

>>> import numpy as np
>>> noise = AttributeNoise(0.1, n_features=2, nominal=[1], rng=np.random.default_rng(0))
>>> X = np.column_stack([np.arange(4000.0), np.tile([0.0, 1.0], 2000)])
>>> out = noise(X)
>>> bool(out[0, 0] == 0.0), bool((out[1:, 0] != X[1:, 0]).all())  # sd is 0 at row 0
(True, True)
>>> round(float((out[:, 1] != X[:, 1]).mean()), 2)
0.1
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

__all__ = ["AttributeNoise"]

FloatArray = npt.NDArray[np.float64]


class AttributeNoise:
    """The attribute noise of MOA's ``AddNoiseFilter -a fraction`` (module docstring).

    ``nominal`` lists the indices of the nominal features (their values are category codes
    0, 1, ...); every other feature is numeric. Call it on consecutive batches of one
    stream: it returns a noisy copy and updates its running estimates.
    """

    def __init__(self, fraction: float, n_features: int, nominal: Sequence[int],
                 rng: np.random.Generator) -> None:
        self.fraction = float(fraction)
        self.rng = rng
        self.nominal = [int(j) for j in nominal]
        self.numeric = [j for j in range(n_features) if j not in set(self.nominal)]
        d = len(self.numeric)
        self.count = np.zeros(d)
        self.mean = np.zeros(d)
        self.m2 = np.zeros(d)
        #: per nominal feature, which codes have been seen
        self.seen = [np.zeros(0, dtype=bool) for _ in self.nominal]

    def __call__(self, X: FloatArray) -> FloatArray:
        out = np.array(X, dtype=np.float64, copy=True)
        if len(out) == 0:
            return out
        if self.numeric:
            out[:, self.numeric] += self._numeric_shift(out[:, self.numeric])
        for i, j in enumerate(self.nominal):
            out[:, j] = self._redraw(i, out[:, j])
        return out

    def _numeric_shift(self, x: FloatArray) -> FloatArray:
        """``N(0,1) * sd * P`` per value, ``sd`` the running one including the value."""
        valid = np.isfinite(x)
        first = self.count == 0
        # shift by the running mean (the first valid value when none), for precision
        ref = np.where(first, np.nan_to_num(x[np.argmax(valid, axis=0), range(x.shape[1])]),
                       self.mean)
        z = np.where(valid, x - ref, 0.0)
        n = self.count + np.cumsum(valid, axis=0)
        s1 = np.cumsum(z, axis=0)
        s2 = self.m2 + np.cumsum(z * z, axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            m2 = np.maximum(s2 - np.where(n > 0, s1 * s1 / n, 0.0), 0.0)
            var = np.where(n > 1, m2 / (n - 1), 0.0)
            self.mean = np.where(n[-1] > 0, ref + s1[-1] / np.maximum(n[-1], 1), self.mean)
        self.count, self.m2 = n[-1].astype(float), m2[-1]
        gauss = self.rng.standard_normal(x.shape)
        return np.where(valid, gauss * np.sqrt(var) * self.fraction, 0.0)

    def _redraw(self, i: int, v: FloatArray) -> FloatArray:
        """Column ``v`` of nominal feature ``i`` with MOA's redraws."""
        valid = np.isfinite(v)
        codes = np.where(valid, v, 0).astype(np.int64)
        top = int(codes.max()) + 1
        if top > len(self.seen[i]):
            self.seen[i] = np.concatenate([self.seen[i], np.zeros(top - len(self.seen[i]), bool)])
        seen = self.seen[i]
        # the row from which each code counts as seen (-1: before this batch)
        since = np.full(len(seen), len(v), dtype=np.int64)
        rows = np.flatnonzero(valid)
        uniq, at = np.unique(codes[rows], return_index=True)
        since[uniq] = rows[at]
        since[seen] = -1
        seen[uniq] = True
        draw = np.flatnonzero((self.rng.random(len(v)) < self.fraction) & valid)
        if len(draw) == 0:
            return v
        others = (since[None, :] <= draw[:, None]) & (
            np.arange(len(seen))[None, :] != codes[draw][:, None])
        k = others.sum(axis=1)
        ok = k > 0
        draw, others, k = draw[ok], others[ok], k[ok]
        pick = np.floor(self.rng.random(len(draw)) * k).astype(np.int64)
        new = np.argmax(np.cumsum(others, axis=1) > pick[:, None], axis=1)
        out = np.array(v, copy=True)
        out[draw] = new
        return out
