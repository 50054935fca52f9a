"""The Ray backend: the core's learner hosts and aggregator in Ray actors.

Layout: the (learner, fold) slots go to ``n_actors`` learner actors (default: one per CPU
of the Ray cluster; never more than one per slot, so a run's speed-up is at most the sum of
its replicas' costs over the costliest one's), one process serving many folds. The actors
start with the slots dealt round-robin; at the hand-over the slots are placed by the
seconds each replica took in the driver's warm-up, costliest first to the least loaded
actor (:meth:`RayRun.placed`). The driver reads and routes batches exactly
as the in-process engine (:func:`distval.engine.loop.iter_batches`), puts each batch in the object
store once and hands the reference to every learner actor; the aggregator actor receives the
same reference plus every actor's predictions and returns a snapshot every ``test_every``
rows. Batches travel in parcels of consecutive batches sized by time (:class:`ParcelSizer`):
a call to an actor costs milliseconds of Ray's own work, so fast learners (MOA's) get
parcels of about :data:`PARCEL_SECONDS` of work each, while a slow learner's batch travels
alone. At most ``max_in_flight`` parcels are under way, so memory stays flat on any stream.

Start-up: Ray and the actors' processes take seconds to start (:func:`iter_ray` starts them
in a background thread). Meanwhile the driver evaluates the first batches itself
(:class:`distval.engine.loop.LocalEvaluation`) and, once every actor is up, hands each its share
of that state. The aggregator actor, asked for first, is warmed while the learner actors
boot. The same core classes see the same batches either way, so the numbers do not change.

Balance: a learner actor waits for the slowest at every batch, so
:data:`FIRST_LOOK_SECONDS` after the hand-over and then every ``rebalance_seconds`` the
driver lets the parcels under way finish and compares the actors'
work since the last look (the seconds each replica spent, :attr:`LearnerHost.busy`). When the
busiest actor is more than :data:`MIN_GAIN` further above the mean than a new layout would be
(:func:`balance_slots`), the replicas move, as trained, to their new actors. The numbers do
not change; hosts whose replicas are not movable (JVM replicas) stay where they are.

Faults: every ``checkpoint_every`` parcels the driver asks each actor for a copy of its state;
the state handed over after the warm-up is the first checkpoint. If an actor dies, all actors
are rebuilt from the last complete checkpoint and the parcels since then are replayed, so the
results are the same as without the fault; an actor lost while booting is replaced; after
``max_recoveries`` rebuilds the run stops with a clear message. What the driver keeps for
that, and the rebuild itself, is :mod:`~distval.ray_backend.recovery`.

Checkpoints on disk (``checkpoint_seconds``): when one is due, the driver asks the actors
for a checkpoint at once and, right after the snapshots of the parcels before it, fetches
it and yields it as a :class:`~distval.engine.loop.Checkpoint` (``distval run --resume``).
"""

from __future__ import annotations

import itertools
import time
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

import ray
from ray.exceptions import RayActorError

from distval.config import RunConfig
from distval.engine.loop import (
    Checkpoint,
    Every,
    Fresh,
    LocalEvaluation,
    Step,
    iter_batches,
    refuse_unmovable,
    starting_point,
)
from distval.engine.run import Timeline
from distval.learners.batch import Batch
from distval.learners.host import LearnerHost
from distval.ray_backend.fleet import Fleet, kept_seconds
from distval.ray_backend.parcels import PARCEL_SECONDS, ParcelSizer
from distval.ray_backend.placement import MIN_GAIN, Slot, balance_slots, deal_slots, spread
from distval.ray_backend.recovery import InFlight, Pending, Recovery, States
from distval.ray_backend.session import PRIVATE, find_ray, ray_session
from distval.ray_backend.starter import RayStarter
from distval.streams import Stream

__all__ = [
    "FIRST_LOOK_SECONDS",
    "MIN_GAIN",
    "PARCEL_SECONDS",
    "REBALANCE_SECONDS",
    "WARM_WAIT_SECONDS",
    "ParcelSizer",
    "RayRun",
    "balance_slots",
    "deal_slots",
    "iter_ray",
    "spread",
    "warm_up",
]

