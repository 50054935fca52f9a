"""The projected cost of a grid (distval.experiments.type_errors.projection)."""

from __future__ import annotations

import json

import pytest
from type_error_grids import tiny

from distval.cli import main as cli_main
from distval.errors import DistvalError
from distval.experiments.type_errors import make_grid


def test_paper_plan_prints_projection_without_running(tmp_path, capsys):
    out = tmp_path / "paper"
    argv = ["reproduce", "type-errors", "--profile", "paper", "--plan", "--output", str(out)]
    assert cli_main(argv) == 0
    text = capsys.readouterr().out
    assert "11 streams x 50 runs x 3 schemes = 1650 cells (0 done)" in text
    assert "core-hours" in text and "CPU-s/cell" in text and " h (overnight)." in text
    # the wording's arithmetic: N cores finish the core-hours within 12 h, N - 1 would not
    import re

    total = float(re.search(r"total: ([\d.]+) core-hours", text).group(1))
    cores, hours = re.search(r"(\d+) cores finish it in ([\d.]+) h", text).groups()
    assert float(hours) == pytest.approx(total / int(cores), abs=0.06) and float(hours) <= 12
    assert int(cores) == 1 or total / (int(cores) - 1) > 12 - 0.1
    assert "LED(50000)" in text and "1,000,000" in text
    assert not out.exists()  # nothing ran, nothing was written


def test_projection_uses_finished_cells():
    from distval.experiments.type_errors import project

    cfg = tiny(streams=(("SEA(50)", "SEA(50)"),), runs=2, schemes=("cv",))
    cells = [{"key": "SEA(50)|0|cv", "stream": "SEA(50)", "cpu_seconds": 6.0, "n_rows": 120}]
    p = project(cfg, cells)
    (row,) = p.streams
    assert row["cpu_per_krow"] == pytest.approx(50.0) and row["cells_done"] == 1
    assert p.core_hours == pytest.approx(6.0 / 3600)
    with pytest.raises(DistvalError, match="no measured cost"):
        project(cfg)  # a river learner with no finished cell: nothing to project from


def test_plan_with_costs_measured_by_another_grid(tmp_path, capsys):
    from distval.experiments.type_errors import ENSEMBLE

    # a standard grid's directory: per-row costs come from its cells, none counts as done
    std = tmp_path / "std"
    std.mkdir()
    (std / "grid.json").write_text(json.dumps(make_grid("standard").to_dict()))
    cell = {"key": "LED(50000)|0|cv", "stream": "LED(50000)", "cpu_seconds": 200.0}
    (std / "cells.jsonl").write_text(json.dumps(cell | {"n_rows": 50_000}) + "\n")
    argv = ["reproduce", "type-errors", "--profile", "paper", "--plan", "--learner", ENSEMBLE]
    argv += ["--cost-from", str(std), "--output", str(tmp_path / "paper")]
    assert cli_main([*argv, "--noise-on", "predictions"]) == 0
    text = capsys.readouterr().out
    led = next(x for x in text.splitlines() if x.startswith("LED(50000)"))
    assert "4.000" in led and "4000.0" in led and "measured elsewhere" in led  # 4 CPU-s/1k rows
    assert "(0 done)" in text
    # noise on the training labels: four learners per cell where the standard grid had two
    assert cli_main(argv) == 0
    led = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("LED(50000)"))
    assert "8.000" in led and "8000.0" in led
    # another learner's costs are refused
    (std / "grid.json").write_text(json.dumps(make_grid("quick").to_dict()))
    assert cli_main(argv) == 2
    assert ENSEMBLE in capsys.readouterr().err


def test_a_small_grids_plan_gives_minutes_not_zero_hours():
    """The plan of a grid of a few CPU-minutes states its cluster time and its longest cell
    in minutes (6 CPU-s per 120-row cell: 0.1 min), never "0.0 h"."""
    from distval.experiments.type_errors import project

    cfg = tiny(streams=(("SEA(50)", "SEA(50)"),), runs=2, schemes=("cv",))
    cells = [{"key": "SEA(50)|0|cv", "stream": "SEA(50)", "cpu_seconds": 6.0, "n_rows": 120}]
    text = project(cfg, cells).to_text()
    cluster = next(x for x in text.splitlines() if x.startswith("On Ray"))
    assert "0.0 h" not in text
    assert "its longest cell takes 0.1 min" in cluster


def test_the_paper_plan_bends_the_cost_by_the_measured_growth(capsys):
    """The plan's grown core-hours are the table's per-stream core-hours, each times the
    growth of a 1,000,000-row cell fitted here, with numpy, on the committed 100,000-row
    LeveragingBag cells (a power law of the per-row cost over their 10,000-row blocks after
    the first, integrated to 1,000,000 rows, over the cell's own rate): within the rounding
    of the stored factors."""
    import json
    import re
    from pathlib import Path

    import numpy as np

    cells_file = Path(__file__).resolve().parents[3] / "benchmarks" / "results" / \
        "type-errors-paper-cost" / "cells.jsonl"
    longest: dict = {}
    for line in cells_file.read_text().splitlines():
        c = json.loads(line)
        if c["rows"] >= longest.get(c["stream"], {"rows": 0})["rows"]:
            longest[c["stream"]] = c
    growth = {}
    for name, c in longest.items():
        if c["rows"] < 100_000:
            continue  # Electricity's 45,312 rows: its cells are never longer
        at = np.array(c["cpu_at"], dtype=float)
        per_row = np.diff(at[:, 1]) / np.diff(at[:, 0])
        b, log_a = np.polyfit(np.log((at[1:, 0] + at[:-1, 0]) / 2), np.log(per_row), 1)
        total = np.exp(log_a) * (np.arange(500, 1_000_000, 1000.0) ** b).sum() * 1000
        rate = (at[-1, 1] - at[0, 1]) / (at[-1, 0] - at[0, 0])
        growth[name] = (b, total / (rate * 1_000_000))
    assert len(growth) == 10  # every synthetic stream of the profile, LED included
    steepest = max(growth.values(), key=lambda g: g[1])
    assert cli_main(["reproduce", "type-errors", "--profile", "paper", "--plan"]) == 0
    text = capsys.readouterr().out
    rows = [line.split() for line in text.splitlines()
            if re.match(r"^(SEA|HYP|RBF|LED|Electricity)", line)]
    want = 0.0
    for r in rows:
        n = int(r[1].replace(",", ""))
        b, f = growth.get(r[0], steepest)
        want += float(r[5]) * (f * (n / 1e6) ** b if n > 100_000 else 1.0)
    grown = float(re.search(r"cells left cost about (\d+) core-hours", text).group(1))
    assert grown == pytest.approx(want, rel=0.01)
    assert grown > float(re.search(r"total: ([\d.]+) core-hours", text).group(1))

