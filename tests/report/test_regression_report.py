"""The report of a regression run: figures in the target's units, built from its tables."""

from __future__ import annotations

import numpy as np
import pyarrow.parquet as pq

import distval
from distval.report import make_report
from distval.report.regression import plot_regression_measure


def test_report_of_a_regression_run(tmp_path):
    distval.evaluate(stream="planes2d", n_rows=1500, learners=("htr", "linreg"), n_folds=3,
                     test_every=500, output_dir=tmp_path / "r")
    page = make_report(tmp_path / "r")
    names = {p.name for p in (tmp_path / "r").iterdir()}
    assert {"rmse.png", "mae.png", "r2.png", "verdict.png", "report.md"} <= names
    assert page.name == "report.html" and "RMSE (target units)" not in page.read_text()
    assert "in the target's units" in (tmp_path / "r" / "report.md").read_text()
    folds = pq.read_table(tmp_path / "r" / "folds.parquet").to_pandas()
    fig = plot_regression_measure(folds, "rmse", "adwin", ["htr", "linreg"])
    ax = fig.axes[0]
    assert ax.get_ylabel() == "RMSE (target units)"
    table = pq.read_table(tmp_path / "r" / "folds.parquet")
    rmse = table.column("rmse").to_numpy()
    sel = (table.column("learner").to_numpy(zero_copy_only=False) == "linreg") & (
        table.column("forgetting").to_numpy(zero_copy_only=False) == "adwin")
    pos = table.column("position").to_numpy()[sel]
    want = [rmse[sel][pos == p].mean() for p in np.unique(pos)]
    np.testing.assert_allclose(ax.lines[1].get_ydata(), want, rtol=1e-12)
