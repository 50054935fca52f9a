"""Small grids and committed results shared by the tests of distval.experiments.type_errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from distval.experiments import bifet2015 as paper
from distval.experiments.type_errors import GridConfig

CHEAP = "distval.experiments.type_errors:bagged_ht(n_models=2, grace_period=50)"
ROOT = Path(__file__).resolve().parents[2]
#: The quick profile's committed result (``distval reproduce type-errors --profile quick``,
#: every decision recorded at each of its 20 looks).
QUICK = ROOT / "benchmarks" / "results" / "type-errors-quick"
#: Three cells of the quick profile (SEA(50), run 0) and their grid.json as the first
#: harness wrote them (commit cd9361b), before per-look recording: the format a directory
#: written then still has.
BEFORE_LOOKS = ROOT / "tests" / "data" / "type-errors-quick-before-looks"
#: Fields a cell's rows gained with per-look recording (issue 18).
PER_LOOK = ("pvalues", "decisions", "ever_reject", "spending_reject")

#: The standard profile's learner is a MOA ensemble (tests/conftest.py skips where MOA cannot run).
needs_moa = pytest.mark.moa


def tiny(**kw) -> GridConfig:
    base = {
        "streams": (("SEA(50)", "SEA(50)"), ("RBF(0,0)", "RBF(0,0)")),
        "runs": 2,
        "n_rows": 120,
        "learner": CHEAP,
        "schemes": ("bootstrap", "split"),
        "n_folds": 4,
        "batch_size": 50,
    }
    return GridConfig(**(base | kw))


def fixed_rows(cell: dict) -> list[dict]:
    """A cell's end-of-stream fixed-alpha rows, as cells.jsonl held them before per-look
    recording."""
    return [
        {k: v for k, v in r.items() if k not in PER_LOOK}
        for r in cell["results"]
        if r["test"] in paper.TESTS
    ]
