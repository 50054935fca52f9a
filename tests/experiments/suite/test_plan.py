"""distval suite --plan: projected cost per number of cores from measured per-row costs."""

from __future__ import annotations

import json
from itertools import product

import pytest

from distval.cli import main
from distval.experiments.suite import make_suite, plan_suite, suite
from distval.experiments.suite.plan import schedule

OPTIONS = {"learners": ("nb", "majority"), "n_rows": 600, "n_folds": 2, "test_every": 300}


def _optimal(costs, cores):
    """The best makespan over every assignment of tasks to cores (brute force)."""
    best = float("inf")
    for assign in product(range(cores), repeat=len(costs)):
        loads = [0.0] * cores
        for c, k in zip(costs, assign, strict=True):
            loads[k] += c
        best = min(best, max(loads))
    return best


@pytest.mark.parametrize(
    ("costs", "cores"),
    [([5, 4, 3, 3, 2, 1], 2), ([7, 7, 6, 5, 2], 3), ([9, 1, 1, 1], 2), ([3, 3, 3], 8)],
)
def test_schedule_is_within_grahams_bound_of_the_optimum(costs, cores):
    opt = _optimal(costs, cores)
    got = schedule(costs, cores)
    assert opt <= got <= (4 / 3 - 1 / (3 * cores)) * opt + 1e-12
    assert got >= max(costs) and got >= sum(costs) / cores


def test_plan_uses_the_costs_a_suite_measured(tmp_path):
    out = tmp_path / "measured"
    suite(["sea", "SEA(50)"], output_dir=out, figures=False, **OPTIONS)
    stored = {s["stream"]: s for s in json.loads((out / "suite.json").read_text())["streams"]}
    bigger = make_suite(["sea", "SEA(50)"], **(OPTIONS | {"n_rows": 6000}))
    plan = plan_suite(bigger, cost_from=out)
    for row, spec in zip(plan.streams, ["sea", "SEA(50)"], strict=True):
        per_krow = 1000 * stored[spec]["cpu_seconds"] / stored[spec]["rows"]
        assert row["cpu_per_krow"] == pytest.approx(per_krow)
        assert row["rows"] == 6000 and not row["done"]
    total = sum(6 * 1000 * s["cpu_seconds"] / s["rows"] for s in stored.values())
    assert plan.cpu_seconds == pytest.approx(total)
    assert plan.wall_seconds(128) == pytest.approx(max(
        6 * 1000 * s["cpu_seconds"] / s["rows"] for s in stored.values()
    ))
    # the suite's own directory: every stream done, nothing left to run
    same = plan_suite(make_suite(["sea", "SEA(50)"], **OPTIONS), out)
    assert all(s["done"] for s in same.streams) and same.cpu_seconds == 0


def test_cli_plan_runs_nothing(tmp_path, capsys):
    out = tmp_path / "never"
    status = main([
        "suite", "--streams", "sea", "SEA(50)", "--learners", "nb", "majority", "--n-rows",
        "400", "--folds", "2", "--plan", "--output", str(out),
    ])
    assert status == 0
    printed = capsys.readouterr().out
    assert "probe of 400 rows" in printed and "   128 " in printed
    assert not out.exists()
