"""Learner specs, replicas and the training-weight policy."""

from __future__ import annotations

import pickle

import pytest
from river import datasets, naive_bayes, tree

from distval.errors import DistvalError
from distval.learners import (
    BUILTIN,
    make_replicas,
    parse_learner,
    replica_seed,
)
from distval.learners.registry import REGRESSORS, learner_spec
from distval.learners.weights import learns_with_weight


@pytest.mark.parametrize("name", [n for n in BUILTIN if n not in REGRESSORS])
def test_every_builtin_builds_learns_and_predicts(name):
    model = parse_learner(name).build()
    observe = getattr(model, "observe_label", None)  # the label-sequence protocol
    for x, y in datasets.synth.SEA(seed=1).take(50):
        model.learn_one(x, int(y))
        if observe is not None:
            observe(int(y))
    assert model.predict_one({0: 5.0, 1: 5.0, 2: 5.0}) in (0, 1)


def test_parameters_and_aliases():
    spec = parse_learner("Hoeffding_Tree(grace_period=50, delta=1e-5)")
    assert spec.name == "ht" and spec.params == {"grace_period": 50, "delta": 1e-5}
    assert spec.build().grace_period == 50
    path = parse_learner("river.naive_bayes:GaussianNB")
    assert isinstance(path.build(), naive_bayes.GaussianNB)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("j48", "unknown learner 'j48'; built-in names are ht, hat, nb"),
        ("river.tree:NoSuchTree", "does not import"),
        ("no_such_package.mod:Cls", "does not import"),
        ("ht(grace_period=)", "key=value"),
        ("ht(50)", "key=value"),
        ("ht(grace_period=len)", "literal"),
        ("ht(grace_period=50", "NAME"),
        ("ht(grace_period=50), nb(seed=1)", "key=value"),  # two calls: a tuple, not a call
        ("ht(**{'grace_period': 50})", "key=value"),
    ],
)
def test_bad_learner_text(text, message):
    with pytest.raises(DistvalError, match=message.replace("(", r"\(")):
        parse_learner(text)


def test_bad_constructor_parameter_is_reported():
    with pytest.raises(DistvalError, match="bad parameter"):
        parse_learner("ht(no_such_param=1)").build()


def test_weight_policy():
    assert learns_with_weight(tree.HoeffdingTreeClassifier())
    assert not learns_with_weight(naive_bayes.GaussianNB())
    assert not learns_with_weight(parse_learner("arf").build())  # accepts **kwargs, ignores w


def test_replicas_are_fresh_and_seeded_independently():
    reps = make_replicas(parse_learner("arf(n_models=3)"), learner=1, folds=[0, 1, 2], seed=5)
    seeds = [r.seed for r in reps]
    assert len(set(seeds)) == 3
    assert seeds == [replica_seed(5, 1, f) for f in range(3)]
    assert replica_seed(5, 0, 0) != replica_seed(5, 1, 0) != replica_seed(6, 1, 0)
    # replicas do not share state
    x, _ = next(iter(datasets.synth.SEA(seed=1).take(1)))
    ht = make_replicas(parse_learner("ht"), 0, [0, 1], seed=1)
    ht[0].learn_one(x, 1)
    assert ht[1].predict_one(x) is None


def test_spec_pickles():
    spec = parse_learner("lb(n_models=2)")
    assert pickle.loads(pickle.dumps(spec)) == spec


def test_a_regressor_is_refused_by_name_also_inside_a_pipeline():
    """Issue 30 item 5: a regressor used to fail deep in the host (OverflowError casting
    its real-valued predictions to class indices)."""
    from river import linear_model, preprocessing

    import distval

    for learner in (
        linear_model.LinearRegression(),
        preprocessing.StandardScaler() | linear_model.LinearRegression(),
    ):
        with pytest.raises(DistvalError, match=r"mix regressors \(reg\) with classifiers"):
            distval.evaluate(stream="sea", n_rows=200, learners={"reg": learner, "nb": "nb"})
        with pytest.raises(DistvalError, match="is a regressor; distval evaluates classifiers"):
            make_replicas(learner_spec(learner), 0, [0], seed=1)
