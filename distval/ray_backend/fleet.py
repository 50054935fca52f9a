"""The actors of one run: started empty, or leased warm from a running Ray's pool.

A run that joins a one-machine Ray it did not start (``ray start``, ``RAY_ADDRESS``: Ray's
convention) keeps its actors warm there when it ends: they drop the run's state and wait
in a detached :class:`~distval.ray_backend.actors.WarmPool`, so that the next run on the
same code starts on actors whose processes are up and whose learners' modules (and JVM)
are loaded, instead of seconds of worker start and imports. Every kept actor ends itself
once its driver is gone and no call has come for
:func:`~distval.ray_backend.session.keep_seconds` (``DISTVAL_KEEP_ACTORS``, default 300;
0: never keep), the pool after twice that once no driver that leased from it is alive,
whatever instant a driver was killed at (:mod:`~distval.ray_backend.keeper`); a run's own
private Ray is shut down with everything in it, as before.

Kept learner actors reserve no CPU (Ray's own default for an actor once it runs): an idle one
blocks nothing else on the machine, and two runs at once share its cores as two processes
would. On a Ray of several machines the actors reserve their CPUs, so that Ray spreads
them, and end with the run (nothing is kept there).

The pool is named by :func:`code_key` (this Python and distval's source files as they are
now): a run never leases an actor that runs other code than its own. Runs at once lease
disjoint actors (the pool's calls run one at a time); what the pool lacks is started anew.

>>> kept_seconds()   # this process is not connected to a Ray
0.0
"""

from __future__ import annotations

import contextlib
import hashlib
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import ray
from ray import ObjectRef

from distval.aggregator.snapshot import Snapshot
from distval.config import RunConfig
from distval.engine.loop import Fresh
from distval.learners.batch import Batch
from distval.learners.host import LearnerHost
from distval.learners.registry import LearnerSpec
from distval.ray_backend.actors import AggregatorActor, LearnerActor, WarmPool
from distval.ray_backend.keeper import driver_job
from distval.ray_backend.session import keep_seconds

__all__ = ["NAMESPACE", "Fleet", "code_key", "joined", "kept_seconds"]

#: The Ray namespace of the warm pool.
NAMESPACE = "distval"


def joined() -> bool:
    """Whether this process is connected to a Ray it did not start (Ray Client aside)."""
    from ray._private import worker

    node = getattr(worker, "_global_node", None)
    return node is not None and not node.head


def kept_seconds() -> float:
    """Seconds this run's actors stay warm: ``keep_seconds()`` in a one-machine Ray this
    process joined, else 0 (module docstring)."""
    if not joined():
        return 0.0
    nodes = [n for n in ray.nodes() if n.get("Alive")]  # type: ignore[no-untyped-call]
    return keep_seconds() if len(nodes) == 1 else 0.0