#: Seconds between two looks at the learner actors' balance.
REBALANCE_SECONDS = 20.0
#: Seconds after the hand-over of the first look (the layout chosen at the hand-over rests
#: on the warm-up's few batches).
FIRST_LOOK_SECONDS = 2.0
#: Seconds the driver of a run joining a running Ray waits, before its first batch, to learn
#: whether the run's actors come warm from the pool (connecting takes a fraction of it).
WARM_WAIT_SECONDS = 2.0


def warm_up(
    local: LocalEvaluation, batches: Iterator[Batch], more: Callable[[int], bool]
) -> Iterator[Step | Batch]:
    """Evaluate whole batches in the driver while ``more(batches done so far)`` is true.

    Yields a :class:`Step` per batch evaluated (and a checkpoint when one is due), then the
    first batch left for the actors (nothing more once the stream is exhausted).
    """
    for done, batch in enumerate(batches):
        if not more(done):
            yield batch
            return
        yield Step(len(batch), local.step(batch), "driver")
        yield from local.checkpoints()


class RayRun:
    """One evaluation on a running Ray; :meth:`steps` yields what the in-process backend would.

    ``n_actors``: learner actors (default one per CPU). ``warm_up_batches``: batches the
    driver evaluates itself before handing over (default: as many as it can while the actors
    start; 0: none). ``largest_parcel``: the most batches a parcel takes (1: every batch
    travels alone). ``checkpoint_every``: parcels between checkpoints. ``rebalance_seconds``:
    time between looks at the actors' balance (None: never), the first ``first_look_seconds``
    after the hand-over; ``min_gain``: the least cut in the busiest actor's excess worth
    moving replicas for. ``placement``: ``"cost"`` (the hand-over places the replicas by
    the seconds each took in the warm-up, :func:`balance_slots`) or ``"round-robin"``
    (:func:`deal_slots`, as before any cost is known). ``checkpoint_seconds``: time between
    checkpoints yielded to the caller (None: none). ``timeline``: where the hand-over and
    the first and last actor steps are marked. ``keep_actors``: seconds the actors stay
    warm in the Ray for the next run (default:
    :func:`~distval.ray_backend.fleet.kept_seconds`).
    ``actors`` is the live set, rebuilt after a fault.
    """

    def __init__(
        self,
        config: RunConfig,
        stream: Stream,
        *,
        n_actors: int | None = None,
        max_in_flight: int = 4,
        largest_parcel: int = 256,
        checkpoint_every: int = 50,
        max_recoveries: int = 3,
        warm_up_batches: int | None = None,
        rebalance_seconds: float | None = REBALANCE_SECONDS,
        first_look_seconds: float = FIRST_LOOK_SECONDS,
        min_gain: float = MIN_GAIN,
        checkpoint_seconds: float | None = None,
        placement: str = "cost",
        timeline: Timeline | None = None,
        keep_actors: float | None = None,
    ) -> None:
        self.config, self.stream = config, stream
        self.checkpoint_seconds = checkpoint_seconds
        self.every = Every(checkpoint_seconds)
        self.max_in_flight = max_in_flight
        self.warm_up_batches = warm_up_batches
        movable = all(spec.movable for spec in config.specs)
        self.rebalance_seconds = rebalance_seconds if movable else None
        self.first_look_seconds = first_look_seconds
        self.min_gain = min_gain
        if placement not in ("cost", "round-robin"):
            raise ValueError(f"placement {placement!r}: 'cost' or 'round-robin'")
        self.placement = placement
        self.timeline = Timeline() if timeline is None else timeline
        self._warm = (config, getattr(stream, "n_classes", None))
        self.keep_actors = kept_seconds() if keep_actors is None else keep_actors
        cpus = int(ray.cluster_resources().get("CPU", 1)) or 1  # type: ignore[no-untyped-call]
        k = config.n_folds
        self.groups = deal_slots(len(config.learners), k, n_actors or cpus)
        self._cpus_per_actor = min(1.0, cpus / len(self.groups))
        self._slot_ids = [[i * k + f for i, f in g] for g in self.groups]
        self.actors = self._new_actors()
        #: What a dead actor is rebuilt from, and how (:mod:`~distval.ray_backend.recovery`).
        self.recovery = Recovery(max_recoveries, checkpoint_every)
        self._in_flight: deque[InFlight] = deque()
        self._delivered = -1
        self._ends: dict[int, int] = {}  # the row after each parcel
        # a checkpoint to yield right after the parcels before it are delivered
        self._save: Pending | None = None
        self.sizer = ParcelSizer(config.batch_size, largest_parcel)
        #: Batches of every parcel sent (replays not counted).
        self.parcels: list[int] = []
        #: Every look at the balance: (:func:`spread` of the work since the last look,
        #: the spread the best new layout would have had, whether the replicas moved).
        self.balance: list[tuple[float, float, bool]] = []
        self._busy: dict[Slot, float] = {}  # each slot's busy seconds at the last look
        self._looked_at = 0.0

    @property
    def recoveries(self) -> int:
        """Recoveries so far: rebuilds after a death, replacements while starting."""
        return self.recovery.count

    def _new_actors(self, states: States | None = None) -> Fleet:
        actors = Fleet(self.config.specs, self._slot_ids, self._cpus_per_actor, self._warm,
                       self.keep_actors)
        if isinstance(states, Fresh):
            actors.start(states, self._slot_ids)
        elif states is not None:
            actors.load(states)
        return actors

    def ready(self) -> bool:
        """Whether every actor has started; actors lost while starting are replaced (one
        recovery; DistvalError once ``max_recoveries`` are spent: :meth:`Recovery.replace`)."""
        try:
            return self.actors.ready()
        except RayActorError as exc:
            self.actors = self.recovery.replace(self.actors, self._new_actors, exc)
            return False

    def _more(self, done: int) -> bool:
        if self.warm_up_batches is None:
            return not self.ready()
        return done < self.warm_up_batches

    def steps(self, resume: Checkpoint | None = None) -> Iterator[Step]:
        """Evaluate the whole stream (from ``resume`` if given); a :class:`Step` per batch,
        then the final snapshot. Without a warm-up (``warm_up_batches=0``) a fresh run
        starts on the actors at once (:meth:`start_fresh`)."""
        if resume is None and self.warm_up_batches == 0:
            fresh = Fresh.of(self.config, self.stream)
            yield from self.start_fresh(fresh, iter_batches(self.stream, self.config))
            return
        local, batches = starting_point(
            self.config, self.stream, resume, self.checkpoint_seconds
        )
        rest = None
        for item in warm_up(local, batches, self._more):
            if isinstance(item, Step):
                yield item
            else:
                rest = item
        if rest is None:  # the driver alone got to the end of the stream
            yield Step(0, local.aggregator.finish(), "driver")
            self.actors.done()
            return
        yield from self.take_over(local, rest, batches)

    def take_over(
        self, local: LocalEvaluation, rest: Batch, batches: Iterator[Batch]
    ) -> Iterator[Step]:
        """Hand the state of ``local`` (every batch before ``rest`` evaluated) to the actors
        and evaluate ``rest`` and the remaining ``batches`` there, then the final snapshot.

        The replicas go to the actors in the layout of :meth:`placed`."""
        self.timeline.mark("hand_over")
        self.place(dict(zip(local.host.slots, local.host.busy)))
        parts = [local.host.part(g) for g in self.groups]
        self._busy = {s: b for p in parts for s, b in zip(p.slots, p.busy)}
        self._looked_at = time.perf_counter()
        handed = [ray.put(p) for p in parts] + [ray.put(local.aggregator)]
        self.every = local.every
        del local, parts
        self.recovery.checkpointed(handed, 0)  # before the actors get it: they may be lost
        self.actors.load(handed)
        yield from self._evaluate(itertools.chain([rest], batches))

    def start_fresh(self, fresh: Fresh, batches: Iterator[Batch]) -> Iterator[Step]:
        """Evaluate every batch on the actors from the run's start, each actor building its
        share of the fresh state itself (:class:`~distval.engine.loop.Fresh`: the driver
        builds and sends no replica, and a warm actor has their modules loaded), then the
        final snapshot. A replica that cannot be pickled is refused in one line, as in
        :meth:`~distval.engine.loop.LocalEvaluation.check_movable`."""
        self.timeline.mark("hand_over")
        self._busy, self._looked_at = {}, time.perf_counter()
        self.recovery.checkpointed(fresh, 0)  # a lost actor starts afresh, as every other does
        whys = self.actors.start(fresh, self._slot_ids)
        try:
            refuse_unmovable(next((w for w in ray.get(whys) if w), None))
        except RayActorError:
            self._recover()  # lost while building: the parcels find out again
        yield from self._evaluate(batches)

    def _evaluate(self, pending: Iterator[Batch]) -> Iterator[Step]:
        """The batches of ``pending`` in parcels on the actors (their state given), then
        the final snapshot."""
        for index in itertools.count():
            parcel = list(itertools.islice(pending, self.sizer.batches()))
            if not parcel:
                break
            ref = ray.put(parcel)
            rows = [len(batch) for batch in parcel]
            self._ends[index] = parcel[-1].start + rows[-1]
            self.parcels.append(len(rows))
            self.recovery.sent(index, ref, rows)
            self._in_flight.append((index, rows, self.actors.submit(ref)))
            self._advance_checkpoint(index)
            yield from self._drain(self.max_in_flight - 1)
            if self._balance_due():
                yield from self._rebalance(index)
        yield from self._drain(0)
        while True:
            try:
                snap = ray.get(self.actors.aggregator.finish.remote())
                break
            except RayActorError:
                self._recover()
                yield from self._drain(0)
        yield Step(0, snap, "actors")
        self.actors.done()

    def placed(self, costs: dict[Slot, float]) -> list[list[Slot]]:
        """The layout the hand-over gives the actors: with ``placement="cost"`` and a
        positive cost (seconds in the warm-up) for every slot, longest processing time
        first on those costs (:func:`balance_slots`); otherwise the layout the actors were
        started with (round-robin, :func:`deal_slots`). Equally many groups either way."""
        if self.placement != "cost" or len(self.groups) < 2:
            return self.groups
        if set(costs) != {s for g in self.groups for s in g} or min(costs.values()) <= 0:
            return self.groups
        return balance_slots(costs, len(self.groups))

    def place(self, costs: dict[Slot, float]) -> None:
        """Take the layout :meth:`placed` gives for ``costs``, before the hand-over."""
        groups = self.placed(costs)
        if groups == self.groups:
            return
        self.groups = groups
        self._slot_ids = [[i * self.config.n_folds + f for i, f in g] for g in groups]
        self.actors.aggregator.regroup.remote(self._slot_ids)

    def _balance_due(self) -> bool:
        every = self.rebalance_seconds
        if every is None or len(self.groups) < 2:
            return False
        if not self.balance:
            every = min(every, self.first_look_seconds)
        return time.perf_counter() - self._looked_at >= every

    def _rebalance(self, index: int) -> Iterator[Step]:
        """Once every parcel up to ``index`` is delivered, compare the learner actors' work
        since the last look and move the replicas if a new layout evens it out by
        ``min_gain``; the state after the move is the new checkpoint."""
        yield from self._drain(0)
        self._looked_at = time.perf_counter()
        try:
            busy = dict(kv for part in ray.get([a.busy.remote() for a in self.actors.learners])
                        for kv in part)
        except RayActorError:
            self._recover()
            return
        work = {s: max(0.0, b - self._busy.get(s, 0.0)) for s, b in busy.items()}
        self._busy = busy
        groups = balance_slots(work, len(self.groups))
        now, then = spread(self.groups, work), spread(groups, work)
        move = now - then >= self.min_gain
        self.balance.append((now, then, move))
        if not move:
            return
        try:
            hosts = [h for h, _ in ray.get([a.checkpoint.remote() for a in self.actors.learners])]
            whole = LearnerHost.join(hosts)
            states = [ray.put(whole.part(g)) for g in groups]
            slot_ids = [[i * self.config.n_folds + f for i, f in g] for g in groups]
            self.actors.regroup(states, slot_ids)
            aggregator, ok = self.actors.aggregator.checkpoint.options(num_returns=2).remote()
            ray.get(ok)
        except RayActorError:
            self._recover()  # from the checkpoint before: the old layout, still consistent
            return
        self.groups, self._slot_ids = groups, slot_ids
        self.recovery.checkpointed([*states, aggregator], index + 1)

    def _advance_checkpoint(self, index: int) -> None:
        """Move the checkpoints on after parcel ``index`` (:meth:`Recovery.advance`); one
        due on disk is asked for at once and kept to yield (:meth:`_saved`)."""
        save = self._save is None and self.every.due()
        asked = self.recovery.advance(index, self.actors, now=save)
        if save and asked is not None:
            self._save = asked

    def _saved(self, delivered: int) -> Iterator[Step]:
        """The checkpoint to save as a step, if it is the one right after parcel
        ``delivered`` (whose snapshots the caller has just received)."""
        if self._save is None or self._save[2] != delivered + 1:
            return
        refs, oks, first = self._save
        self._save = None
        started = time.perf_counter()
        try:
            ray.get(oks)
            *hosts, aggregator = ray.get(refs)
        except RayActorError:
            return  # lost with its actor: the next one will do
        yield Step(0, None, "actors", Checkpoint(self._ends[first - 1], hosts, aggregator))
        self.every.taken(time.perf_counter() - started)

    def _drain(self, limit: int) -> Iterator[Step]:
        while len(self._in_flight) > limit:
            index, rows, ref = self._in_flight[0]
            try:
                snaps = ray.get(ref)
            except RayActorError:
                self._recover()
                continue
            self._in_flight.popleft()
            if index > self._delivered:  # a replayed parcel is not counted twice
                self._delivered = index
                self.timeline.mark("first_actor_step")
                self.timeline.mark("last_actor_step", again=True)
                self.sizer.delivered(sum(rows))
                for n, snap in zip(rows, snaps):
                    yield Step(n, snap, "actors")
                yield from self._saved(index)

    def _recover(self) -> None:
        """Rebuild every actor from the last complete checkpoint and replay the batches since
        (:meth:`Recovery.rebuild`)."""
        self.actors, self._in_flight = self.recovery.rebuild(self.actors, self._new_actors)


