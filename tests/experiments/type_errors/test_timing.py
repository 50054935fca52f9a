"""Table 2's time rows: CPU seconds per cell (read back here from cells.jsonl) beside the
paper's seconds, with the machine named as /proc/cpuinfo and os.cpu_count() name it."""

from __future__ import annotations

import json
import os
import platform
from pathlib import Path

import numpy as np
import pytest

from distval.experiments import bifet2015 as paper
from distval.experiments.type_errors import run_grid
from tests.helpers.type_error_grids import tiny


def _cpu_model() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.lower().startswith("model name"):
            return " ".join(line.split(":", 1)[1].split())
    return ""


@pytest.mark.skipif(not Path("/proc/cpuinfo").exists(), reason="reads Linux's /proc/cpuinfo")
def test_table2_time_rows_are_cpu_seconds_per_cell_on_the_named_machine(tmp_path):
    """Before: Table 2's time rows held wall seconds and no table named the machine."""
    result = run_grid(tiny(), output_dir=tmp_path, progress=False)
    cells = [json.loads(line) for line in (tmp_path / "cells.jsonl").read_text().splitlines()]
    here = f"{_cpu_model()}, {os.cpu_count()} cores, {platform.system()}"
    assert {c["machine"] for c in cells} == {here}
    t2 = result.tables["table2"]
    time_rows = t2[t2["row"].str.startswith("avg time")]
    assert len(time_rows) == 2 * len(paper.CHANGES) * 2  # variants x changes x schemes
    for scheme in ("bootstrap", "split"):
        cpu = np.mean([c["cpu_seconds"] for c in cells if c["scheme"] == scheme])
        mine = time_rows[time_rows["scheme"] == scheme]
        np.testing.assert_allclose(mine["ours"], cpu, rtol=1e-12)
        assert set(mine["machine"]) == {f"{here} ({len(cells)} cells)"}
        for r in mine.itertuples():  # beside the paper's seconds, as its Table 2 gives them
            preq = not r.row.endswith(paper._variant(False))
            assert r.paper == paper.TABLE2_SECONDS[preq][(r.pnoise, scheme)]
    md = (tmp_path / "tables.md").read_text()
    (caption,) = [ln for ln in md.splitlines() if ln.startswith("Time per cell, on ")]
    assert f"on {here} ({len(cells)} cells):" in caption
    (row,) = [ln for ln in md.splitlines() if ln.startswith("| split |")]
    split = np.mean([c["cpu_seconds"] for c in cells if c["scheme"] == "split"])
    assert row.split(" | ")[1] == f"{split:.1f}"
