"""What a host of fold replicas holds, as the checks outside its batch loop read it: which
replica cannot be saved (:func:`unpicklable`), so cannot be checkpointed or moved.
"""

from __future__ import annotations

import pickle
from collections.abc import Sequence
from typing import Any, Protocol

__all__ = ["Hosted", "unpicklable"]


class Hosted(Protocol):
    """A host's replicas (``models``), their (learner, fold) ``slots`` and the learners'
    ``labels``: what :class:`~distval.learners.host.LearnerHost` holds."""

    models: list[Any]
    slots: list[tuple[int, int]]
    labels: list[str]


def unpicklable(hosts: Sequence[Hosted]) -> str | None:
    """``learner 'NAME': why`` for the first learner replica :mod:`pickle` cannot save (one
    holding a lock, say), or None: such a learner can be checkpointed for no resume and
    moved to no Ray actor.

    >>> import threading
    >>> from distval.learners import LearnerHost, parse_learner
    >>> host = LearnerHost([parse_learner("nb")], [(0, 0)], ["a"], seed=1)
    >>> unpicklable([host]) is None
    True
    >>> host.models[0].lock = threading.Lock()
    >>> unpicklable([host])
    "learner 'nb': cannot pickle '_thread.lock' object"
    """
    for host in hosts:
        for model, (i, _) in zip(host.models, host.slots):
            try:
                pickle.dumps(model, protocol=4)
            except Exception as exc:  # what pickle raises varies: TypeError, PicklingError...
                return f"learner {host.labels[i]!r}: {exc}"
    return None
