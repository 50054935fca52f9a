"""Which task a run's learners make: classification (class labels) or regression (a numeric
target), and the one-line refusal of a mix.

>>> from distval.learners.registry import parse_learner
>>> resolve_task("auto", [parse_learner("htr"), parse_learner("linreg")])
'regression'
>>> resolve_task("auto", [parse_learner("ht"), parse_learner("nb")])
'classification'
"""

from __future__ import annotations

from collections.abc import Sequence

from distval.errors import DistvalError
from distval.learners.registry import LearnerSpec, is_regressor_spec

__all__ = ["TASKS", "resolve_task"]

#: What a run evaluates: classifiers (class labels) or regressors (a numeric target); "auto"
#: is regression when every learner is a regressor.
TASKS = ("auto", "classification", "regression")


def resolve_task(task: str, specs: Sequence[LearnerSpec]) -> str:
    """``task`` resolved against the learners ("auto": regression when every learner is a
    regressor); a mix of regressors and classifiers, or a task its learners cannot do, is
    refused in one line. A ``moa:`` learner is either (its class decides, in the JVM, when
    its replicas are made)."""
    if task not in TASKS:
        raise DistvalError(f"unknown task {task!r}; choose one of {', '.join(TASKS)}")
    kinds = [is_regressor_spec(s) for s in specs]
    regressors = [s.label for s, r in zip(specs, kinds) if r]
    others = [s.label for s, r in zip(specs, kinds) if not r and not s.is_moa]
    if regressors and others:
        raise DistvalError(
            f"the learners mix regressors ({', '.join(regressors)}) with classifiers "
            f"({', '.join(others)}): evaluate them in separate runs"
        )
    if task == "auto":
        task = "regression" if regressors else "classification"
    if task == "regression" and others:
        raise DistvalError(
            f"--task regression needs regressors; {', '.join(others)} "
            f"{'is a classifier' if len(others) == 1 else 'are classifiers'}"
        )
    if task == "classification" and regressors:
        verb = "is a regressor" if len(regressors) == 1 else "are regressors"
        raise DistvalError(
            f"{', '.join(regressors)} {verb}: give --task regression (or leave --task auto)"
        )
    return task
