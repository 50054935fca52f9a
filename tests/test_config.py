"""RunConfig: the verdict options (margin, null twin); config.json's format number and the one
reader function that upgrades every older format."""

import json

import pandas as pd
import pytest

from distval.config import CONFIG_FORMAT, RunConfig, read_config
from distval.errors import DistvalError


def test_null_twin_appends_a_copy_of_the_learner_and_survives_a_saved_config():
    c = RunConfig(learners=("ht", "nb(alpha=0.5)"), null_twin="nb(alpha=0.5)")
    assert c.labels == ("ht", "nb(alpha=0.5)", "nb(alpha=0.5)~twin")
    assert [s.text for s in c.specs] == ["ht", "nb(alpha=0.5)", "nb(alpha=0.5)"]
    assert c.twin_pair == ("nb(alpha=0.5)", "nb(alpha=0.5)~twin")
    again = RunConfig.from_dict(c.to_dict())
    assert again == c and again.labels == c.labels  # not a second twin


def test_the_null_twin_of_a_learner_given_twice_is_in_the_tables_it_checks():
    """Before: with ``ht majority ht --null-twin ht`` the twin was ``ht#3`` in every table
    while the summary checked the pair (ht, ht~twin), absent: "0 rules"."""
    import distval

    c = RunConfig(learners=("nb", "majority", "nb"), null_twin="nb")
    assert c.labels == ("nb", "majority", "nb#2", "nb~twin")
    assert RunConfig(learners=("nb", "majority", "nb"), null_twin="nb#2").twin_pair == (
        "nb#2", "nb#2~twin")
    res = distval.evaluate(stream="sea", n_rows=1000, n_folds=2, test_every=500,
                           learners=("nb", "majority", "nb"), null_twin="nb")
    folds = res.folds()
    twin = res.summary()["null_twin"]
    assert set(twin["pair"]) <= set(folds["learner"])
    assert len(twin["rules"]) > 0
    a, b = (folds[folds["learner"] == x].drop(columns="learner").reset_index(drop=True)
            for x in twin["pair"])
    assert a.equals(b)  # naive Bayes has no seed: its twin is the same learner


def test_null_twin_by_label_of_a_dict_of_learners():
    from river import naive_bayes

    c = RunConfig(learners={"fast": naive_bayes.GaussianNB()}, null_twin="fast")
    assert c.labels == ("fast", "fast~twin")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"null_twin": "arf"}, "--null-twin arf: no such learner among ht, nb"),
        ({"margin": -0.1}, r"`margin` must be in \[0, 1\), got -0.1"),
        ({"margin": 1.0}, r"`margin` must be in \[0, 1\), got 1.0"),
    ],
)
def test_bad_verdict_options_are_one_clear_error(kwargs, message):
    with pytest.raises(DistvalError, match=message):
        RunConfig(learners=("ht", "nb"), **kwargs)


def test_a_saved_configuration_carries_todays_format_number():
    assert RunConfig().to_dict()["format"] == CONFIG_FORMAT == 2


def test_format_1_is_upgraded_to_todays_names():
    old = {"stream": "sea", "n_folds": 4, "delta": 0.01}  # unnumbered: format 1
    cfg = RunConfig.from_dict(json.loads(json.dumps(old)))
    assert cfg.adwin_delta == 0.01 and cfg.n_folds == 4
    assert read_config(old)["format"] == CONFIG_FORMAT


def test_a_newer_format_is_refused():
    with pytest.raises(DistvalError, match="format 3, newer than this distval reads"):
        read_config({"format": 3})


def test_unknown_keys_are_refused_with_the_closest_known_name():
    with pytest.raises(DistvalError, match=r"key 'adwin_detla' \(did you mean 'adwin_delta'"):
        RunConfig.from_dict({"adwin_detla": 0.01})
    # a results directory keeps keys a caller added with save(extra=...)
    assert read_config({"note": "mine"}, strict=False)["note"] == "mine"


def test_name_equals_spec_names_the_learner_everywhere(tmp_path, capsys):
    """``--learners sgd="sklearn:SGDClassifier(loss='log_loss')"``: the name is the label of
    every table, line and figure, the spec what runs (an ``=`` inside the parentheses is a
    parameter's)."""
    from distval.cli import main

    spec = "sklearn:SGDClassifier(loss='log_loss', random_state=0)"
    cfg = RunConfig(learners=(f"sgd={spec}", "nb", "deep=ht(delta=0.001)"))
    assert cfg.labels == ("sgd", "nb", "deep")
    assert [s.text for s in cfg.specs] == [spec, "nb", "ht(delta=0.001)"]
    assert RunConfig.from_dict(cfg.to_dict()) == cfg
    out = tmp_path / "run"
    assert main(["run", "--stream", "sea", "--n-rows", "600", "--learners", f"sgd={spec}",
                 "fast=nb", "--folds", "2", "--test-every", "300", "--output", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "sklearn:SGD" not in printed and "\nsgd " in printed and "\nfast " in printed
    folds = pd.read_parquet(out / "folds.parquet")
    assert set(folds["learner"]) == {"sgd", "fast"}
