"""A prediction that is not a class of the stream is refused with the learner's name; -1 no
longer passes for the marker of an untested row."""

from __future__ import annotations

import json
import re

import pytest
from cli_errors import one_line_error

from distval.errors import DistvalError
from distval.evaluation import evaluate


@pytest.mark.parametrize(
    ("learner", "shown"),
    [("odd_learners:PredictsMinusOne(after=50)", "-1"), ("odd_learners:PredictsUnseen", "7")],
)
def test_a_prediction_outside_the_classes_is_refused_with_the_learners_name(learner, shown):
    """SEA has two classes (indices 0 and 1). Before, -1 was counted as "not tested" (the
    rows silently left out of the learner's measures) and 7 as a class of its own."""
    with pytest.raises(DistvalError) as info:
        evaluate(stream="sea", n_rows=600, learners=("nb", learner), n_folds=2,
                 test_every=200, scheme="cv", prequential=True)
    message = str(info.value)
    assert f"learner {learner!r}" in message
    assert f"predicted {shown} for row " in message and "0..1" in message


def test_a_learners_bare_not_implemented_error_names_the_learner_and_the_method():
    """Before: the message ended in a bare ``NotImplementedError:``."""
    with pytest.raises(DistvalError) as info:
        evaluate(stream="sea", n_rows=300, learners=("nb", "odd_learners:LearnsNothing"),
                 n_folds=2, test_every=100)
    message = str(info.value)
    assert message.startswith("learner 'odd_learners:LearnsNothing' (fold ")
    assert message.endswith(": NotImplementedError in learn_one (the learner does not "
                            "implement it)")


@pytest.mark.parametrize(("value", "shown"), [("nan", "nan"), ("inf", "inf"), ("none", "None"),
                                              ("high", "'high'")])
def test_a_regressor_predicting_no_finite_number_stops_the_run_in_one_line(
    value, shown, tmp_path, capsys
):
    """Before, a NaN prediction was taken for an untested row: the row silently left out
    of the learner's measures. Now: one error line naming the learner, its fold and the
    row, exit status 2, and the results are not written as complete (the summary says the
    run was interrupted, before the row)."""
    spec = f"odd_learners:PredictsBadNumber(value={value!r}, after=30)"
    line = one_line_error(capsys, "run", "--stream", "friedman", "--n-rows", "400",
                          "--learners", "linreg", spec, "--folds", "2", "--test-every",
                          "200", "--output", str(tmp_path / "out"))
    found = re.search(r"learner (.+) \(fold (\d)\) predicted (.+) for row (\d+): a "
                      "regressor must predict a finite number$", line)
    assert found, line
    assert found[1] == repr(spec) and found[3] == shown
    assert 30 <= int(found[4]) < 400  # its 31st prediction or later, on the stream
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["interrupted"] is True and summary["rows"] <= int(found[4])


def test_nan_class_probabilities_are_refused_naming_the_learner_fold_and_row():
    """Before: a scikit-learn estimator's NaN probabilities were scored (as NaN)."""
    from nan_proba import NanProba

    with pytest.raises(DistvalError) as info:
        evaluate(stream="sea", n_rows=600, learners=("nb", NanProba()), n_folds=2,
                 test_every=200, measure="log_loss")
    message = str(info.value)
    assert message.startswith("learner ") and " (fold " in message
    assert "gave the class probabilities [nan, nan] for row 256:" in message
