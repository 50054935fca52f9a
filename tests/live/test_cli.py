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


def test_run_live_prints_the_address_and_stops_serving_at_the_end(
        tmp_path: Path, capsys: Any) -> None:
    import re
    import urllib.error
    import urllib.request

    code = main(["run", "--stream", "sea", "--n-rows", "400", "--learners", "nb", "majority",
                 "--folds", "2", "--test-every", "200", "--backend", "inprocess",
                 "--no-progress", "--output", str(tmp_path / "out"), "--live", "--no-browser"])
    err = capsys.readouterr().err
    url = re.search(r"^distval: live page: (http://127\.0\.0\.1:\d+/\?token=[\w-]{24})$",
                    err, re.M)
    assert code == 0 and url is not None
    with pytest.raises(urllib.error.URLError):  # the command has ended: nothing listens
        urllib.request.urlopen(url.group(1), timeout=5)
