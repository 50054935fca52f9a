"""The Ray engine: the core's learner hosts and aggregator in Ray actors.

Layout: the (learner, fold) slots are dealt round-robin to ``n_actors`` learner actors
(default: one per CPU of the Ray cluster), so each actor hosts a balanced share of every
learner's folds and one process serves many folds. The driver reads and routes batches exactly
as the in-process engine (:func:`distval.engine.iter_batches`), puts each batch in the object
store once and hands the reference to every learner actor; the aggregator actor receives the
same reference plus every actor's predictions and returns a snapshot every ``test_every``
rows. At most ``max_in_flight`` batches are under way, so memory stays flat on any stream.

Faults: every ``checkpoint_every`` batches the driver asks each actor for a copy of its state
(kept in the object store, owned by the driver). If an actor dies, all actors are rebuilt
from the last complete checkpoint and the batches since then are replayed; the results are
the same as without the fault. After ``max_recoveries`` rebuilds the run stops with a clear
message, keeping on disk what was computed.
"""

from __future__ import annotations

import copy
import logging
import os
from collections import deque

from distval.aggregator import Aggregator
from distval.config import RunConfig
from distval.engine import Run, iter_batches
from distval.errors import DistvalError
from distval.host import LearnerHost

__all__ = ["deal_slots", "run_ray"]


def deal_slots(n_learners: int, n_folds: int, n_actors: int) -> list[list[tuple[int, int]]]:
    """Deal the (learner, fold) slots round-robin to at most ``n_actors`` groups.

    >>> deal_slots(2, 3, 2)
    [[(0, 0), (0, 2), (1, 1)], [(0, 1), (1, 0), (1, 2)]]
    """
    slots = [(i, f) for i in range(n_learners) for f in range(n_folds)]
    n = max(1, min(n_actors, len(slots)))
    return [slots[i::n] for i in range(n)]


class _LearnerActor:
    """Actor body around a :class:`LearnerHost` (or a checkpoint of one)."""

    def __init__(self, host: LearnerHost) -> None:
        # Arrays deserialised from the object store are read-only: work on a private copy.
        self.host = copy.deepcopy(host)

    def process(self, batch):
        return self.host.process(batch)

    def checkpoint(self):
        return self.host, True


class _AggregatorActor:
    """Actor body around an :class:`Aggregator`, fed whole batches and every actor's part."""

    def __init__(self, aggregator: Aggregator, slot_ids: list[list[int]]) -> None:
        self.aggregator = copy.deepcopy(aggregator)
        self.slot_ids = slot_ids

    def consume(self, batch, *parts):
        return self.aggregator.update(batch.start, batch.y, list(zip(self.slot_ids, parts)))

    def finish(self):
        return self.aggregator.finish()

    def checkpoint(self):
        return self.aggregator, True


def _start_ray(address: str | None):
    """Start (or join) Ray unless the caller already did; returns whether we must shut down."""
    import ray

    if ray.is_initialized():
        return False
    kwargs = {"include_dashboard": False, "logging_level": logging.WARNING, "log_to_driver": True}
    if address is None:
        # A private local cluster on this machine's cores; token auth only matters for shared
        # clusters, and turning it off keeps Ray from writing a token into the home directory.
        os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    else:
        kwargs.pop("include_dashboard")
    try:
        ray.init(address=address, **kwargs)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        raise DistvalError(f"cannot start or join Ray at {address or 'local'}: {exc}") from None
    return True


class _Actors:
    """The learner actors and the aggregator actor of one run, built from core objects."""

    def __init__(self, hosts, aggregator, slot_ids, cpus_per_actor):
        import ray

        self._learner_cls = ray.remote(max_restarts=0)(_LearnerActor).options(
            num_cpus=cpus_per_actor
        )
        self._agg_cls = ray.remote(max_restarts=0)(_AggregatorActor).options(num_cpus=0)
        self.learners = [self._learner_cls.remote(h) for h in hosts]
        self.aggregator = self._agg_cls.remote(aggregator, slot_ids)

    def submit(self, batch_ref):
        parts = [a.process.remote(batch_ref) for a in self.learners]
        return self.aggregator.consume.remote(batch_ref, *parts)

    def checkpoint(self):
        """(state refs, ok refs): the states stay in the object store, owned by the driver."""
        calls = [a.checkpoint.options(num_returns=2).remote() for a in self.learners]
        calls.append(self.aggregator.checkpoint.options(num_returns=2).remote())
        return [c[0] for c in calls], [c[1] for c in calls]

    def kill(self):
        import ray

        for a in [*self.learners, self.aggregator]:
            ray.kill(a, no_restart=True)


