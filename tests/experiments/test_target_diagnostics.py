"""A numeric target's description against numpy and scikit-learn on the whole series."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import mean_absolute_error, root_mean_squared_error

from distval.cli import main
from distval.experiments.target_diagnostics import TargetDiagnostics


def test_autocorrelation_and_baseline_errors_match_numpy_and_sklearn_in_any_chunks():
    rng = np.random.default_rng(2)
    y = 100 + np.cumsum(rng.normal(size=5000)) + rng.normal(size=5000)
    d = TargetDiagnostics(max_lag=4)
    for part in np.array_split(y, [1, 3, 700, 701, 2999]):  # odd chunk sizes, one of 1 row
        d.update(part)
    got = d.to_dict()
    for lag in range(1, 5):
        want = np.corrcoef(y[lag:], y[:-lag])[0, 1]
        assert got["autocorrelation"][lag - 1] == pytest.approx(want, rel=1e-9)
    prev = np.r_[y[0], y[:-1]]
    mean = np.r_[y[0], np.cumsum(y)[:-1] / np.arange(1, len(y))]
    assert got["persistent_rmse"] == pytest.approx(root_mean_squared_error(y, prev), 1e-9)
    assert got["persistent_mae"] == pytest.approx(mean_absolute_error(y, prev), 1e-9)
    assert got["mean_rmse"] == pytest.approx(root_mean_squared_error(y, mean), 1e-9)
    assert got["std"] == pytest.approx(np.std(y, ddof=1), 1e-9)


def test_describe_regression_prints_the_target(capsys):
    assert main(["describe", "friedman", "--task", "regression", "--n-rows", "2000",
                 "--lags", "2"]) == 0
    out = capsys.readouterr().out
    assert "ρ(2)" in out and "persistent (previous target)" in out
