"""A learner host's replica bookkeeping: which slots it holds, and moving them between
hosts.

The Ray engine moves fold replicas between actors mid-run: :meth:`HostedSlots.part` takes
some slots of a host (sharing their replicas, as trained so far) and
:meth:`HostedSlots.join` makes one host of several parts. The batch loop that trains and
tests the replicas is :class:`~distval.learners.host.LearnerHost`'s.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from distval.learners.cost import CostBook
from distval.learners.outputs import _wide

if TYPE_CHECKING:
    from distval.learners.moa.replicas import MoaReplicas

__all__ = ["HostedSlots"]

_H = TypeVar("_H", bound="HostedSlots")


class HostedSlots:
    """The per-slot state a learner host keeps, in the order of its ``slots``, and its
    moves (:meth:`part`, :meth:`join`)."""

    #: (learner index, fold) of each hosted replica.
    slots: list[tuple[int, int]]
    #: Each slot's river replica (None for a replica run in the JVM, ``moa``).
    models: list[Any]
    _weighted: list[bool]
    _categorical: list[Any]
    _observing: list[bool]
    #: Each slot's seconds of work so far.
    busy: list[float]
    cost: CostBook
    _pending_rows: np.ndarray
    _pending: np.ndarray
    _pending_proba: np.ndarray
    #: The JVM replicas of the ``moa:`` slots, run together, and their slot positions.
    moa: MoaReplicas | None
    _moa_at: list[int]

    def part(self: _H, slots: list[tuple[int, int]]) -> _H:
        """A host of some of these slots that shares their replicas, as trained so far.

        >>> from distval.learners import LearnerHost, parse_learner
        >>> host = LearnerHost([parse_learner("nb")], [(0, 0), (0, 1)], ["a"], seed=1)
        >>> host.part([(0, 1)]).models[0] is host.models[1]
        True
        """
        where = {s: j for j, s in enumerate(self.slots)}
        picked = [(int(i), int(f)) for i, f in slots]
        missing = [s for s in picked if s not in where]
        if missing:
            raise ValueError(f"slots {missing} are not hosted here")
        new = copy.copy(self)
        new.slots = picked
        new.models = [self.models[where[s]] for s in picked]
        new._weighted = [self._weighted[where[s]] for s in picked]
        new._categorical = [self._categorical[where[s]] for s in picked]
        new._observing = [self._observing[where[s]] for s in picked]
        new.busy = [self.busy[where[s]] for s in picked]
        new.cost = self.cost.part([where[s] for s in picked])
        new._pending = self._pending[[where[s] for s in picked]]
        new._pending_proba = self._pending_proba[[where[s] for s in picked]]
        if self.moa is not None:
            in_moa = {j: r for r, j in enumerate(self._moa_at)}
            new._moa_at = [k for k, s in enumerate(picked) if where[s] in in_moa]
            rows = [in_moa[where[picked[k]]] for k in new._moa_at]
            new.moa = self.moa.part(rows) if rows else None
        return new

    @classmethod
    def join(cls: type[_H], hosts: Sequence[_H]) -> _H:
        """One host of the slots of ``hosts`` (parts of one run's host), in their order,
        sharing their replicas as trained so far.

        >>> from distval.learners import LearnerHost, parse_learner
        >>> host = LearnerHost([parse_learner("nb")], [(0, 0), (0, 1), (0, 2)], ["a"], seed=1)
        >>> joined = LearnerHost.join([host.part([(0, 2)]), host.part([(0, 0), (0, 1)])])
        >>> joined.slots, joined.models[0] is host.models[2]
        ([(0, 2), (0, 0), (0, 1)], True)
        """
        if not hosts:
            raise ValueError("join takes one host or more")
        slots = [s for h in hosts for s in h.slots]
        if len(set(slots)) < len(slots):
            raise ValueError("the hosts share a slot")
        new = copy.copy(hosts[0])
        new.slots = slots
        new.models = [m for h in hosts for m in h.models]
        new._weighted = [w for h in hosts for w in h._weighted]
        new._categorical = [c for h in hosts for c in h._categorical]
        new._observing = [o for h in hosts for o in h._observing]
        new.busy = [b for h in hosts for b in h.busy]
        new.cost = CostBook.join([h.cost for h in hosts])
        if any(not np.array_equal(h._pending_rows, new._pending_rows) for h in hosts):
            raise ValueError("the hosts are at different rows of the stream")
        new._pending = np.concatenate([h._pending for h in hosts])
        c = max(h._pending_proba.shape[2] for h in hosts)
        new._pending_proba = np.concatenate([_wide(h._pending_proba, c) for h in hosts])
        offsets = np.cumsum([0] + [len(h.slots) for h in hosts]).tolist()
        new._moa_at = [o + j for h, o in zip(hosts, offsets) for j in h._moa_at]
        moa = [h.moa for h in hosts if h.moa is not None]
        new.moa = None if not moa else moa[0] if len(moa) == 1 else type(moa[0]).join(moa)
        return new
