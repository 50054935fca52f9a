"""A results directory written by :mod:`distval.results.writer` reads back through
:mod:`distval.results.reader` as the same tables (tests/test_architecture.py checks that the
two share only the schema)."""

from __future__ import annotations

import json

import pytest

import distval
from distval.errors import DistvalError
from distval.results import FILES, EvaluationResult, ResultWriter, load_results


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

