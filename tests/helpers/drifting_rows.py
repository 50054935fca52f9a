"""Rows with a known, drifting and dependent conditional mean (tests of the coverage of
confidence sequences)."""

from __future__ import annotations

import numpy as np


def drifting_rows(rng: np.random.Generator, runs: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(x, mu), both (runs, n): x in {-1, 0, 1} with P(0) = 1/2 and P(1) - P(-1) = m, m a
    drifting curve plus 0.3 times the previous row (so rows are not independent); ``mu`` the
    conditional mean m / 2 of each row."""
    t = np.arange(n)
    base = 0.05 * np.sin(t / 400.0)
    x = np.zeros((runs, n))
    mu = np.zeros((runs, n))
    prev = np.zeros(runs)
    for i in range(n):  # the dependence on the previous row needs a loop over rows
        m = np.clip(base[i] + 0.3 * prev, -0.9, 0.9)
        up = rng.random(runs) < (1 + m) / 2
        zero = rng.random(runs) < 0.5
        x[:, i] = np.where(zero, 0.0, np.where(up, 1.0, -1.0))
        mu[:, i] = 0.5 * m
        prev = x[:, i]
    return x, mu
