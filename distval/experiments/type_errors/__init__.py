"""Type I / type II error grid of bifet2015 §4.1 (Tables 2, 3, 4), with peeking.

See [Experiments: type I and type II errors](experiments.md#type-i-and-type-ii-errors).

A *cell* is one (stream, run, scheme): one pass over the stream compares two seeds A and A'
of one randomised learner (no change: a rejection is a type I error) and A with a
noise-filtered A' (pnoise = 0.05, 0.10: a non-rejection is a type II error), for both the
prequential and the non-prequential variant, with the evaluator's own pair comparison
(:class:`~distval.statistics.comparison.PairComparison`). Every test is decided at every look, so
the tables give, beside the paper's decision at the end of the stream, the type I error of a user
who watches the live results ("ever rejected at any look") and the errors and power of the decisions
that stay valid under peeking (alpha spending, the settled-sign e-process).

The parts:

- :mod:`~distval.experiments.type_errors.profiles`: the profiles (quick, standard, paper),
  the streams and :class:`GridConfig`;
- :mod:`~distval.experiments.type_errors.cell`: one cell (:func:`run_cell`,
  :func:`noise_filter`);
- :mod:`~distval.experiments.type_errors.grid`: running and resuming a grid
  (:func:`run_grid`, ``cells.jsonl``, Ray tasks, :class:`Progress`);
- :mod:`~distval.experiments.type_errors.tables`: the tables beside the paper's, the peeking
  tables, the files written;
- :mod:`~distval.experiments.type_errors.projection`: the projected CPU cost (``--plan``).

Example
-------
>>> from distval.experiments.type_errors import GridConfig, run_grid
>>> cfg = GridConfig(streams=(("SEA(50)", "SEA(50)"),), runs=1, n_rows=200,
...                  learner="distval.experiments.type_errors:bagged_ht(n_models=2)",
...                  schemes=("cv",))
>>> result = run_grid(cfg, backend="inprocess", progress=False)
>>> sorted(result.cells["scheme"].unique()), "peeking" in result.tables
(['cv'], True)
"""

from __future__ import annotations

from distval.experiments.type_errors.cell import (
    cell_key,
    look_positions,
    noise_filter,
    run_cell,
)
from distval.experiments.type_errors.grid import GRID_NOTES, Progress, read_cells, run_grid
from distval.experiments.type_errors.profiles import (
    COST_SOURCE,
    ENSEMBLE,
    FAITHFUL_LEARNER,
    PROFILES,
    REAL,
    REAL_ROWS,
    REFERENCE_COST,
    STANDARD_ROWS,
    STANDARD_RUNS,
    SYNTHETIC,
    TESTS,
    GridConfig,
    bagged_ht,
    make_grid,
    open_real_stream,
    stream_rows,
)
from distval.experiments.type_errors.projection import Projection, measured_costs, project
from distval.experiments.type_errors.tables import (
    GRID_FILES,
    GridResult,
    median_gap,
    paper_vs_distval,
    peeking_tables,
)

__all__ = [
    "COST_SOURCE",
    "ENSEMBLE",
    "FAITHFUL_LEARNER",
    "GRID_FILES",
    "GRID_NOTES",
    "PROFILES",
    "REAL",
    "REAL_ROWS",
    "REFERENCE_COST",
    "STANDARD_ROWS",
    "STANDARD_RUNS",
    "SYNTHETIC",
    "TESTS",
    "GridConfig",
    "GridResult",
    "Progress",
    "Projection",
    "bagged_ht",
    "cell_key",
    "look_positions",
    "make_grid",
    "measured_costs",
    "median_gap",
    "noise_filter",
    "open_real_stream",
    "paper_vs_distval",
    "peeking_tables",
    "project",
    "read_cells",
    "run_cell",
    "run_grid",
    "stream_rows",
]
