"""A learner's cost summary from a cost table, against MOA's RAM-hours sum worked by hand."""

from __future__ import annotations

import pandas as pd
import pytest

from distval.results.cost import learner_costs, price_line


def _table() -> pd.DataFrame:
    # two folds, two test positions; cumulative CPU per fold; bytes at each position
    return pd.DataFrame({
        "position": [10, 10, 20, 20], "learner": ["x"] * 4, "fold": [0, 1, 0, 1],
        "rows": [10, 10, 20, 20], "cpu_learn": [1.0, 2.0, 3.0, 5.0],
        "cpu_predict": [0.0] * 4, "cpu": [1.0, 2.0, 3.0, 5.0],
        "bytes": [2**30, 2**31, 2**31, 2**31], "measure": ["pickled size"] * 4,
        "reason": [None] * 4, "ram_hours": [0.0] * 4})


def test_learner_ram_hours_are_moas_sum_over_positions():
    c = learner_costs(_table())["x"]
    # position 10: 3 GB x 3 s; position 20: 4 GB x (8 - 3) s; in hours
    assert c["ram_hours"] == pytest.approx((3 * 3 + 4 * 5) / 3600)
    assert c["cpu_s"] == 8.0 and c["cpu_per_row_s"] == 8.0 / 20
    assert c["bytes_final"] == 2**32 and c["bytes_mean"] == (3 * 2**30 + 2**32) / 2


def test_an_unmeasured_size_leaves_the_memory_empty_with_its_reason():
    t = _table()
    t.loc[3, "bytes"], t.loc[3, "reason"] = float("nan"), "cannot pickle it"
    c = learner_costs(t)
    assert c["x"]["bytes_final"] is None and c["x"]["ram_hours"] is None
    assert c["x"]["reason"] == "cannot pickle it"
    line = price_line("x", "x", c)
    assert line.endswith("memory is not measured (cannot pickle it)")


def test_a_run_with_a_learner_it_cannot_size_says_why_in_summary_and_report(tmp_path):
    """A learner whose size river's walk cannot take: the run finishes, its bytes and
    RAM-hours stay empty (never a number made up), and the reason is in summary.json,
    summary.md and report.html; the other learner's bytes are river's own measure."""
    import json

    import pyarrow.parquet as pq
    from river import naive_bayes

    import distval
    from distval.cli import main

    d = tmp_path / "run"
    distval.evaluate(stream="sea", n_rows=1000, n_folds=2, test_every=500, output_dir=d,
                     learners=("nb", "tests.helpers.costly_learner:Unmeasured"))
    cost = pq.read_table(d / "cost.parquet").to_pandas()
    odd = cost[cost["learner"] != "nb"]
    assert len(odd) == 4 and odd["bytes"].isna().all()
    assert set(odd["reason"]) == {"TypeError: this model cannot be sized"}
    assert cost[cost["learner"] == "nb"]["bytes"].notna().all()
    entry = json.loads((d / "summary.json").read_text())["cost"]
    (label,) = [k for k in entry if k != "nb"]
    assert entry[label]["bytes_final"] is None and entry[label]["ram_hours"] is None
    assert entry[label]["reason"] == "TypeError: this model cannot be sized"
    assert entry[label]["cpu_s"] > 0  # its CPU is still measured
    # nb's size: river's own walk of a GaussianNB is far from empty, and the same measure
    assert entry["nb"]["bytes_final"] > 2 * naive_bayes.GaussianNB()._raw_memory_usage
    md = (d / "summary.md").read_text()
    assert "this model cannot be sized" in md
    assert main(["report", str(d)]) == 0
    html = (d / "report.html").read_text()
    assert "this model cannot be sized" in html
