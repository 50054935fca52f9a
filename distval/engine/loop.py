"""The driver loop both backends share: routed batches in, ``Step``s out, and a run's books.

The driver reads the stream in chunks, cuts them so that batches end on every
``test_every``-th row and draws the fold routing of each batch (:mod:`distval.routing.validation`).
A backend turns batches into :class:`Step`\\ s — rows evaluated and, at a test point, the
aggregator's snapshot — as river's ``iter_progressive_val_score`` yields its checkpoints:
:func:`iter_inprocess` here, :func:`distval.ray_backend.engine.iter_ray` on Ray. Only
:func:`distval.evaluation.evaluate` feeds the steps to a :class:`Run`, which keeps the result,
appends it to disk and shows progress.

>>> cfg = RunConfig(stream="sea", n_rows=300, learners=("nb",), n_folds=2, test_every=100)
>>> [(s.rows, s.snapshot.position if s.snapshot else None)
...  for s in iter_inprocess(cfg, open_config_stream(cfg))]
[(100, 100), (100, 200), (100, 300), (0, None)]
"""

from __future__ import annotations

import copy
import functools
import queue
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import NamedTuple, cast

import numpy as np

from distval.aggregator import AnyAggregator, aggregator_for
from distval.aggregator.snapshot import Snapshot
from distval.columns import COST_SCHEMA, Columns, concat
from distval.config import RunConfig
from distval.errors import DistvalError
from distval.learners.batch import Batch
from distval.learners.host import LearnerHost, unpicklable
from distval.learners.schema import Schema
from distval.metrics import PROBA_MEASURES
from distval.routing.delays import LabelSchedule
from distval.routing.validation import FoldAssigner
from distval.streams import Chunk, Stream
from distval.tasks import task_named

__all__ = [
    "CHECKPOINT_SECONDS",
    "CHECKPOINT_SHARE",
    "Checkpoint",
    "Every",
    "Fresh",
    "LocalEvaluation",
    "Step",
    "iter_batches",
    "iter_inprocess",
    "open_config_stream",
    "refuse_unmovable",
    "spending_horizon",
    "starting_point",
]


#: Seconds between two checkpoints of a run that writes its results (``--checkpoint-seconds``).
CHECKPOINT_SECONDS = 30.0


#: The most of a run's time its checkpoints take: after one that took t seconds, the next
#: comes no sooner than t / CHECKPOINT_SHARE seconds later (with a positive period).
CHECKPOINT_SHARE = 0.02


class Checkpoint(NamedTuple):
    """A run's state after its first ``rows`` rows (a batch boundary): the learner hosts
    (one, or the parts the Ray actors hold) and the aggregator. ``distval run --resume``
    restores it (:func:`starting_point`)."""

    rows: int
    hosts: list[LearnerHost]
    aggregator: AnyAggregator


class Step(NamedTuple):
    """What a backend yields: ``rows`` evaluated, the ``snapshot`` of a test point (or None),
    and ``where`` they were evaluated (``"driver"``: this process; ``"actors"``: Ray actors).
    A step with a ``checkpoint`` (and no rows) comes when one is due: the state after every
    step before it."""

    rows: int
    snapshot: Snapshot | None
    where: str = "driver"
    checkpoint: Checkpoint | None = None


class Every:
    """When a checkpoint is due: ``seconds`` after the last one (None: never; 0: always),
    and, with a positive period, no sooner than the last one's cost over
    :data:`CHECKPOINT_SHARE` (so checkpoints take at most about 2 % of the run).

    >>> every = Every(30.0)
    >>> every.due(), Every(None).due(), Every(0.0).due()
    (False, False, True)
    >>> every.taken(cost=1.5); every.wait
    75.0
    """

    def __init__(self, seconds: float | None) -> None:
        self.seconds = seconds
        self.wait = seconds
        self._last = time.monotonic()

    def due(self) -> bool:
        return self.wait is not None and time.monotonic() - self._last >= self.wait

    def taken(self, cost: float = 0.0) -> None:
        """A checkpoint was saved now, in ``cost`` seconds."""
        self._last = time.monotonic()
        if self.seconds:
            self.wait = max(self.seconds, cost / CHECKPOINT_SHARE)


