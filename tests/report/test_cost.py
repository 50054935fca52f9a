"""The report's cost-over-rows figure: what it draws is cost.parquet's rows (read here with
pyarrow and summed over folds with numpy), and the page shows it beside the cost table."""

from __future__ import annotations

import numpy as np
import pyarrow.parquet as pq
import pytest

import distval
from distval.report import make_report
from distval.report.cost import plot_cost
from distval.results import load_results


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    d = tmp_path_factory.mktemp("cost")
    distval.evaluate(stream="sea", n_rows=1500, n_folds=3, test_every=500, output_dir=d,
                     learners=("ht", "nb", "tests.helpers.costly_learner:Unmeasured"))
    return d


def _sums(d):
    """Per learner: positions, CPU over folds, MB over folds (NaN where a fold's size is
    empty), from pyarrow's read of cost.parquet."""
    t = pq.read_table(d / "cost.parquet").to_pydict()
    out = {}
    pos, lab = np.array(t["position"]), np.array(t["learner"], dtype=object)
    cpu, size = np.array(t["cpu"], float), np.array(t["bytes"], float)
    for label in dict.fromkeys(t["learner"]):
        xs = np.unique(pos[lab == label])
        out[label] = (xs,
                      np.array([cpu[(lab == label) & (pos == x)].sum() for x in xs]),
                      np.array([size[(lab == label) & (pos == x)].sum() / 1e6 for x in xs]))
    return out


def test_the_cost_figure_draws_cost_parquets_cpu_and_bytes_against_rows(run):
    fig = plot_cost(load_results(run))
    cpu_ax, mem_ax = fig.axes
    want = _sums(run)
    drawn_cpu = {ln.get_label(): ln for ln in cpu_ax.get_lines()}
    drawn_mem = {ln.get_label(): ln for ln in mem_ax.get_lines()}
    assert set(drawn_cpu) == set(drawn_mem) == set(want)
    for label, (x, cpu, mb) in want.items():
        np.testing.assert_array_equal(drawn_cpu[label].get_xdata(), x)
        np.testing.assert_allclose(drawn_cpu[label].get_ydata(), cpu, rtol=1e-12)
        np.testing.assert_array_equal(drawn_mem[label].get_xdata(), x)
        np.testing.assert_allclose(drawn_mem[label].get_ydata(), mb, rtol=1e-12)
    (odd,) = [k for k in want if k not in ("ht", "nb")]
    assert np.isnan(drawn_mem[odd].get_ydata()).all()  # not measured: not drawn as 0
    assert (np.diff(want["ht"][1]) > 0).all()  # CPU accumulates row after row


def test_the_report_shows_the_cost_figure_beside_the_cost_table(run):
    html = make_report(run).read_text()
    table, figure = html.index('id="tab-cost"'), html.index('id="fig-cost"')
    assert 0 < figure - table < html.index('id="tab-measures"') - table
    assert (run / "cost.png").stat().st_size > 10_000
    md = (run / "report.md").read_text()
    assert "](cost.png)" in md
