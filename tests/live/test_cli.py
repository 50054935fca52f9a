"""The ``--live`` options on the command line: refusals in one line, exit status 2."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from distval.cli import main


@pytest.mark.parametrize("argv", [
    ["report", "{tmp}", "--live", "--no-browser"],  # no run, no suite there
    ["run", "--stream", "sea", "--n-rows", "300", "--live", "--no-browser",
     "--permute", "time:p=0.5"],
])
def test_refusals_are_one_line(argv: list[str], tmp_path: Path, capsys: Any) -> None:
    code = main([a.replace("{tmp}", str(tmp_path)) for a in argv])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and err[0].startswith("distval: error: ")
