"""Learner specs load only classifier classes, checked before anything is constructed."""

from __future__ import annotations

import json
import shlex

import pytest

from distval.cli import main
from distval.errors import DistvalError
from distval.learners import learner_factory, parse_learner
from distval.learners import moa as moa_learners


def _popen(target) -> str:
    return f"subprocess:Popen(args={shlex.join(['touch', str(target)])!r}, shell=True)"


def test_a_command_as_a_learner_is_refused_and_never_runs(tmp_path, capsys):
    target = tmp_path / "x"
    status = main(["run", "--stream", "sea", "--n-rows", "100", "--learners", _popen(target),
                   "--output", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert status == 2
    assert err.startswith("distval: error: learner 'subprocess:Popen'")
    assert "not a classifier" in err and err.count("\n") == 1
    assert not target.exists()


def test_a_command_in_a_config_file_is_refused_and_never_runs(tmp_path, capsys):
    target = tmp_path / "x"
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"stream": "sea", "n_rows": 100, "learners": [_popen(target)]}))
    status = main(["run", "--config", str(config), "--output", str(tmp_path / "out")])
    assert status == 2
    assert "not a classifier" in capsys.readouterr().err
    assert not target.exists()


def test_a_function_is_refused_unless_declared_a_learner_factory():
    with pytest.raises(DistvalError, match="not a classifier"):
        parse_learner("os.path:join")
    spec = parse_learner("distval.experiments.type_errors:bagged_ht(n_models=2)")
    assert type(spec.build()).__name__ == "BaggingClassifier"

    @learner_factory
    def made() -> None: ...

    assert made.__distval_learner_factory__ is True


def test_river_classifiers_and_protocol_classes_are_accepted():
    assert type(parse_learner("river.naive_bayes:GaussianNB").build()).__name__ == "GaussianNB"
    # label_recorder.Recorder subclasses river's base.Classifier; failing_learner.BreaksAt
    # river's NoChangeClassifier; both load by import path (tests/helpers is on the path).
    assert parse_learner("label_recorder:Recorder").build().observed == []
    assert parse_learner("failing_learner:BreaksAt(after=3)").build().after == 3


@pytest.mark.skipif(not moa_learners.available(), reason="needs the moa extra and Java")
@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("moa:java.lang.ProcessBuilder", "not a MOA classifier"),
        ("moa:meta.OzaBag -l (java.lang.Thread)", "not part of MOA"),
        ("moa:file:/tmp/model.moa", "not 'file:' or 'inmem:'"),
    ],
)
def test_moa_specs_naming_other_java_classes_are_refused(spec, message):
    with pytest.raises(DistvalError, match=message):
        parse_learner(spec)
    assert parse_learner("moa:meta.OzaBag -l (trees.HoeffdingTree -g 50) -s 3").is_moa


@pytest.mark.parametrize("value", ["file:{x}", "(file:{x})", "FILE:{x}", "inmem:learner",
                                   "(meta.OzaBag -l File :{x})"])
def test_no_moa_option_reads_an_object_from_a_file_or_memory(tmp_path, capsys, value):
    """Before: a nested ``-l file:X`` was Java-deserialized (a serialized learner ran, a
    HashMap was deserialized before a ClassCastException); a missing file or ``inmem:``
    gave Java tracebacks. Now refused in one line before the JVM starts."""
    x = tmp_path / "model.moa"
    x.write_bytes(b"\xac\xed\x00\x05")  # Java serialization's magic: what MOA would read
    spec = f"moa:meta.OzaBag -l {value.format(x=x)}"
    code = main(["run", "--stream", "sea", "--n-rows", "500", "--backend", "inprocess",
                     "--no-progress", "--learners", spec, "nb", "--output",
                     str(tmp_path / "out")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1, err
    assert err[0].startswith(f"distval: error: learner '{spec}'")
    assert "not 'file:' or 'inmem:'" in err[0]
