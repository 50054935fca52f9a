"""The replicas of a learner: one independent, seeded copy per fold, cloned from its
:class:`~distval.learners.registry.LearnerSpec`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from distval.errors import DistvalError
from distval.learners.registry import LearnerSpec, _is_regressor

__all__ = ["make_replicas", "replica_seed"]


def replica_seed(seed: int | None, learner: int, fold: int) -> int:
    """The seed of replica ``fold`` of learner number ``learner``: distinct and reproducible."""
    entropy = [0 if seed is None else int(seed), learner, fold]
    return int(np.random.SeedSequence(entropy).generate_state(1)[0] & 0x7FFFFFFF)


def make_replicas(
    spec: LearnerSpec, learner: int, folds: Iterable[int], seed: int | None,
    regression: bool = False,
) -> list[Any]:
    """Independent replicas of a learner for the given folds, each with its own seed
    (``regression``: of a regressor, for a regression run).

    >>> from distval.learners.registry import parse_learner
    >>> reps = make_replicas(parse_learner("arf(n_models=2)"), 0, [0, 1], seed=1)
    >>> reps[0].seed != reps[1].seed
    True
    """
    if spec.is_moa:
        raise DistvalError(f"learner {spec.text!r} is a MOA learner: host it with MoaReplicas")
    from distval.learners import minibatch

    size = spec.mini_batch
    if spec.is_sklearn:
        sk = spec.build()
        return [
            minibatch.sklearn_replica(sk, size or minibatch.DEFAULT_MINI_BATCH,
                                      replica_seed(seed, learner, f))
            for f in folds
        ]
    template = spec.build()
    try:
        template._get_params()
    except AttributeError:
        raise DistvalError(
            f"learner {spec.text!r} is not a river estimator (no clone()/_get_params())"
        ) from None
    if regression and not _is_regressor(template):
        raise DistvalError(
            f"learner {spec.label!r} is not a regressor; a regression run (--task regression) "
            "needs river regressors (htr, arfr, linreg, or package.module:Class)"
        )
    if _is_regressor(template) and not regression:
        named = repr(spec.text) if spec.label == spec.text else f"{spec.label!r} ({spec.text})"
        raise DistvalError(
            f"learner {named} is a regressor; distval evaluates classifiers (a river "
            "classifier, a pipeline ending in one, or a MOA classifier), or regressors "
            "with --task regression"
        )
    if not (
        callable(getattr(template, "predict_one", None))
        and callable(getattr(template, "learn_one", None))
    ):
        raise DistvalError(
            f"learner {spec.text!r} is not a classifier (it needs predict_one and learn_one)"
        )
    replicas = []
    for f in folds:
        new = _seeded(template, replica_seed(seed, learner, f))
        replicas.append(template.clone(new or None))
    if size is not None:
        minibatch.check_river_minibatch(spec.text, template)
        return [minibatch.river_replica(r, size) for r in replicas]
    return replicas


def _seeded(estimator: Any, seed: int) -> dict[str, Any]:
    """The ``clone()`` parameters that give every seeded step of ``estimator`` ``seed``: its
    own ``seed`` parameter, those of the steps of a pipeline or union, and those of the
    estimators a wrapper holds (bagging's model, ...), however deep.

    >>> from river import ensemble, forest, preprocessing
    >>> p = preprocessing.StandardScaler() | ensemble.BaggingClassifier(
    ...     forest.ARFClassifier(n_models=2), n_models=2, seed=42)
    >>> new = _seeded(p, 7)
    >>> new["BaggingClassifier"]["seed"], new["BaggingClassifier"]["model"][1]
    (7, {'seed': 7})
    >>> _seeded(preprocessing.StandardScaler(), 7)
    {}
    """
    params = estimator._get_params()
    parts = getattr(estimator, "steps", None) or getattr(estimator, "transformers", None)
    if isinstance(parts, dict) and set(parts) == set(params):  # a Pipeline or TransformerUnion
        inner = {name: _seeded(step, seed) for name, step in parts.items()}
        return {name: new for name, new in inner.items() if new}
    out: dict[str, Any] = {}
    if "seed" in params:
        out["seed"] = seed
    for name, value in params.items():
        held = getattr(estimator, name, None) if name != "_POSITIONAL_ARGS" else None
        if isinstance(value, tuple) and len(value) == 2 and callable(
            getattr(held, "_get_params", None)
        ):
            new = _seeded(held, seed)
            if new:
                out[name] = (value[0], new)
    return out
