"""The report of a regression run: the classification report's page, sections and style, its
figures in the target's units, built from its tables."""

from __future__ import annotations

import re

import numpy as np
import pyarrow.parquet as pq

import distval
from distval.report import make_report
from distval.report.figures import plot_measure
from distval.results import load_results


def _headings(page: str) -> list[str]:
    return re.findall(r"<h2>([^<]*)</h2>", page)


def test_a_regression_report_has_the_sections_of_a_classification_report(tmp_path):
    opts = dict(n_rows=1500, n_folds=3, test_every=500)
    distval.evaluate(stream="planes2d", learners=("htr", "linreg"), output_dir=tmp_path / "r",
                     **opts)
    distval.evaluate(stream="sea", learners=("ht", "nb"), output_dir=tmp_path / "c", **opts)
    pages = {k: make_report(tmp_path / k).read_text() for k in "rc"}
    # each task's figures of a measure over time have its measure's name; Q (log error
    # ratio of 0/1 errors) is classification's; every other heading is the same
    own = {"r": ["RMSE over time", "R² over time"],
           "c": ["Accuracy over time", "κm over time", "Q statistic over time", "Q statistic"]}
    heads = {k: [h for h in _headings(p) if h not in own[k]] for k, p in pages.items()}
    pairs = {"r": "htr vs linreg", "c": "ht vs nb"}
    for k in heads:
        heads[k] = ["PAIR" if h == pairs[k] else h for h in heads[k]]
    assert heads["r"] == heads["c"]
    assert heads["r"][:8] == ["Contents", "Verdicts", "PAIR", "What the verdicts rest on",
                              "The recent paired windows", "What each learner cost",
                              "Cost over rows",
                              "Final measures"]
    r = pages["r"]
    assert "<style>" in r and 'src="data:image/png;base64,' in r  # self-contained
    assert "<img src='" not in r and ".png'" not in r  # no linked figure files
    assert "RMSE over time" in r and "in the target&#x27;s units" in r


def test_the_rmse_figure_draws_the_folds_mean_in_the_targets_units(tmp_path):
    distval.evaluate(stream="planes2d", n_rows=1500, learners=("htr", "linreg"), n_folds=3,
                     test_every=500, output_dir=tmp_path / "r")
    fig = plot_measure(load_results(tmp_path / "r"), "rmse")
    ax = fig.axes[0]  # the first panel: every learner's mean over folds
    assert ax.get_ylabel() == "RMSE (target units)"
    table = pq.read_table(tmp_path / "r" / "folds.parquet")
    rmse = table.column("rmse").to_numpy()
    sel = (table.column("learner").to_numpy(zero_copy_only=False) == "linreg") & (
        table.column("forgetting").to_numpy(zero_copy_only=False) == "adwin")
    pos = table.column("position").to_numpy()[sel]
    want = [rmse[sel][pos == p].mean() for p in np.unique(pos)]
    np.testing.assert_allclose(ax.lines[1].get_ydata(), want, rtol=1e-12)