def run_ray(
    config: RunConfig,
    stream,
    run: Run,
    *,
    address: str | None = None,
    n_actors: int | None = None,
    max_in_flight: int = 4,
    checkpoint_every: int = 50,
    max_recoveries: int = 3,
    on_batch=None,
) -> None:
    """Run the evaluation on Ray; identical numbers to the in-process engine.

    ``on_batch(index, actors)`` is called after each batch is submitted (used by the fault
    tests to kill actors mid-stream).
    """
    import ray
    from ray.exceptions import RayActorError, RayTaskError

    must_shutdown = _start_ray(address)
    try:
        cpus = int(ray.cluster_resources().get("CPU", 1)) or 1
        n = n_actors or cpus
        k, n_learners = config.n_folds, len(config.learners)
        groups = deal_slots(n_learners, k, n)
        cpus_per_actor = min(1.0, cpus / len(groups))
        specs = config.specs
        names = stream.feature_names
        slot_ids = [[i * k + f for i, f in g] for g in groups]

        def fresh():
            hosts = [LearnerHost(specs, g, names, config.seed) for g in groups]
            return _Actors(hosts, Aggregator(config), slot_ids, cpus_per_actor)

        def restore(refs):
            # Passing the refs as arguments lets Ray hand each state to its new actor.
            return _Actors(refs[:-1], refs[-1], slot_ids, cpus_per_actor)

        actors = fresh()
        ray.get(actors.aggregator.__ray_ready__.remote())

        checkpoint = None  # (refs, index of the first batch after it)
        pending = None
        log: list = []  # (index, batch ref, rows) since the last complete checkpoint
        in_flight: deque = deque()  # (index, rows, snapshot ref)
        delivered = -1
        recoveries = 0

        def deliver(index, rows, ref):
            nonlocal delivered
            snap = ray.get(ref)
            if index > delivered:
                run.snapshot(snap)
                run.advance(rows)
                delivered = index

        def recover():
            nonlocal actors, recoveries, in_flight, pending
            recoveries += 1
            if recoveries > max_recoveries:
                raise DistvalError(
                    f"a Ray actor died {recoveries} times; giving up (results so far are kept)"
                )
            actors.kill()
            pending = None
            in_flight = deque()
            actors = restore(checkpoint[0]) if checkpoint else fresh()
            for index, ref, rows in log:
                in_flight.append((index, rows, actors.submit(ref)))

        def drain(limit):
            while len(in_flight) > limit:
                index, rows, ref = in_flight[0]
                try:
                    deliver(index, rows, ref)
                    in_flight.popleft()
                except RayActorError:
                    recover()

        for index, batch in enumerate(iter_batches(stream, config)):
            ref = ray.put(batch)
            log.append((index, ref, len(batch)))
            in_flight.append((index, len(batch), actors.submit(ref)))
            if on_batch is not None:
                on_batch(index, actors)
            if pending is not None:
                oks = pending[1]
                ready, _ = ray.wait(oks, num_returns=len(oks), timeout=0)
                if len(ready) == len(oks):
                    try:
                        ray.get(oks)
                        checkpoint = (pending[0], pending[2])
                        log = [e for e in log if e[0] >= checkpoint[1]]
                    except RayActorError:
                        pass  # the next drain notices the dead actor and recovers
                    pending = None
            if pending is None and index % checkpoint_every == checkpoint_every - 1:
                pending = (*actors.checkpoint(), index + 1)
            drain(max_in_flight - 1)
        drain(0)
        while True:
            try:
                run.snapshot(ray.get(actors.aggregator.finish.remote()))
                break
            except RayActorError:
                recover()
                drain(0)
        actors.kill()
    except RayTaskError as exc:
        cause = exc.cause if hasattr(exc, "cause") else None
        if isinstance(cause, DistvalError):
            raise cause from None
        raise
    finally:
        if must_shutdown:
            ray.shutdown()
