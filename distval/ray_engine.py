"""The Ray engine: the core's learner hosts and aggregator in Ray actors.

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
import logging
import os
from collections import deque

from distval.actors import AggregatorActor, LearnerActor
from distval.config import RunConfig
from distval.engine import LocalEvaluation, Run, iter_batches
from distval.errors import DistvalError
from distval.learners.host import Batch

__all__ = ["deal_slots", "run_ray", "warm_up"]


def deal_slots(n_learners: int, n_folds: int, n_actors: int) -> list[list[tuple[int, int]]]:
    """Deal the (learner, fold) slots round-robin to at most ``n_actors`` groups.

    >>> deal_slots(2, 3, 2)
    [[(0, 0), (0, 2), (1, 1)], [(0, 1), (1, 0), (1, 2)]]
    """
    slots = [(i, f) for i in range(n_learners) for f in range(n_folds)]
    n = max(1, min(n_actors, len(slots)))
    return [slots[i::n] for i in range(n)]


def warm_up(local: LocalEvaluation, batches, run: Run, more) -> Batch | None:
    """Evaluate whole batches in the driver while ``more(batches done so far)`` is true.

    Returns the first batch left for the actors, or None once the stream is exhausted.
    """
    for done, batch in enumerate(batches):
        if not more(done):
            return batch
        run.snapshot(local.step(batch))
        run.advance(len(batch))
    return None


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
    """The learner actors and the aggregator actor of one run; they start empty."""

    def __init__(self, specs, slot_ids, cpus_per_actor):
        import ray

        learner = ray.remote(max_restarts=0)(LearnerActor).options(num_cpus=cpus_per_actor)
        aggregator = ray.remote(max_restarts=0)(AggregatorActor).options(num_cpus=0)
        self.learners = [learner.remote(specs) for _ in slot_ids]
        self.aggregator = aggregator.remote(slot_ids)
        self._booting = [a.__ray_ready__.remote() for a in self.all]

    @property
    def all(self) -> list:
        return [*self.learners, self.aggregator]

    def ready(self) -> bool:
        """Whether every actor has started; one that failed to start raises DistvalError."""
        import ray
        from ray.exceptions import RayActorError

        if self._booting:
            n = len(self._booting)
            done, self._booting = ray.wait(self._booting, num_returns=n, timeout=0)
            try:
                ray.get(done)
            except RayActorError as exc:
                raise DistvalError(f"a Ray actor could not start: {exc}") from None
        return not self._booting

    def load(self, states) -> None:
        """Give every actor its state (objects or object refs), before any other call."""
        for actor, state in zip(self.all, states):
            actor.load.remote(state)

    def submit(self, batch_ref):
        parts = [a.process.remote(batch_ref) for a in self.learners]
        return self.aggregator.consume.remote(batch_ref, *parts)

    def checkpoint(self):
        """(state refs, ok refs): the states stay in the object store, owned by the driver."""
        calls = [a.checkpoint.options(num_returns=2).remote() for a in self.all]
        return [c[0] for c in calls], [c[1] for c in calls]

    def kill(self):
        import ray

        for a in self.all:
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
    warm_up_batches: int | None = None,
    on_batch=None,
) -> None:
    """Run the evaluation on Ray; identical numbers to the in-process engine.

    ``warm_up_batches``: batches the driver evaluates itself before handing over to the
    actors (default: as many as it can while they start; 0: none).
    ``on_batch(index, actors)`` is called after each batch is submitted to the actors (used
    by the fault tests to kill actors mid-stream).
    """
    import ray
    from ray.exceptions import RayActorError, RayTaskError

    must_shutdown = _start_ray(address)
    try:
        cpus = int(ray.cluster_resources().get("CPU", 1)) or 1
        k, n_learners = config.n_folds, len(config.learners)
        groups = deal_slots(n_learners, k, n_actors or cpus)
        cpus_per_actor = min(1.0, cpus / len(groups))
        slot_ids = [[i * k + f for i, f in g] for g in groups]

        def new_actors(states):
            fresh = _Actors(config.specs, slot_ids, cpus_per_actor)
            fresh.load(states)
            return fresh

        actors = _Actors(config.specs, slot_ids, cpus_per_actor)
        local = LocalEvaluation(config, stream)
        batches = iter_batches(stream, config)
        if warm_up_batches is None:

            def more(done):
                return not actors.ready()

        else:

            def more(done):
                return done < warm_up_batches

        rest = warm_up(local, batches, run, more)
        if rest is None:  # the driver alone got to the end of the stream
            run.snapshot(local.aggregator.finish())
            actors.kill()
            return
        handed = [ray.put(local.host.part(g)) for g in groups] + [ray.put(local.aggregator)]
        del local
        actors.load(handed)

        checkpoint = (handed, 0)  # (refs, index of the first batch after it)
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
            actors = new_actors(checkpoint[0])
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

        for index, batch in enumerate(itertools.chain([rest], batches)):
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
