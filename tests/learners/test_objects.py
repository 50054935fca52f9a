"""River objects as learners: templates cloned per fold with a seed, shipped to Ray actors."""

from __future__ import annotations

import pytest
from river import forest, linear_model, preprocessing, tree
from river.datasets import synth

import distval
from distval.config import RunConfig
from distval.engine.loop import open_config_stream
from distval.engine.run import Run
from distval.errors import DistvalError
from distval.learners import learner_spec, make_replicas, parse_learner

SMALL = {"n_rows": 1500, "n_folds": 3, "test_every": 500, "batch_size": 250}


def test_an_object_gives_the_same_numbers_as_its_spec(assert_same_rows):
    by_object = distval.evaluate(
        stream="sea", learners={"ht": tree.HoeffdingTreeClassifier(grace_period=50)}, **SMALL
    )
    by_text = distval.evaluate(
        stream="sea", learners={"ht": "ht(grace_period=50)"}, **SMALL
    )
    assert_same_rows(by_object.fold_rows, by_text.fold_rows)


def test_replicas_are_seeded_clones_and_the_template_stays_untrained():
    template = forest.ARFClassifier(n_models=2, seed=5)
    reps = make_replicas(learner_spec(template), 0, [0, 1], seed=1)
    spec_reps = make_replicas(parse_learner("arf(n_models=2)"), 0, [0, 1], seed=1)
    assert [r.seed for r in reps] == [r.seed for r in spec_reps]
    assert reps[0] is not template and reps[0].seed != reps[1].seed
    reps[0].learn_one({"a": 1.0}, True)
    assert template.n_models == 2 and not template.models  # never trained


def test_a_pipeline_on_a_river_generator_runs_and_is_recorded_as_text(tmp_path):
    model = preprocessing.StandardScaler() | linear_model.LogisticRegression()
    res = distval.evaluate(
        stream=synth.SEA(seed=1, noise=0.1),
        learners=[model, tree.HoeffdingTreeClassifier()],
        output_dir=tmp_path / "r",
        **SMALL,
    )
    assert res.n_rows == 1500
    assert res.config.labels == ("StandardScaler | LogisticRegression", "HoeffdingTreeClassifier")
    cfg = RunConfig.from_dict(res.config.to_dict() | {"learners": ["ht", "nb"], "stream": "sea"})
    assert cfg.n_folds == 3
    text = (tmp_path / "r" / "config.json").read_text()
    assert '"python:StandardScaler | LogisticRegression"' in text and '"python:SEA"' in text
    assert "river.tree:HoeffdingTreeClassifier" in text
    with pytest.raises(DistvalError, match="was a Python object"):
        RunConfig.from_dict(res.config.to_dict())


def test_an_object_that_is_not_a_classifier_or_does_not_pickle_is_refused():
    with pytest.raises(DistvalError, match="is not a river classifier"):
        RunConfig(learners=[object()])
    model = tree.HoeffdingTreeClassifier()
    model.hook = lambda: None  # lambdas do not pickle
    with pytest.raises(DistvalError, match="cannot be pickled"):
        RunConfig(learners=[model])


@pytest.mark.ray
def test_objects_travel_to_ray_actors_with_the_same_numbers(ray_local, assert_same_rows):
    from distval.ray_backend.engine import RayRun

    opts = {"stream": "sea", "learners": [tree.HoeffdingTreeClassifier(grace_period=50)]} | SMALL
    cfg = RunConfig(**opts)
    stream = open_config_stream(cfg)
    run = Run(cfg, stream)
    for step in RayRun(cfg, stream, n_actors=2, warm_up_batches=0).steps():
        run.feed(step)
    ray_res = run.close()
    assert ray_res.evaluated_by == {"actors": 1500}
    local = distval.evaluate(**opts)
    assert_same_rows(ray_res.fold_rows, local.fold_rows)


def fold_accuracies(result, learner: str) -> list[float]:
    final = result.final_folds()
    rows = final[(final["learner"] == learner) & (final["forgetting"] == "cumulative")]
    return rows.sort_values("fold")["accuracy"].tolist()


def test_a_pipelines_seeded_step_gets_a_seed_per_learner_and_fold():
    """Issue 30 item 3: a pipeline and its clone used to be identical in every fold (the
    bagging step kept seed 42 in all replicas), so a sign test between them had no fold to
    use. Now they differ, and a pipeline whose other step changes nothing (``Select`` of
    every feature) gives exactly the numbers of its bare seeded estimator."""
    from river import compose, ensemble

    p = preprocessing.StandardScaler() | ensemble.BaggingClassifier(
        tree.HoeffdingTreeClassifier(), n_models=3, seed=42
    )
    opts = {"n_rows": 3000, "n_folds": 10, "scheme": "cv", "test_every": 3000}
    res = distval.evaluate(
        stream=synth.SEA(seed=1, noise=0.1), learners={"a": p, "b": p.clone()}, **opts
    )
    a, b = fold_accuracies(res, "a"), fold_accuracies(res, "b")
    assert len(a) == len(b) == 10
    assert sum(x != y for x, y in zip(a, b)) >= 3

    bag = ensemble.BaggingClassifier(tree.HoeffdingTreeClassifier(), n_models=3, seed=42)
    piped = compose.Select("0", "1", "2") | bag.clone()
    bare = distval.evaluate(stream=synth.SEA(seed=1, noise=0.1), learners={"m": bag}, **opts)
    through = distval.evaluate(
        stream=synth.SEA(seed=1, noise=0.1), learners={"m": piped}, **opts
    )
    assert fold_accuracies(through, "m") == fold_accuracies(bare, "m")


def test_a_wrappers_seeded_inner_model_gets_the_replica_seed():
    """A wrapper's seeded inner estimator (a forest inside bagging, inside a pipeline) is
    seeded per (learner, fold) as a bare forest is."""
    from river import compose, ensemble

    inner = forest.ARFClassifier(n_models=2, seed=5)
    wrapped = preprocessing.StandardScaler() | ensemble.BaggingClassifier(
        inner, n_models=2, seed=7
    )
    reps = make_replicas(learner_spec(wrapped), 1, [0, 1, 2], seed=3)
    bare = make_replicas(learner_spec(inner), 1, [0, 1, 2], seed=3)
    steps = [r["BaggingClassifier"] for r in reps]
    assert [s.model.seed for s in steps] == [s.seed for s in steps] == [b.seed for b in bare]
    assert len({b.seed for b in bare}) == 3
    assert isinstance(reps[0], compose.Pipeline) and wrapped["BaggingClassifier"].seed == 7
