"""The README walked as a reader would: every ``distval`` command and the Python example run
as shown, only smaller.

Each command of the Quick start (the default job), the Command line block and the MOA block
runs in a fresh directory holding the ``data.csv`` the first command reads, in the README's
order, through the command line's own entry point (:func:`distval.cli.main`, in this
process); the changes (:func:`readme_commands.sized`): ``--n-rows`` set to a few hundred
rows on every command that reads a stream, with ``--backend inprocess`` (the suite's
default is a local Ray, and ``auto`` moves a file of unknown length to one; every backend
gives the same numbers, tests/ray_backend), so that the whole walk takes seconds. The Python
example runs as shown with ``n_rows=20_000`` replaced by 1,000. The install and the test
command are not run here: tests/test_wheel.py builds and installs the wheel as the Install
section does, and CI (``.ci/run``) runs the Quick start's two lines themselves.

The checks are the README's own promises, each read back from the files independently:
every command exits 0, ``--config`` re-runs exactly, ``export`` writes every table as CSV,
``report`` writes report.html, the suite ranks its streams, and the example's directory
loads with the numbers the example computed.
"""

from __future__ import annotations

import contextlib
import io
import json
import warnings

import pandas as pd
import pytest
from readme_commands import python_example, sh_commands, sized, write_data_csv

import distval
from distval.cli import main
from distval.learners.moa.jvm import missing as moa_missing

ROWS = 400  # per command that reads a stream


def _run(argv: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        status = main(sized(argv, ROWS, "inprocess")[1:])
    return status, out.getvalue()


def _commands(section: str) -> list[list[str]]:
    return [argv for s, argv in sh_commands() if s == section and argv[0] == "distval"]


def test_the_readme_has_the_commands_this_walk_runs():
    """The walk covers what the README shows: the default job, a dozen commands, the MOA
    one, and the install's five steps (tests/test_wheel.py builds what they build)."""
    sections = [s for s, _ in sh_commands()]
    assert _commands("Quick start") == [["distval", "run"]]
    assert len(_commands("Command line")) >= 12
    assert len(_commands("MOA learners")) == 1
    install = [argv for s, argv in sh_commands() if s == "Install"]
    assert install[2][:2] == ["pip", "wheel"] and install[3][:2] == ["pip", "install"]
    assert install[3][2] == "dist/distval-0.1.0-py3-none-any.whl[moa]"
    assert sections.count("Quick start") == 8  # venv, activate, install, run; the 4 checks


def test_every_readme_command_runs_as_shown(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_data_csv(tmp_path / "data.csv", ROWS)
    shown = _commands("Quick start") + _commands("Command line")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the runs' notices (e.g. few rows) are not checked here
        for argv in shown:
            before = set((tmp_path / "distval-results").glob("run-*"))
            status, out = _run(argv)
            assert status == 0, (argv, out)
            if argv == ["distval", "run"]:
                (default,) = set((tmp_path / "distval-results").glob("run-*")) - before
    # the default job: MOA's HT and NB (river's ht and nb without MOA), 10 folds, Electricity
    folds = pd.read_parquet(default / "folds.parquet")
    want = ["ht", "nb"] if moa_missing() else ["HoeffdingTree", "NaiveBayes"]
    assert sorted(folds["learner"].unique()) == want
    assert folds["fold"].nunique() == 10 and folds["position"].max() == ROWS
    # the CSV run read data.csv's rows, with "label" as the target
    config = json.loads((tmp_path / "results/my-run/config.json").read_text())
    assert config["target"] == "label" and config["n_rows"] == ROWS
    assert pd.read_parquet(tmp_path / "results/my-run/folds.parquet")["position"].max() == ROWS
    # --config re-runs exactly
    a = pd.read_parquet(tmp_path / "results/my-run/folds.parquet")
    b = pd.read_parquet(tmp_path / "results/again/folds.parquet")
    pd.testing.assert_frame_equal(a, b)
    # report and export
    assert (tmp_path / "results/my-run/report.html").stat().st_size > 0
    csv = pd.read_csv(tmp_path / "results/my-run/csv/folds.csv")
    assert len(csv) == len(a)
    # the suite: the four streams, each a run of ht and nb over ROWS rows
    suite = json.loads((tmp_path / "distval-results/suite/suite.json").read_text())
    assert len(suite["streams"]) == 4


@pytest.mark.moa
def test_the_readme_moa_command_runs_as_shown(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (argv,) = _commands("MOA learners")
    status, out = _run([*argv, "--output", "moa-run"])
    assert status == 0, out
    folds = pd.read_parquet(tmp_path / "moa-run/folds.parquet")
    assert folds["learner"].nunique() == 4 and folds["position"].max() == ROWS


def test_the_readme_python_example_runs_and_its_directory_loads(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code = python_example()
    assert "n_rows=20_000" in code and "load_results" in code
    scope: dict[str, object] = {}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(code.replace("n_rows=20_000", "n_rows=1_000"), "README", "exec"), scope)
    res, again = scope["res"], scope["again"]
    assert isinstance(again, type(res))
    pd.testing.assert_frame_equal(again.final_folds(), res.final_folds())
    pd.testing.assert_frame_equal(again.verdicts(), res.verdicts())
    folds = pd.read_parquet(tmp_path / "results/sea/folds.parquet")
    assert folds["fold"].nunique() == 10 and folds["position"].max() == 1_000
    # text learners: the saved configuration rebuilds the run
    assert distval.RunConfig.from_dict(again.config.to_dict()).labels == ("ht", "logreg")
