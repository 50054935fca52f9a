"""What an import path in a learner spec may name, checked before anything is constructed.

A path must name a classifier class (a subclass of river's ``base.Classifier``, or a class
with ``predict_one``, ``learn_one`` and ``clone``) or a function declared a learner factory
with :func:`learner_factory`; :func:`check_learner_class` refuses anything else, so that a
spec such as ``subprocess:Popen`` constructs nothing.

>>> @learner_factory
... def tiny():
...     from river import tree
...     return tree.HoeffdingTreeClassifier()
>>> check_learner_class("mine:tiny", tiny)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from distval.errors import DistvalError

__all__ = ["FACTORY_MARK", "check_learner_class", "learner_factory"]


#: The attribute by which a function declares that it builds a classifier (:func:`learner_factory`).
FACTORY_MARK = "__distval_learner_factory__"


_F = TypeVar("_F", bound=Callable[..., Any])


def learner_factory(func: _F) -> _F:
    """Declare ``func`` a learner factory: a function that returns a river classifier, which
    learner specs may then name by import path (``package.module:func(key=value)``).

    >>> @learner_factory
    ... def small_tree(grace_period: int = 50):
    ...     from river import tree
    ...     return tree.HoeffdingTreeClassifier(grace_period=grace_period)
    >>> check_learner_class("mine:small_tree", small_tree)
    """
    setattr(func, FACTORY_MARK, True)
    return func


def _is_classifier_class(cls: type) -> bool:
    try:
        from river import base

        if issubclass(cls, base.Classifier):
            return True
    except ImportError:  # pragma: no cover - river is a dependency
        pass
    return all(callable(getattr(cls, m, None)) for m in ("predict_one", "learn_one", "clone"))


def check_learner_class(name: str, obj: object) -> None:
    """Refuse, before anything is constructed, what an import path names unless it is a
    classifier class (river's ``base.Classifier``, or a class with ``predict_one``,
    ``learn_one`` and ``clone``) or a :func:`learner_factory`.

    >>> from river import tree
    >>> check_learner_class("river.tree:HoeffdingTreeClassifier", tree.HoeffdingTreeClassifier)
    >>> import subprocess
    >>> try:
    ...     check_learner_class("subprocess:Popen", subprocess.Popen)
    ... except DistvalError as e:
    ...     print(str(e)[:67])
    learner 'subprocess:Popen' names subprocess.Popen, not a classifier
    """
    if isinstance(obj, type):
        if _is_classifier_class(obj):
            return
        what = f"{obj.__module__}.{obj.__qualname__}"
    elif callable(obj) and getattr(obj, FACTORY_MARK, False) is True:
        return
    else:
        what = f"{type(obj).__name__} {getattr(obj, '__qualname__', repr(obj))!s:.60}"
    raise DistvalError(
        f"learner {name!r} names {what}, not a classifier: an import path must name a river "
        "classifier class, a class with predict_one, learn_one and clone, or a function "
        "declared with distval.learners.learner_factory (nothing was constructed)"
    )
