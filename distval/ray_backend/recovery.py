"""What happens when a Ray actor dies: the run's actors are rebuilt from the last complete
checkpoint and the parcels sent since are replayed, so the results are those of a run
without the fault.

The driver (:class:`~distval.ray_backend.engine.RayRun`) tells a :class:`Recovery` each
parcel it sends (:meth:`Recovery.sent`) and each state it knows the actors hold (the state
handed over after the warm-up, the fresh state's recipe, the state after a move:
:meth:`Recovery.checkpointed`); after each parcel :meth:`Recovery.advance` asks the actors
for a checkpoint every ``checkpoint_every`` parcels (kept in the object store, owned by the
driver). A checkpoint counts once every actor has answered; the parcels before it are then
forgotten. When a call finds an actor dead, :meth:`Recovery.rebuild`
kills the others, starts new actors from that checkpoint and sends them the parcels since
again; an actor lost while booting is replaced by :meth:`Recovery.replace` (the driver still
holds the whole state then). After ``max_recoveries`` rebuilds the run stops with a clear
message, keeping on disk what was computed.

>>> recovery = Recovery(max_recoveries=3, checkpoint_every=2)
>>> recovery.sent(0, "parcel 0", [300, 300])   # stand-ins for the object store's refs
>>> recovery.sent(1, "parcel 1", [300])
>>> [index for index, _, _ in recovery.log]   # what a dead actor's successors get again
[0, 1]
>>> recovery.checkpointed(["state after parcel 0"], first=1)
>>> [index for index, _, _ in recovery.log]
[1]
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any

import ray
from ray import ObjectRef
from ray.exceptions import RayActorError

from distval.aggregator.snapshot import Snapshot
from distval.engine.loop import Fresh
from distval.errors import DistvalError
from distval.learners.batch import Batch
from distval.ray_backend.fleet import Fleet

__all__ = ["Build", "InFlight", "Pending", "Recovery", "Sent", "States"]

#: A state the actors can be rebuilt from: a ref per learner actor and the aggregator's,
#: or the fresh state's recipe (each actor builds its share itself).
States = list[ObjectRef[Any]] | Fresh
#: New actors holding ``States`` (None: started empty).
Build = Callable[[States | None], Fleet]
#: A checkpoint under way: the state refs, the actors' answers, the first parcel after it.
Pending = tuple[list[ObjectRef[Any]], list[ObjectRef[bool]], int]
#: A parcel sent: its index, its ref, the rows of each of its batches.
Sent = tuple[int, ObjectRef[list[Batch]], list[int]]
#: A parcel under way: its index, the rows of each batch, the ref of its snapshots.
InFlight = tuple[int, list[int], ObjectRef[list[Snapshot | None]]]


class Recovery:
    """The last complete checkpoint, the one under way and the parcels sent since; the
    rebuilds they allow (``max_recoveries`` at most, counted in :attr:`count`).
    ``checkpoint_every``: parcels between checkpoints.
    """

    def __init__(self, max_recoveries: int, checkpoint_every: int) -> None:
        self.max_recoveries, self.checkpoint_every = max_recoveries, checkpoint_every
        #: Rebuilds so far.
        self.count = 0
        #: The state the actors are rebuilt from, and the first parcel after it.
        self.last: tuple[States, int] = ([], 0)
        self.pending: Pending | None = None
        #: Every parcel sent since :attr:`last`.
        self.log: list[Sent] = []

    def sent(self, index: int, ref: ObjectRef[list[Batch]], rows: list[int]) -> None:
        """Parcel ``index`` (``rows`` in each batch) went to the actors."""
        self.log.append((index, ref, rows))

    def checkpointed(self, states: States, first: int) -> None:
        """The actors hold ``states`` before parcel ``first``: a dead one is rebuilt from
        there (the checkpoint under way, if any, is dropped)."""
        self.last = (states, first)
        self.log = [e for e in self.log if e[0] >= first]
        self.pending = None

    def advance(self, index: int, actors: Fleet, now: bool = False) -> Pending | None:
        """After parcel ``index`` was sent: complete the checkpoint under way if every actor
        has answered; ask ``actors`` for one if due (or ``now``) and none is under way, and
        return it."""
        if self.pending is not None:
            refs, oks, first = self.pending
            ready, _ = ray.wait(oks, num_returns=len(oks), timeout=0)
            if len(ready) == len(oks):
                try:
                    ray.get(oks)
                    self.checkpointed(refs, first)
                except RayActorError:
                    pass  # the next call to the actors notices the dead one and rebuilds
                self.pending = None
        every = self.checkpoint_every
        if self.pending is not None or not (index % every == every - 1 or now):
            return None
        self.pending = (*actors.checkpoint(), index + 1)
        return self.pending

    def replace(self, actors: Fleet, build: Build, exc: RayActorError) -> Fleet:
        """New actors (``build(None)``) for ``actors``, one of which was lost while starting
        (one recovery)."""
        self.count += 1
        if self.count > self.max_recoveries:
            raise DistvalError(f"a Ray actor could not start: {exc}") from None
        actors.kill()
        return build(None)

    def rebuild(self, actors: Fleet, build: Build) -> tuple[Fleet, deque[InFlight]]:
        """New actors (``build``) for ``actors``, one of which died, from the last complete
        checkpoint, and the parcels under way: every parcel since, sent to them again (one
        recovery)."""
        self.count += 1
        if self.count > self.max_recoveries:
            raise DistvalError(
                f"a Ray actor died {self.count} times; giving up (results so far are kept)"
            )
        actors.kill()
        self.pending = None
        fleet = build(self.last[0])
        return fleet, deque((index, rows, fleet.submit(ref)) for index, ref, rows in self.log)
