"""Which learners get nominal features as their categories, and the category names.

River's convention: a non-numeric feature value is a category. River's trees (Hoeffding,
adaptive, extremely fast), forests and ensembles of them split on such values as nominal
attributes; most other river learners (Gaussian naive Bayes, scalers, linear models) need
numbers and fail on a string. So a replica gets a nominal feature as its category name when
it :func:`accepts_nominal`, and as the category code (a float) otherwise.

A category is named as the stream knows it when the learner host is built; a category
first seen later (a CSV column read by first appearance) is named ``#k`` by its code, which
still keeps the categories apart (MOA's header does the same).
"""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["accepts_nominal", "category_names"]


#: river classes that take nominal features as they come: (module, class name).
_NOMINAL_CLASSES = (
    ("river.tree.hoeffding_tree", "HoeffdingTree"),
    ("river.forest", "ARFClassifier"),
    ("river.preprocessing", "OneHotEncoder"),
    ("river.preprocessing", "OrdinalEncoder"),
)


def accepts_nominal(model: Any) -> bool:
    """Whether ``model`` takes nominal features as non-numeric values (category names).

    A class says so itself with an ``accepts_nominal`` attribute; otherwise river's trees and
    forests do, wrappers and ensembles (``model`` parameter) as their base does, a pipeline
    as its first step, and anything else does not.

    >>> from river import ensemble, naive_bayes, preprocessing, tree
    >>> accepts_nominal(tree.HoeffdingTreeClassifier()), accepts_nominal(naive_bayes.GaussianNB())
    (True, False)
    >>> accepts_nominal(ensemble.LeveragingBaggingClassifier(tree.HoeffdingTreeClassifier()))
    True
    >>> accepts_nominal(preprocessing.OneHotEncoder() | naive_bayes.MultinomialNB())
    True
    """
    own = getattr(type(model), "accepts_nominal", None)
    if isinstance(own, bool):
        return own
    steps = getattr(model, "steps", None)
    if isinstance(steps, dict) and steps:
        return accepts_nominal(next(iter(steps.values())))
    # A model can only be an instance of a class whose module is loaded: looking the
    # classes up in sys.modules spares a run of river.forest's import (river.drift, and
    # river.datasets behind it) when no forest is used.
    kinds = tuple(
        getattr(sys.modules[module], name)
        for module, name in _NOMINAL_CLASSES
        if module in sys.modules
    )
    if kinds and isinstance(model, kinds):
        return True
    inner = getattr(model, "model", None)
    return inner is not None and inner is not model and accepts_nominal(inner)


def category_names(known: tuple[str, ...] | list[str], n: int) -> list[str]:
    """``known`` names padded to ``n`` with ``#k`` placeholders no known name uses.

    >>> category_names(("a", "#2"), 4)
    ['a', '#2', '#3', '#4']
    """
    out = [str(v) for v in known]
    taken = set(out)
    k = len(out)
    while len(out) < n:
        name = f"#{k}"
        if name not in taken:
            out.append(name)
            taken.add(name)
        k += 1
    return out
