"""A prediction that is not a class of the stream is refused with the learner's name; -1 no
longer passes for the marker of an untested row."""

from __future__ import annotations

import pytest

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


def test_a_regressors_none_is_refused_not_scored_as_zero():
    """Before: a regressor's None was scored as the prediction 0 (NaN and inf were refused)."""
    with pytest.raises(DistvalError) as info:
        evaluate(stream="friedman", n_rows=600, task="regression", n_folds=2, test_every=200,
                 learners=("linreg", "none_regressor:PredictsNone(after=50)"))
    message = str(info.value)
    assert message.startswith("learner 'none_regressor:PredictsNone(after=50)' (fold ")
    assert "predicted None for row " in message


def test_nan_class_probabilities_are_refused_naming_the_learner_fold_and_row():
    """Before: a scikit-learn estimator's NaN probabilities were scored (as NaN)."""
    from nan_proba import NanProba

    with pytest.raises(DistvalError) as info:
        evaluate(stream="sea", n_rows=600, learners=("nb", NanProba()), n_folds=2,
                 test_every=200, measure="log_loss")
    message = str(info.value)
    assert message.startswith("learner ") and " (fold " in message
    assert "gave the class probabilities [nan, nan] for row 256:" in message