def refuse_unmovable(why: str | None) -> None:
    """Refuse in one line the learner :func:`unpicklable` names (``why``; None: none): Ray
    moves learners to its actors by pickling them.

    >>> refuse_unmovable(None)
    """
    if why:
        raise DistvalError(f"{why}, and Ray moves learners to its actors by pickling "
                           "them: run it with --backend inprocess")


def open_config_stream(config: RunConfig) -> Stream:
    """The stream a configuration names, opened with its row limit and seed."""
    return task_named(config.task).open_stream(config)


def spending_horizon(config: RunConfig, stream: Stream) -> int | None:
    """The planned rows of ``--sequential spending``: ``--planned-rows``, else the stream's
    known length (a generator's, a Parquet file's, or the ``--n-rows`` cap), else None (each
    check k then spends ``alpha * 6 / (pi^2 k^2)``; :func:`distval.evaluation.evaluate` says
    so in one line). None for the other rules.

    >>> cfg = RunConfig(stream="sea", n_rows=5000, sequential="spending")
    >>> spending_horizon(cfg, open_config_stream(cfg))
    5000
    """
    if config.sequential != "spending":
        return None
    if config.planned_rows is not None:
        return config.planned_rows
    return stream.n_rows if stream.n_rows is not None else stream.limit


def iter_batches(stream: Stream, config: RunConfig) -> Iterator[Batch]:
    """The stream as routed batches of at most ``batch_size`` rows, cut at test points.

    With delayed or partial labels (``config.label_delay``) each batch carries the labels
    that become known during it (:class:`~distval.routing.delays.LabelSchedule`); the chunks are
    then read one ahead, since the next row's time decides which labels are known before it.
    """
    assigner = FoldAssigner(config.validation, seed=config.seed)
    every = config.test_every
    spec = config.label_delay
    schedule = None
    if spec is not None and spec.delayed:
        schedule = LabelSchedule(
            spec, stream.feature_names, config.n_folds, config.seed, lambda: stream.classes
        )
    elif spec is not None:  # partial labels, at once: no schedule, the reveal draws only
        schedule = LabelSchedule(spec, stream.feature_names, config.n_folds, config.seed)
    chunks = stream.chunks(config.batch_size)
    for chunk, following in _ahead(chunks) if schedule is not None else _alone(chunks):
        n = len(chunk.y)
        first = chunk.start
        cuts = np.arange((first // every + 1) * every, first + n, every) - first
        for lo, hi in zip(np.r_[0, cuts], np.r_[cuts, n]):
            a = assigner.assign(int(hi - lo))
            X, y, tested = chunk.X[lo:hi], chunk.y[lo:hi], a.tested(config.prequential)
            if schedule is None or spec is None:
                yield Batch(first + int(lo), X, y, a.weights, tested)
            elif not spec.delayed:
                revealed = schedule.revealed(len(y))
                weights = np.where(revealed[:, None], a.weights, 0).astype(a.weights.dtype)
                yield Batch(first + int(lo), X, y, weights, tested, revealed=revealed)
            else:
                after = chunk.X[hi] if hi < n else following.X[0] if following else None
                release = schedule.release(first + int(lo), X, y, a.weights, tested, after)
                yield Batch(first + int(lo), X, y, a.weights, tested, release=release)


def _alone(chunks: Iterable[Chunk]) -> Iterator[tuple[Chunk, Chunk | None]]:
    for chunk in chunks:
        yield chunk, None


def _ahead(chunks: Iterable[Chunk]) -> Iterator[tuple[Chunk, Chunk | None]]:
    """Each chunk with the one after it (None for the last)."""
    it = iter(chunks)
    current = next(it, None)
    while current is not None:
        following = next(it, None)
        yield current, following
        current = following


#: Batches a stage of the overlapped in-process loop may run ahead of the next: the reader
#: of the host, the host of the aggregator. The aggregator stalls now and then (loading its
#: numba kernels, importing scipy.stats at the first test), and a deeper queue hides the
#: stalls (measurements: ``docs/performance.md``). A queued batch is tens of kB.
AHEAD = 64


class Fresh(NamedTuple):
    """A run's state before its first row, as a recipe: what builds the replicas of any of
    its slots (every slot's replica is seeded by its slot alone, so a share built apart
    equals that share of the whole) and its aggregator. Ray's warm actors get the recipe
    and build their own shares where the learners' modules are loaded already, instead of
    the driver building every replica and sending it.

    >>> cfg = RunConfig(stream="sea", learners=("nb", "ht"), n_folds=2, test_every=100)
    >>> fresh = Fresh.of(cfg, open_config_stream(cfg))
    >>> fresh.slots, fresh.host([(1, 0)]).slots, fresh.aggregator().position
    ([(0, 0), (0, 1), (1, 0), (1, 1)], [(1, 0)], 0)
    """

    config: RunConfig
    schema: Schema
    n_classes: int | None
    planned_rows: int | None

    @classmethod
    def of(cls, config: RunConfig, stream: Stream) -> Fresh:
        """The fresh state of a run of ``config`` on ``stream`` (opened, not yet read)."""
        return cls(config, Schema.of(stream), getattr(stream, "n_classes", None),
                   spending_horizon(config, stream))

    @property
    def slots(self) -> list[tuple[int, int]]:
        """Every (learner, fold) slot of the run, in order."""
        return [(i, f) for i in range(len(self.config.learners))
                for f in range(self.config.n_folds)]

    def host(self, slots: list[tuple[int, int]] | None = None) -> LearnerHost:
        """Fresh replicas of ``slots`` (default: every slot)."""
        return self.replicas()(slots=self.slots if slots is None else slots)

    def replicas(self) -> Callable[..., LearnerHost]:
        """:class:`LearnerHost` with every argument but ``slots`` given: what a learner
        actor gets, since it unpickles with the learners' modules alone (not the run's
        configuration, statistics or readers)."""
        config = self.config
        return functools.partial(
            LearnerHost, learners=config.specs, feature_names=list(self.schema.feature_names),
            seed=config.seed, schema=self.schema, proba=config.measure in PROBA_MEASURES,
            regression=task_named(config.task).numeric_target,
            cost_every=config.test_every if config.cost else None,
        )

    def aggregator(self) -> AnyAggregator:
        """A fresh aggregator of the run."""
        return aggregator_for(self.config, n_classes=self.n_classes,
                              planned_rows=self.planned_rows)


class LocalEvaluation:
    """Every replica in one host and the aggregator, in this process.

    >>> cfg = RunConfig(stream="sea", learners=("nb",), n_folds=2, test_every=100)
    >>> stream = open_config_stream(cfg)
    >>> local = LocalEvaluation(cfg, stream)
    >>> snap = local.step(next(iter_batches(stream, cfg)))
    >>> snap.position, local.host.slots
    (100, [(0, 0), (0, 1)])
    """

    def __init__(
        self, config: RunConfig, stream: Stream, checkpoint_seconds: float | None = None
    ) -> None:
        fresh = Fresh.of(config, stream)
        self.host = fresh.host()
        self.aggregator: AnyAggregator = fresh.aggregator()
        self._ids = np.arange(len(self.host.slots))
        self.every = Every(checkpoint_seconds)
        self._cost: list[Columns] = []  # cost rows waiting for a snapshot

    def restore(self, checkpoint: Checkpoint) -> None:
        """Continue from ``checkpoint`` (its hosts joined into one, slots in order); a
        private copy (arrays fetched from Ray's object store are read-only)."""
        checkpoint = copy.deepcopy(checkpoint)
        hosts = checkpoint.hosts
        host = hosts[0] if len(hosts) == 1 else LearnerHost.join(hosts)
        self.host = host if host.slots == sorted(host.slots) else host.part(sorted(host.slots))
        self.aggregator = checkpoint.aggregator

    def checkpoint(self) -> Step:
        """A step with this state as a checkpoint (after every batch given so far)."""
        return Step(0, None, "driver", Checkpoint(self.aggregator.position, [self.host],
                                                  self.aggregator))

    def check_movable(self) -> None:
        """Refuse in one line a learner that cannot be pickled: Ray moves learners to its
        actors by pickling them."""
        refuse_unmovable(unpicklable([self.host]))

    def checkpoint_now(self) -> Iterator[Step]:
        """The :meth:`checkpoint` step now, if the run keeps checkpoints at all: before a
        move to Ray (its start may fail or be interrupted), so that the run can resume."""
        if self.every.wait is not None:
            started = time.perf_counter()
            yield self.checkpoint()
            self.every.taken(time.perf_counter() - started)

    def checkpoints(self) -> Iterator[Step]:
        """The :meth:`checkpoint` step if one is due; the time the caller takes with it
        (saving it) sets the wait for the next (:class:`Every`)."""
        if self.every.due():
            started = time.perf_counter()
            yield self.checkpoint()
            self.every.taken(time.perf_counter() - started)

    def step(self, batch: Batch) -> Snapshot | None:
        """Predict, learn and aggregate one batch; the snapshot if a test point was reached."""
        preds = self.host.process(batch)
        cost = self.host.cost.drain()
        snap = self.aggregator.update(
            batch.start, batch.scored_y, [(self._ids, preds)], arrived=len(batch),
            release=batch.release,
        )
        return self._costed(snap, cost)

    def _costed(self, snap: Snapshot | None, cost: Columns) -> Snapshot | None:
        """``snap`` with the cost rows the host recorded since the last snapshot."""
        if len(cost["position"]):
            self._cost.append(cost)
        if snap is None or not self._cost:
            return snap
        snap.cost = concat(self._cost, COST_SCHEMA)
        self._cost = []
        return snap

    @property
    def overlaps(self) -> bool:
        """Whether :meth:`steps` overlaps reading, hosting and aggregating in threads: when
        the host's batch call leaves Python's GIL free (:attr:`LearnerHost.releases_gil`);
        otherwise threads would gain nothing."""
        return self.host.releases_gil

    def steps(self, batches: Iterable[Batch]) -> Iterator[Step]:
        """A :class:`Step` per batch, in stream order.

        With :attr:`overlaps`, a reader thread reads and routes the next batches and an
        aggregator thread takes each batch's predictions, while this thread runs the host:
        every stage sees the same batches in the same order, so the numbers are those of
        the plain loop.
        """
        if not self.overlaps:
            for batch in batches:
                yield Step(len(batch), self.step(batch))
                yield from self.checkpoints()
            return
        agg_in: queue.Queue[tuple[Batch, np.ndarray, Columns] | None] = queue.Queue(
            maxsize=AHEAD)
        agg_out: queue.Queue[Step | BaseException] = queue.Queue()
        stop = threading.Event()

        def aggregate() -> None:
            while True:
                item = agg_in.get()
                if item is None:
                    return
                batch, preds, cost = item
                try:
                    snap = self._costed(self.aggregator.update(
                        batch.start, batch.scored_y, [(self._ids, preds)], arrived=len(batch),
                        release=batch.release,
                    ), cost)
                except BaseException as exc:  # handed to the main thread
                    agg_out.put(exc)
                    return
                agg_out.put(Step(len(batch), snap))

        worker = threading.Thread(target=aggregate, name="distval-aggregator", daemon=True)
        worker.start()
        sent = got = 0
        try:
            for batch in prefetch(batches, depth=AHEAD, stop=stop):
                preds = self.host.process(batch)
                agg_in.put((batch, preds, self.host.cost.drain()))
                sent += 1
                while True:
                    try:
                        item = agg_out.get_nowait()
                    except queue.Empty:
                        break
                    got += 1
                    yield _checked(item)
                if self.every.due():  # the aggregator catches up with the host first
                    while got < sent:
                        got += 1
                        yield _checked(agg_out.get())
                    yield from self.checkpoints()
            agg_in.put(None)
            while got < sent:
                got += 1
                yield _checked(agg_out.get())
        finally:
            stop.set()
            if worker.is_alive():
                # ends the worker after the batches already queued (also when the reader or
                # the host failed before anything was sent: the worker waits for its input)
                agg_in.put(None)
            worker.join()


def _checked(item: Step | BaseException) -> Step:
    if isinstance(item, BaseException):
        raise item
    return item


def prefetch(items: Iterable[Batch], depth: int, stop: threading.Event) -> Iterator[Batch]:
    """``items`` produced by a background thread, at most ``depth`` ahead; its exception is
    raised here, in order. ``stop`` ends the thread early.

    >>> list(prefetch(iter([1, 2, 3]), depth=1, stop=threading.Event()))
    [1, 2, 3]
    """
    q: queue.Queue[object] = queue.Queue(maxsize=depth)
    end = object()

    def produce() -> None:
        try:
            for item in items:
                while not stop.is_set():
                    try:
                        q.put(item, timeout=0.1)
                        break
                    except queue.Full:
                        continue
                if stop.is_set():
                    return
            q.put(end)
        except BaseException as exc:  # handed to the consumer
            q.put(exc)

    threading.Thread(target=produce, name="distval-reader", daemon=True).start()
    while True:
        item = q.get()
        if item is end:
            return
        if isinstance(item, BaseException):
            raise item
        yield cast(Batch, item)  # what produce() put: a Batch, not end or an exception


def starting_point(
    config: RunConfig,
    stream: Stream,
    resume: Checkpoint | None = None,
    checkpoint_seconds: float | None = None,
) -> tuple[LocalEvaluation, Iterator[Batch]]:
    """Where every backend starts: a fresh :class:`LocalEvaluation` and the stream's batches,
    or (``resume``) the checkpoint's state and the batches after its rows. The batches
    before are read and routed again but not evaluated, so the fold routing and the label
    schedule draw exactly as in the run that wrote the checkpoint.

    >>> cfg = RunConfig(stream="sea", n_rows=300, learners=("nb",), n_folds=2, test_every=100)
    >>> import itertools
    >>> local, batches = starting_point(cfg, open_config_stream(cfg))
    >>> cp = [local.step(b) for b in itertools.islice(batches, 2)] and local.checkpoint()
    >>> again, rest = starting_point(cfg, open_config_stream(cfg), cp.checkpoint)
    >>> cp.checkpoint.rows, [b.start for b in rest], again.aggregator.position
    (200, [200], 200)
    """
    local = LocalEvaluation(config, stream, checkpoint_seconds)
    batches = iter_batches(stream, config)
    if resume is None:
        return local, batches
    local.restore(resume)
    return local, _after(batches, resume.rows, stream.name)


def _after(batches: Iterator[Batch], rows: int, name: str) -> Iterator[Batch]:
    """The batches from row ``rows`` on; a stream that ends before that row is refused
    (a checkpoint of other data: the resume must not report the rows it never had)."""
    end = 0
    for batch in batches:
        end = batch.start + len(batch)
        if batch.start >= rows:
            yield batch
    if end < rows:
        raise DistvalError(
            f"the stream {name} ends at row {end}, before the checkpoint's row {rows}: it is "
            "not the stream this run was checkpointed on")


def iter_inprocess(
    config: RunConfig,
    stream: Stream,
    *,
    resume: Checkpoint | None = None,
    checkpoint_seconds: float | None = None,
) -> Iterator[Step]:
    """The in-process backend: every batch in this process, then the final snapshot; a
    checkpoint every ``checkpoint_seconds`` (None: none), from ``resume`` if given."""
    local, batches = starting_point(config, stream, resume, checkpoint_seconds)
    yield from local.steps(batches)
    yield Step(0, local.aggregator.finish())
