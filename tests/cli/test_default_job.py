"""``distval run`` with no learners named: MOA's Hoeffding tree and naive Bayes where the
``moa`` extra and a JDK are there (seconds for the default job), river's ``ht`` and ``nb``
where they are not, and its first line says which."""

from __future__ import annotations

import json

import pandas as pd
import pytest

import distval
from distval.cli import main

ARGS = ["run", "--n-rows", "300", "--backend", "inprocess", "--no-progress"]


@pytest.mark.moa
def test_the_default_job_runs_moas_learners_where_moa_runs(tmp_path, capsys):
    code = main([*ARGS, "--output", str(tmp_path / "run")])
    err = capsys.readouterr().err.splitlines()
    assert code == 0
    assert err[0].startswith("distval: learners: MOA's Hoeffding tree (HoeffdingTree) and "
                             "naive Bayes (NaiveBayes)")
    config = json.loads((tmp_path / "run" / "config.json").read_text())
    assert config["learners"] == ["moa:trees.HoeffdingTree", "moa:bayes.NaiveBayes"]
    assert config["labels"] == ["HoeffdingTree", "NaiveBayes"]
    # the same numbers as the job that names MOA's two learners itself
    named = distval.evaluate(stream="elec2", n_rows=300, n_folds=10, learners={
        "HoeffdingTree": "moa:trees.HoeffdingTree", "NaiveBayes": "moa:bayes.NaiveBayes"})
    got = pd.read_parquet(tmp_path / "run" / "folds.parquet")
    final = got[got["position"] == 300].reset_index(drop=True)
    want = named.final_folds().reset_index(drop=True)
    assert sorted(final["learner"].unique()) == ["HoeffdingTree", "NaiveBayes"]
    pd.testing.assert_series_equal(final["accuracy"], want["accuracy"])


def test_without_moa_the_default_job_runs_rivers_learners_and_says_why(
        tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("DISTVAL_MOA_JAR", str(tmp_path / "no-such.jar"))  # no MOA here
    code = main([*ARGS, "--output", str(tmp_path / "run")])
    err = capsys.readouterr().err.splitlines()
    assert code == 0
    assert err[0].startswith("distval: learners: river's Hoeffding tree (ht) and naive Bayes "
                             "(nb), the default without MOA")
    assert "no-such.jar is not a file" in err[0]
    config = json.loads((tmp_path / "run" / "config.json").read_text())
    assert config["learners"] == ["ht", "nb"]


def test_a_rerun_of_a_saved_config_keeps_its_learners(tmp_path, capsys):
    assert main([*ARGS, "--learners", "nb", "majority", "--output", str(tmp_path / "a")]) == 0
    assert main([*ARGS, "--config", str(tmp_path / "a"), "--output", str(tmp_path / "b")]) == 0
    err = capsys.readouterr().err
    assert "distval: learners:" not in err
    config = json.loads((tmp_path / "b" / "config.json").read_text())
    assert config["learners"] == ["nb", "majority"]