def code_key() -> str:
    """A name for the code an actor runs: this Python, and the path, size and modification
    time of every source file of distval (an edited or upgraded checkout gets a new one).

    >>> len(code_key()), code_key() == code_key()
    (16, True)
    """
    root = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256(sys.executable.encode())
    for path in sorted(root.rglob("*.py")):
        stat = path.stat()
        digest.update(f"{path}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:16]


def _pool(create: float = 0.0) -> Any:
    """The warm pool's handle (None if there is none; with ``create`` seconds, one is
    started and None returned: it is not ready for this run). The pool ends itself once no
    driver that leased from it is alive and no call has come for twice those seconds
    (:mod:`~distval.ray_backend.keeper`)."""
    name = f"pool-{code_key()}"
    try:
        return ray.get_actor(name, namespace=NAMESPACE)
    except ValueError:
        pass
    if create:
        with contextlib.suppress(Exception):  # another run started it first: theirs will do
            ray.remote(WarmPool).options(
                name=name, namespace=NAMESPACE, lifetime="detached", num_cpus=0,
                max_restarts=0, get_if_exists=True).remote(2 * create, driver_job())
    return None


class Fleet:
    """The learner actors and the aggregator actor of one run.

    With ``keep`` seconds (:func:`kept_seconds`), the actors are leased from the warm pool where it
    has them and started detached otherwise, and :meth:`done` gives them back to the pool;
    with ``keep=0`` they are started for this run alone and :meth:`done` ends them.
    """

    def __init__(
        self,
        specs: list[LearnerSpec],
        slot_ids: list[list[int]],
        cpus_per_actor: float,
        warm: tuple[RunConfig, int | None] | None = None,
        keep: float = 0.0,
    ) -> None:
        self.keep = keep
        self._driver = driver_job() if keep > 0 else None
        self._kind = "learner"
        self._over = False
        pool = _pool(create=keep) if keep > 0 else None
        learners = self._lease(pool, self._kind, len(slot_ids), self._driver)
        aggregators = self._lease(pool, "aggregator", 1, self._driver)
        for actor in learners:
            actor.prepare.remote(specs)
        for actor in aggregators:
            actor.regroup.remote(slot_ids)
        options: dict[str, Any] = {"max_restarts": 0}
        if keep > 0:  # kept warm: outlives the driver, reserves no CPU (module docstring)
            options["lifetime"] = "detached"
            cpus_per_actor = 0
        learner = ray.remote(LearnerActor).options(num_cpus=cpus_per_actor, **options)
        aggregator = ray.remote(AggregatorActor).options(num_cpus=0, **options)
        # Actor handles as Any: Ray types a handle's methods as the plain methods, not as
        # objects with .remote() and .options().
        # The aggregator first: its boot and warm-up (statistics, kernels) take the longest.
        # Each kept actor ends itself from its constructor on, once this driver is gone.
        self.aggregator: Any = (aggregators[0] if aggregators
                                else aggregator.remote(slot_ids, keep, self._driver))
        new = [learner.remote(specs, keep, self._driver)
               for _ in range(len(slot_ids) - len(learners))]
        self.learners: list[Any] = [*learners, *new]
        self.leased = len(learners) + len(aggregators)
        if keep > 0:
            for actor in self.all:
                actor.keep.remote(keep, self._driver)
        self._booting = [a.__ray_ready__.remote() for a in self.all]
        if warm is not None:  # after the readiness call: the hand-over does not wait for it
            handle: Any = self.aggregator
            handle.warm.remote(*warm)

    @staticmethod
    def _lease(pool: Any, kind: str, n: int, driver: str | None) -> list[Any]:
        if pool is None:
            return []
        try:
            handles: list[Any] = ray.get(pool.lease.remote(kind, n, driver), timeout=10.0)
        except Exception:  # the pool ended or does not answer: start what is needed
            return []
        return handles

    @property
    def all(self) -> list[Any]:
        return [*self.learners, self.aggregator]

    def ready(self) -> bool:
        """Whether every actor has started; one lost while starting raises RayActorError."""
        if self._booting:
            n = len(self._booting)
            done, self._booting = ray.wait(self._booting, num_returns=n, timeout=0)
            ray.get(done)
        return not self._booting

    def load(self, states: Iterable[object]) -> None:
        """Give every actor its state (objects or object refs), before any other call."""
        for actor, state in zip(self.all, states):
            actor.load.remote(state)

    def start(self, fresh: Fresh, slot_ids: list[list[int]]) -> list[ObjectRef[str | None]]:
        """Every actor builds its share of the run's fresh state (``slot_ids``: each learner
        actor's slots, as numbered in :meth:`~distval.engine.loop.Fresh.slots`); one ref
        per learner actor: why its replicas cannot be pickled, or None."""
        slots, replicas = fresh.slots, fresh.replicas()
        self.aggregator.start.remote(fresh)
        return [a.start.remote(replicas, [slots[i] for i in ids])
                for a, ids in zip(self.learners, slot_ids)]

    def submit(self, parcel_ref: ObjectRef[list[Batch]]) -> ObjectRef[list[Snapshot | None]]:
        parts = [a.process.remote(parcel_ref) for a in self.learners]
        snaps: ObjectRef[list[Snapshot | None]] = self.aggregator.consume.remote(
            parcel_ref, *parts
        )
        return snaps

    def checkpoint(self) -> tuple[list[ObjectRef[Any]], list[ObjectRef[bool]]]:
        """(state refs, ok refs): the states stay in the object store, owned by the driver."""
        calls = [a.checkpoint.options(num_returns=2).remote() for a in self.all]
        return [c[0] for c in calls], [c[1] for c in calls]

    def regroup(self, states: list[ObjectRef[LearnerHost]], slot_ids: list[list[int]]) -> None:
        """Give every learner actor its new share and the aggregator the new layout."""
        for actor, state in zip(self.learners, states):
            actor.load.remote(state)
        self.aggregator.regroup.remote(slot_ids)

    def done(self) -> None:
        """The run is over: back to the warm pool (each actor without the run's state),
        or ended where nothing is kept or the pool does not take them."""
        if self._over:
            return
        pool = _pool() if self.keep > 0 else None
        if pool is not None:
            try:
                ray.get([a.release.remote() for a in self.all], timeout=10.0)
                ray.get([pool.give_back.remote(self._kind, self.learners),
                         pool.give_back.remote("aggregator", [self.aggregator])], timeout=10.0)
                self._over = True
                return
            except Exception:  # an actor or the pool is gone: end them all
                pass
        self.kill()

    def kill(self) -> None:
        """End every actor (after a fault, an interrupt or the end of the run); nothing
        once :meth:`done` gave them back."""
        if self._over:
            return
        self._over = True
        for a in self.all:
            with contextlib.suppress(Exception):
                ray.kill(a, no_restart=True)
