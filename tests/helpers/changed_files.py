"""Stream files replaced by others of the same shape and size, for the tests that a result
stored on disk is reused only on the data it was computed on (tests only)."""

from __future__ import annotations

from pathlib import Path

import numpy as np


def write_csv(path: Path, seed: int, rows: int = 400) -> None:
    """A CSV stream of ``rows`` rows, x1, x2 and a class: for seed 0 the class follows x1
    (naive Bayes learns it), for another seed it is drawn at random. Every file is the
    same shape and size whatever the seed (fixed-width numbers)."""
    rng = np.random.default_rng(seed)
    x = rng.random((rows, 2)) * 0.9
    y = np.where(x[:, 0] > 0.45, "a", "b") if seed == 0 else rng.choice(["a", "b"], rows)
    lines = [f"{u:.6f},{v:.6f},{c}" for (u, v), c in zip(x, y, strict=True)]
    path.write_text("x1,x2,y\n" + "\n".join(lines) + "\n")
