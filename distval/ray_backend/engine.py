"""The Ray backend: the core's learner hosts and aggregator in Ray actors.

Layout: the (learner, fold) slots are dealt round-robin to ``n_actors`` learner actors
(default: one per CPU of the Ray cluster), so each actor hosts a balanced share of every
learner's folds and one process serves many folds. The driver reads and routes batches exactly
as the in-process engine (:func:`distval.engine.iter_batches`), puts each batch in the object
store once and hands the reference to every learner actor; the aggregator actor receives the
same reference plus every actor's predictions and returns a snapshot every ``test_every``
rows. At most ``max_in_flight`` batches are under way, so memory stays flat on any stream.

Start-up: the actors' processes take seconds to boot. Meanwhile the driver evaluates the
first batches itself (:class:`distval.engine.LocalEvaluation`) and, once every actor is up,
hands each its share of that state. The same core classes see the same batches either way,
so the numbers do not change.

Faults: every ``checkpoint_every`` batches the driver asks each actor for a copy of its state
(kept in the object store, owned by the driver); the state handed over after the warm-up is
the first checkpoint. If an actor dies, all actors are rebuilt from the last complete
checkpoint and the batches since then are replayed; the results are the same as without the
fault. After ``max_recoveries`` rebuilds the run stops with a clear message, keeping on disk
what was computed.
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import ray
from ray import ObjectRef
from ray.exceptions import RayActorError

from distval.aggregator import Snapshot
from distval.config import RunConfig
from distval.engine import LocalEvaluation, Step, iter_batches
from distval.errors import DistvalError
from distval.learners.host import Batch
from distval.learners.registry import LearnerSpec
from distval.ray_backend.actors import AggregatorActor, LearnerActor
from distval.ray_backend.session import ray_session
from distval.streams import Stream

__all__ = ["RayRun", "deal_slots", "iter_ray", "warm_up"]


def deal_slots(n_learners: int, n_folds: int, n_actors: int) -> list[list[tuple[int, int]]]:
    """Deal the (learner, fold) slots round-robin to at most ``n_actors`` groups.

    >>> deal_slots(2, 3, 2)
    [[(0, 0), (0, 2), (1, 1)], [(0, 1), (1, 0), (1, 2)]]
    """
    slots = [(i, f) for i in range(n_learners) for f in range(n_folds)]
    n = max(1, min(n_actors, len(slots)))
    return [slots[i::n] for i in range(n)]


def warm_up(
    local: LocalEvaluation, batches: Iterator[Batch], more: Callable[[int], bool]
) -> Iterator[Step | Batch]:
    """Evaluate whole batches in the driver while ``more(batches done so far)`` is true.

    Yields a :class:`Step` per batch evaluated, then the first batch left for the actors
    (nothing more once the stream is exhausted).
    """
    for done, batch in enumerate(batches):
        if not more(done):
            yield batch
            return
        yield Step(len(batch), local.step(batch), "driver")


class _Actors:
    """The learner actors and the aggregator actor of one run; they start empty."""

    def __init__(
        self, specs: list[LearnerSpec], slot_ids: list[list[int]], cpus_per_actor: float
    ) -> None:
        learner = ray.remote(max_restarts=0)(LearnerActor).options(num_cpus=cpus_per_actor)
        aggregator = ray.remote(max_restarts=0)(AggregatorActor).options(num_cpus=0)
        # Actor handles as Any: Ray types a handle's methods as the plain methods, not as
        # objects with .remote() and .options().
        self.learners: list[Any] = [learner.remote(specs) for _ in slot_ids]
        self.aggregator: Any = aggregator.remote(slot_ids)
        self._booting = [a.__ray_ready__.remote() for a in self.all]

    @property
    def all(self) -> list[Any]:
        return [*self.learners, self.aggregator]

    def ready(self) -> bool:
        """Whether every actor has started; one that failed to start raises DistvalError."""
        if self._booting:
            n = len(self._booting)
            done, self._booting = ray.wait(self._booting, num_returns=n, timeout=0)
            try:
                ray.get(done)
            except RayActorError as exc:
                raise DistvalError(f"a Ray actor could not start: {exc}") from None
        return not self._booting

    def load(self, states: Iterable[object]) -> None:
        """Give every actor its state (objects or object refs), before any other call."""
        for actor, state in zip(self.all, states):
            actor.load.remote(state)

    def submit(self, batch_ref: ObjectRef[Batch]) -> ObjectRef[Snapshot | None]:
        parts = [a.process.remote(batch_ref) for a in self.learners]
        snapshot: ObjectRef[Snapshot | None] = self.aggregator.consume.remote(batch_ref, *parts)
        return snapshot

    def checkpoint(self) -> tuple[list[ObjectRef[Any]], list[ObjectRef[bool]]]:
        """(state refs, ok refs): the states stay in the object store, owned by the driver."""
        calls = [a.checkpoint.options(num_returns=2).remote() for a in self.all]
        return [c[0] for c in calls], [c[1] for c in calls]

    def kill(self) -> None:
        for a in self.all:
            ray.kill(a, no_restart=True)


class RayRun:
    """One evaluation on a running Ray; :meth:`steps` yields what the in-process backend would.

    ``n_actors``: learner actors (default one per CPU). ``warm_up_batches``: batches the
    driver evaluates itself before handing over (default: as many as it can while the actors
    start; 0: none). ``actors`` is the live set, rebuilt after a fault.
    """

    def __init__(
        self,
        config: RunConfig,
        stream: Stream,
        *,
        n_actors: int | None = None,
        max_in_flight: int = 4,
        checkpoint_every: int = 50,
        max_recoveries: int = 3,
        warm_up_batches: int | None = None,
    ) -> None:
        self.config, self.stream = config, stream
        self.max_in_flight = max_in_flight
        self.checkpoint_every = checkpoint_every
        self.max_recoveries = max_recoveries
        self.warm_up_batches = warm_up_batches
        cpus = int(ray.cluster_resources().get("CPU", 1)) or 1  # type: ignore[no-untyped-call]
        k = config.n_folds
        self.groups = deal_slots(len(config.learners), k, n_actors or cpus)
        self._cpus_per_actor = min(1.0, cpus / len(self.groups))
        self._slot_ids = [[i * k + f for i, f in g] for g in self.groups]
        self.actors = self._new_actors()
        self.recoveries = 0
        # (state refs, first batch after it)
        self._checkpoint: tuple[list[ObjectRef[Any]], int] = ([], 0)
        # a checkpoint under way: (refs, oks, index)
        self._pending: tuple[list[ObjectRef[Any]], list[ObjectRef[bool]], int] | None = None
        # (index, batch ref, rows) since the last complete checkpoint
        self._log: list[tuple[int, ObjectRef[Batch], int]] = []
        # (index, rows, snapshot ref)
        self._in_flight: deque[tuple[int, int, ObjectRef[Snapshot | None]]] = deque()
        self._delivered = -1

    def _new_actors(self, states: list[ObjectRef[Any]] | None = None) -> _Actors:
        actors = _Actors(self.config.specs, self._slot_ids, self._cpus_per_actor)
        if states is not None:
            actors.load(states)
        return actors

    def _more(self, done: int) -> bool:
        if self.warm_up_batches is None:
            return not self.actors.ready()
        return done < self.warm_up_batches

    def steps(self) -> Iterator[Step]:
        """Evaluate the whole stream; a :class:`Step` per batch, then the final snapshot."""
        local = LocalEvaluation(self.config, self.stream)
        batches = iter_batches(self.stream, self.config)
        rest = None
        for item in warm_up(local, batches, self._more):
            if isinstance(item, Step):
                yield item
            else:
                rest = item
        if rest is None:  # the driver alone got to the end of the stream
            yield Step(0, local.aggregator.finish(), "driver")
            self.actors.kill()
            return
        yield from self.take_over(local, rest, batches)

    def take_over(
        self, local: LocalEvaluation, rest: Batch, batches: Iterator[Batch]
    ) -> Iterator[Step]:
        """Hand the state of ``local`` (every batch before ``rest`` evaluated) to the actors
        and evaluate ``rest`` and the remaining ``batches`` there, then the final snapshot."""
        parts = [local.host.part(g) for g in self.groups]
        handed = [ray.put(p) for p in parts] + [ray.put(local.aggregator)]
        del local, parts
        self.actors.load(handed)
        self._checkpoint = (handed, 0)
        for index, batch in enumerate(itertools.chain([rest], batches)):
            ref = ray.put(batch)
            self._log.append((index, ref, len(batch)))
            self._in_flight.append((index, len(batch), self.actors.submit(ref)))
            self._advance_checkpoint(index)
            yield from self._drain(self.max_in_flight - 1)
        yield from self._drain(0)
        while True:
            try:
                snap = ray.get(self.actors.aggregator.finish.remote())
                break
            except RayActorError:
                self._recover()
                yield from self._drain(0)
        yield Step(0, snap, "actors")
        self.actors.kill()

    def _advance_checkpoint(self, index: int) -> None:
        """Complete a checkpoint under way if every actor has answered; start one if due."""
        if self._pending is not None:
            refs, oks, first = self._pending
            ready, _ = ray.wait(oks, num_returns=len(oks), timeout=0)
            if len(ready) == len(oks):
                try:
                    ray.get(oks)
                    self._checkpoint = (refs, first)
                    self._log = [e for e in self._log if e[0] >= first]
                except RayActorError:
                    pass  # the next drain notices the dead actor and recovers
                self._pending = None
        if self._pending is None and index % self.checkpoint_every == self.checkpoint_every - 1:
            self._pending = (*self.actors.checkpoint(), index + 1)

    def _drain(self, limit: int) -> Iterator[Step]:
        while len(self._in_flight) > limit:
            index, rows, ref = self._in_flight[0]
            try:
                snap = ray.get(ref)
            except RayActorError:
                self._recover()
                continue
            self._in_flight.popleft()
            if index > self._delivered:  # a replayed batch is not counted twice
                self._delivered = index
                yield Step(rows, snap, "actors")

    def _recover(self) -> None:
        """Rebuild every actor from the last complete checkpoint and replay the batches since."""
        self.recoveries += 1
        if self.recoveries > self.max_recoveries:
            raise DistvalError(
                f"a Ray actor died {self.recoveries} times; giving up (results so far are kept)"
            )
        self.actors.kill()
        self._pending = None
        self.actors = self._new_actors(self._checkpoint[0])
        self._in_flight = deque(
            (index, rows, self.actors.submit(ref)) for index, ref, rows in self._log
        )


def iter_ray(
    config: RunConfig,
    stream: Stream,
    *,
    address: str | None = None,
    n_actors: int | None = None,
    **options: Any,
) -> Iterator[Step]:
    """The Ray backend: :meth:`RayRun.steps` inside a :func:`ray_session` (started or joined
    at ``address``, shut down at the end if we started it). ``options`` go to :class:`RayRun`.
    """
    with ray_session(address):
        yield from RayRun(config, stream, n_actors=n_actors, **options).steps()
