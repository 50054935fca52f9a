"""RunConfig's verdict options: the margin and the null twin."""

import pytest

from distval.config import RunConfig
from distval.errors import DistvalError


def test_null_twin_appends_a_copy_of_the_learner_and_survives_a_saved_config():
    c = RunConfig(learners=("ht", "nb(alpha=0.5)"), null_twin="nb(alpha=0.5)")
    assert c.labels == ("ht", "nb(alpha=0.5)", "nb(alpha=0.5)~twin")
    assert [s.text for s in c.specs] == ["ht", "nb(alpha=0.5)", "nb(alpha=0.5)"]
    assert c.twin_pair == ("nb(alpha=0.5)", "nb(alpha=0.5)~twin")
    again = RunConfig.from_dict(c.to_dict())
    assert again == c and again.labels == c.labels  # not a second twin


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
