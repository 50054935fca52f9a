"""``distval reproduce type-errors`` (distval.cli.reproduce)."""

from __future__ import annotations

import pandas as pd
from type_error_grids import CHEAP

from distval.cli import main as cli_main


def test_cli(tmp_path, capsys):
    out = tmp_path / "o"
    argv = ["reproduce", "type-errors", "--streams", "SEA(50),RBF(0,0)", "--runs", "1"]
    argv += ["--n-rows", "60", "--schemes", "split", "--learner", CHEAP]
    argv += ["--backend", "inprocess", "--output", str(out), "--no-progress"]
    assert cli_main(argv) == 0
    text = capsys.readouterr().out
    assert "Table 3" in text and "RBF(0,0)" in text
    t3 = pd.read_csv(out / "table3.csv")
    assert set(t3.row) == {"SEA(50)", "RBF(0,0)", "Average"}
    assert cli_main(["reproduce", "type-errors", "--streams", "XYZ", "--output", str(out)]) == 2
    assert "unknown stream 'XYZ'" in capsys.readouterr().err
    assert cli_main(["reproduce", "type-errors", "--streams", "CovType"]) == 2
    assert "--covtype PATH" in capsys.readouterr().err


def _help_of(capsys, *argv: str) -> str:
    import pytest

    with pytest.raises(SystemExit):
        cli_main([*argv, "--help"])
    return " ".join(capsys.readouterr().out.split())


def test_quick_plan_exits_0_with_a_plan_and_help_agrees_with_every_plan(tmp_path, capsys):
    """Issue 30 item 6: ``--profile quick --plan`` exited 2 (no cost for its learner), and
    ``--help`` said ~170 core-hours for the paper profile while ``--plan`` said 322."""
    import re

    text = _help_of(capsys, "reproduce", "type-errors")
    for profile in ("quick", "standard", "paper"):
        argv = ["reproduce", "type-errors", "--profile", profile, "--plan"]
        assert cli_main([*argv, "--output", str(tmp_path / profile)]) == 0
        plan = capsys.readouterr().out
        cells = int(re.search(r"= (\d+) cells", plan).group(1))
        core_hours = float(re.search(r"total: ([\d.]+) core-hours", plan).group(1))
        assert cells > 0 and core_hours > 0
        said = re.search(rf"{profile}: [^;]*?~([\d.,]+) core-hours", text)
        assert said is not None, text
        assert float(said.group(1).replace(",", "")) == pytest_approx(core_hours)


def pytest_approx(value: float):
    import pytest

    return pytest.approx(value, rel=0.05, abs=0.05)


def test_averages_over_a_stream_subset_say_what_they_cover(tmp_path, capsys):
    """On a ``--streams`` subset the paper's values beside our averages are the paper's
    mean over the same streams (Tables 3 and 4 give them per stream), and Table 2, whose
    paper values exist only as 13-stream averages, says so."""
    from distval.experiments import bifet2015 as paper

    out = tmp_path / "o"
    argv = ["reproduce", "type-errors", "--streams", "SEA(50),RBF(0,0)", "--runs", "1"]
    argv += ["--n-rows", "60", "--schemes", "cv", "--learner", CHEAP]
    argv += ["--backend", "inprocess", "--output", str(out), "--no-progress"]
    assert cli_main(argv) == 0
    text = capsys.readouterr().out
    assert "paper's 13 streams" in text and "SEA(50), RBF(0,0)" in text
    for name, ref in (("table3", paper.TABLE3), ("table4", paper.TABLE4)):
        t = pd.read_csv(out / f"{name}.csv")
        avg = t[(t.row == "Average") & (t.pnoise == 0.0) & (t.scheme == "cv")]
        expected = (ref["SEA(50)"][(0.0, "cv")] + ref["RBF(0,0)"][(0.0, "cv")]) / 2
        assert float(avg.paper.iloc[0]) == pytest_approx(expected)
