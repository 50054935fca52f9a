"""The training-weight rule: how a replica learns a row of weight w.

A bootstrap weight w ~ Poisson(1) (or 0/1 under cv and split) is passed as
``learn_one(x, y, w=w)`` when ``learn_one`` declares a ``w`` parameter (river's Hoeffding
trees); otherwise ``learn_one`` is called w times (Gaussian naive Bayes; ARF and leveraging
bagging, whose ``learn_one`` ignores a weight; pipelines; the dummy baselines). The rule is
decided once per model with :func:`learns_with_weight`, never per row.

>>> from river import naive_bayes, tree
>>> learns_with_weight(tree.HoeffdingTreeClassifier()), learns_with_weight(naive_bayes.GaussianNB())
(True, False)
"""

from __future__ import annotations

import inspect
from collections.abc import Hashable
from typing import Any

__all__ = ["learn_weighted", "learns_with_weight"]


def learns_with_weight(model: Any) -> bool:
    """Whether ``model.learn_one`` takes the training weight as an argument ``w``."""
    try:
        learn = getattr(model, "learn_one", None)  # a mini-batch replica has none
        return learn is not None and "w" in inspect.signature(learn).parameters
    except (TypeError, ValueError):
        return False


def learn_weighted(
    model: Any, x: dict[Hashable, Any], y: Any, w: float, weighted: bool | None = None
) -> None:
    """Train ``model`` on ``(x, y)`` with weight ``w`` by the rule above.

    ``weighted`` is :func:`learns_with_weight` of the model, when the caller knows it already.

    >>> from river import dummy
    >>> m = dummy.PriorClassifier()
    >>> learn_weighted(m, {}, "a", 3)
    >>> m.counts["a"]
    3
    """
    if weighted is None:
        weighted = learns_with_weight(model)
    if weighted:
        model.learn_one(x, y, w=w)
    else:
        for _ in range(round(w)):
            model.learn_one(x, y)
