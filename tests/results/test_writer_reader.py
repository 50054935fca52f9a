"""A results directory written by :mod:`distval.results.writer` reads back through
:mod:`distval.results.reader` as the same tables (tests/test_architecture.py checks that the
two share only the schema)."""

from __future__ import annotations

import json

import pytest

import distval
from distval.errors import DistvalError
from distval.results import FILES, EvaluationResult, ResultWriter, claim_output, load_results


def test_a_saved_result_reads_back_as_the_same_tables(tmp_path):
    res = distval.evaluate(stream="sea", n_rows=600, learners=("nb", "majority"), n_folds=2,
                           test_every=200)
    res.save(tmp_path / "run", extra={"note": "kept"})
    saved = load_results(tmp_path / "run")
    assert saved.config["note"] == "kept" and saved.config["n_folds"] == 2
    assert saved.labels == ["nb", "majority"] and saved.forgetting == res.config.forgetting
    assert len(saved.folds) == len(res.folds()) and saved.final_position == 600
    assert len(saved.tests) == len(res.tests()) and len(saved.q) == len(res.q())
    assert json.loads((tmp_path / "run" / "summary.json").read_text()) == json.loads(
        json.dumps(res.summary())
    )
    assert sorted(p.name for p in (tmp_path / "run").iterdir()) == sorted(
        # no drift detection: no events file; a closed run: no .arrows streams, and a
        # finished one no checkpoint
        f for f in FILES
        if f != "events.parquet" and not f.endswith(".arrows") and "checkpoint" not in f
    )


def test_the_writer_refuses_a_used_directory_and_replaces_only_its_own_files(tmp_path):
    d = tmp_path / "out"
    d.mkdir()
    (d / "notes.txt").write_text("mine")
    with pytest.raises(DistvalError, match="not empty"):
        ResultWriter(d)
    w = ResultWriter(d, overwrite=True)
    w.close(EvaluationResult(distval.RunConfig(learners=("nb",))))
    assert (d / "notes.txt").read_text() == "mine" and (d / "summary.json").exists()



def test_report_and_compare_refuse_a_directory_mixing_two_runs_tables(tmp_path, capsys):
    """Before: `report` and `compare` read a directory whose tables came from two runs
    (copied together) as one run, although every table carries its run's id."""
    import shutil

    import distval
    from distval.cli import main

    a, b = tmp_path / "a", tmp_path / "b"
    for d, seed in ((a, 1), (b, 2)):
        distval.evaluate(stream="sea", n_rows=600, learners=("nb", "majority"), n_folds=2,
                         test_every=200, seed=seed, output_dir=d)
    shutil.copy(b / "tests.parquet", a / "tests.parquet")
    capsys.readouterr()
    for argv in (["report", str(a)], ["compare", str(a), str(b)]):
        assert main(argv) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith(f"distval: error: {a} mixes the tables of "
                                                   "different runs (")


def test_a_temporary_left_by_a_killed_writer_is_the_directory_s_own(tmp_path):
    """A process killed while it wrote ``suite.json`` leaves ``.suite.json.<hex>.part``
    (the temporary :mod:`distval.files` renames over the name): a rerun claims the
    directory as its own; a temporary of a file it does not write still refuses it."""
    (tmp_path / "suite.json").write_text("{}")
    (tmp_path / ".suite.json.0123456789abcdef.part").write_text("{")
    assert claim_output(tmp_path, {"suite.json"}, resumable=True) == tmp_path
    (tmp_path / ".notes.txt.0123456789abcdef.part").write_text("mine")
    with pytest.raises(DistvalError, match=r"another run \(\.notes\.txt\."):
        claim_output(tmp_path, {"suite.json"}, resumable=True)
