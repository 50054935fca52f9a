"""numba's compiled kernels are cached in the user's cache directory, not in the package.

A fresh interpreter with its own ``XDG_CACHE_HOME`` compiles one kernel; the cache files
(numba's ``.nbi`` index and ``.nbc`` code) must appear there and none in the package's
``__pycache__`` (files outside a wheel's RECORD, which ``pip uninstall`` leaves behind:
tests/test_wheel.py walks that install and uninstall).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import distval.metrics
from distval.metrics.jit import cache_dir

PACKAGE = Path(distval.metrics.__file__).resolve().parent

# count_batch adds each tested (slot, row) to its confusion cell; the cell counts are checked
# against numpy's own count of (label, prediction) pairs.
COMPILE_ONE = """
import numpy as np
from distval.metrics.kernels import count_batch
y = np.array([0, 1, 1, 0, 1]); pred = np.array([[0, 1, 0, 0, -1]])
C = np.zeros((1, 2, 2)); P = np.zeros(1)
count_batch(y, pred, np.ones(5), C, P)
want = np.zeros((2, 2)); np.add.at(want, (y[:4], pred[0, :4]), 1.0)
assert (C[0] == want).all() and P[0] == 4.0, (C, P)
"""


def test_a_compiled_kernel_is_cached_under_the_users_cache_dir(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["XDG_CACHE_HOME"] = str(tmp_path)
    env["PYTHONPATH"] = str(PACKAGE.parents[1])
    started = time.time()
    subprocess.run([sys.executable, "-c", COMPILE_ONE], env=env, check=True, timeout=300)
    cached = sorted(p.name for p in (tmp_path / "distval" / "numba").rglob("*.nb[ic]"))
    assert any(n.startswith("kernels.count_batch-") and n.endswith(".nbi") for n in cached)
    assert any(n.startswith("kernels.count_batch-") and n.endswith(".nbc") for n in cached)
    fresh_in_package = [p for p in PACKAGE.rglob("*.nb[ic]") if p.stat().st_mtime >= started]
    assert fresh_in_package == []


def test_the_cache_dir_follows_xdg_cache_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache_dir() == tmp_path / "distval" / "numba"
    assert cache_dir().is_dir()
