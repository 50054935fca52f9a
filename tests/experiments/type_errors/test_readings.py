"""The grid under several readings side by side (distval.experiments.type_errors.readings)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from type_error_grids import tiny

from distval.errors import DistvalError
from distval.experiments.type_errors.readings import (
    closest,
    read_as,
    reading_cells,
    readings_markdown,
    readings_table,
)


@pytest.fixture(scope="module")
def cells():
    cfg = tiny(window=40, noise_on="training", runs=3)
    return cfg, None, _raw(cfg)


def _raw(cfg):
    from distval.experiments.type_errors import run_cell

    return [run_cell(cfg, label, spec, run, scheme) for run in range(cfg.runs)
            for label, spec in cfg.streams for scheme in cfg.schemes]


def test_each_readings_column_group_holds_the_fraction_of_runs_rejecting(cells):
    """``windowed_distval`` of a Table 3 row (McNemar non-prequential, one stream, scheme,
    pnoise) is the share of runs whose *window* row rejects, counted here from the raw
    cells; ``cumulative_distval`` the same from their cumulative rows."""
    cfg, _, raw = cells
    named = {"cumulative": read_as(cfg, raw, "cumulative"),
             "windowed": read_as(cfg, raw, "windowed")}
    table = readings_table(named)
    t3 = table[(table["table"] == "table3") & table["windowed_distval"].notna()
               & (table["stream"] != "Average")]
    assert len(t3) == 2 * 2 * 3  # streams x schemes x (no change, 0.05, 0.10)
    for part, column in (("window", "windowed_distval"), ("results", "cumulative_distval")):
        raw_rows = pd.DataFrame([
            {"stream": c["stream"], "scheme": c["scheme"], "pnoise": r["pnoise"],
             "reject": r["reject"]}
            for c in raw for r in c[part]
            if r["test"] == "mcnemar" and not r["prequential"]])
        want = raw_rows.groupby(["stream", "scheme", "pnoise"])["reject"].mean()
        got = t3.set_index(["stream", "scheme", "pnoise"])[column]
        for key, value in got.items():
            assert value == pytest.approx(want[key])
    assert {"windowed_gap_a_minus_b", "cumulative_d", "windowed_runs"} <= set(table.columns)


def test_closest_reading_is_the_one_with_the_smallest_median_gap(cells):
    cfg, _, raw = cells
    named = {"cumulative": read_as(cfg, raw, "cumulative"),
             "windowed": read_as(cfg, raw, "windowed")}
    best = closest(named)
    table = readings_table(named)
    for row in best.itertuples():
        if row.stream == "all (Table 2)":
            part = table[table["table"] == "table2"]
        else:
            part = table[(table["table"] != "table2") & (table["stream"] == row.stream)]
        gaps = {n: np.nanmedian(np.abs(part["paper"] - part[f"{n}_distval"]))
                for n in named}
        assert row.closest == min(gaps, key=gaps.get)
    text = readings_markdown(named)
    assert "Closest reading" in text and "windowed" in text


def test_a_grid_without_windows_has_no_windowed_reading():
    assert reading_cells([{"results": [1]}], "windowed") == []
    with pytest.raises(DistvalError, match="unknown reading"):
        reading_cells([], "sideways")
