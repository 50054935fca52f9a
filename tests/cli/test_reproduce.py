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