def iter_ray(
    config: RunConfig,
    stream: Stream,
    *,
    address: str | None = None,
    n_actors: int | None = None,
    resume: Checkpoint | None = None,
    timeline: Timeline | None = None,
    **options: Any,
) -> Iterator[Step]:
    """The Ray backend: Ray (started or joined at ``address``, shut down at the end if we
    started it) and the actors start in a background thread (:class:`RayStarter`) while the
    driver evaluates the first batches, from ``resume`` if given; once every actor is up the
    driver hands over (:meth:`RayRun.take_over`). ``options`` go to :class:`RayRun`; with
    ``warm_up_batches`` the driver evaluates that many batches, then waits for the actors;
    without, in a running Ray it joins, it first waits up to :data:`WARM_WAIT_SECONDS` to
    learn whether every actor comes warm from the pool, and if so a fresh run starts on them
    at its first row (:meth:`RayRun.start_fresh`: the driver builds no replica), its first
    checkpoint due after ``checkpoint_seconds`` as in-process.
    """
    timeline = Timeline() if timeline is None else timeline

    def make() -> RayRun:
        return RayRun(config, stream, n_actors=n_actors, timeline=timeline, **options)

    fixed = options.get("warm_up_batches")
    joined = find_ray(address)[0] != PRIVATE  # warm actors may be waiting there
    starter = RayStarter(make, address, timeline.mark)
    try:
        if resume is None and fixed is None and joined and starter.warm(WARM_WAIT_SECONDS):
            fresh = Fresh.of(config, stream)  # warm actors: on them from the first row
            starter.wait()
            with ray_session(address):  # joins the Ray started; errors come out as ours
                yield from starter.run.start_fresh(fresh, iter_batches(stream, config))
            return
        local, batches = starting_point(config, stream, resume, options.get("checkpoint_seconds"))
        local.check_movable()
        yield from local.checkpoint_now()  # resumable from the start, whatever Ray does
        for done, batch in enumerate(batches):
            if fixed is not None and done >= fixed:
                starter.wait()
            if starter.error is not None:
                raise starter.error
            if starter.ready():
                with ray_session(address):  # joins the Ray started; errors come out as ours
                    yield from starter.run.take_over(local, batch, batches)
                return
            yield Step(len(batch), local.step(batch), "driver")
            if done == 0:  # a learner may take a lock once it has learned
                local.check_movable()
            yield from local.checkpoints()
        yield Step(0, local.aggregator.finish(), "driver")
    finally:
        starter.close()
