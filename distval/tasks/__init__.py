"""The tasks a run can evaluate, each described in one module (:mod:`distval.tasks.base`),
and which one a run's learners make (:func:`resolve_task`).

>>> task_named("regression").compared
('rmse', 'mae', 'r2')
>>> task_named("ranking")
Traceback (most recent call last):
...
distval.errors.DistvalError: unknown task 'ranking'; choose one of classification, regression
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from distval.errors import DistvalError
from distval.learners.registry import LearnerSpec, is_regressor_spec
from distval.tasks.base import Task
from distval.tasks.classification import Classification
from distval.tasks.regression import Regression

__all__ = ["TASKS", "TASK_OBJECTS", "Task", "resolve_task", "task_named", "task_of"]

#: Every task by its name: a new task is one module and one entry here.
TASK_OBJECTS: dict[str, Task] = {t.name: t for t in (Classification(), Regression())}

#: What ``--task`` takes: a task, or "auto" (regression when every learner is a regressor).
TASKS = ("auto", *TASK_OBJECTS)


def task_of(config: Mapping[str, Any]) -> Task:
    """The task of a saved run's configuration (``config.json``; without a ``task`` key:
    classification, as every run was before regression came).

    >>> task_of({}).name, task_of({"task": "regression"}).name
    ('classification', 'regression')
    """
    name = config.get("task")
    if not name:
        return next(t for t in TASK_OBJECTS.values() if not t.named_in_config)
    return task_named(str(name))


def task_named(name: str) -> Task:
    """The task called ``name`` (a run's ``config.task``)."""
    try:
        return TASK_OBJECTS[name]
    except KeyError:
        raise DistvalError(
            f"unknown task {name!r}; choose one of {', '.join(TASK_OBJECTS)}"
        ) from None


def resolve_task(task: str, specs: Sequence[LearnerSpec]) -> str:
    """``task`` resolved against the learners ("auto": regression when every learner is a
    regressor); a mix of regressors and classifiers, or a task its learners cannot do, is
    refused in one line. A ``moa:`` learner is either (its class decides, in the JVM, when
    its replicas are made).

    >>> from distval.learners.registry import parse_learner
    >>> resolve_task("auto", [parse_learner("htr"), parse_learner("linreg")])
    'regression'
    >>> resolve_task("auto", [parse_learner("ht"), parse_learner("nb")])
    'classification'
    """
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
    chosen = TASK_OBJECTS.get(task) or next(
        t for t in TASK_OBJECTS.values() if t.numeric_target == bool(regressors))
    if chosen.numeric_target and others:
        raise DistvalError(
            f"--task {chosen} needs regressors; {', '.join(others)} "
            f"{'is a classifier' if len(others) == 1 else 'are classifiers'}"
        )
    if not chosen.numeric_target and regressors:
        verb = "is a regressor" if len(regressors) == 1 else "are regressors"
        raise DistvalError(
            f"{', '.join(regressors)} {verb}: give --task regression (or leave --task auto)"
        )
    return chosen.name
