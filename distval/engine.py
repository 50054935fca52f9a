"""The driver loop both backends share: routed batches in, ``Step``s out, and a run's books.

The driver reads the stream in chunks, cuts them so that batches end on every
``test_every``-th row and draws the fold routing of each batch (:mod:`distval.validation`).
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
import itertools
import os
import queue
import shutil
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, ClassVar, NamedTuple, cast

import numpy as np

from distval.aggregator import Aggregator, Snapshot
from distval.columns import REGRESSION_FOLD_SCHEMA, rows_of
from distval.config import RunConfig
from distval.delays import LabelSchedule
from distval.learners.host import Batch, LearnerHost
from distval.learners.schema import Schema
from distval.metrics import PROBA_MEASURES
from distval.regression import RegressionAggregator
from distval.results import EvaluationResult, ResultWriter
from distval.results.lock import DirectoryLock
from distval.results.regression import RegressionResult
from distval.results.saved import load_evaluation
from distval.streams import Chunk, Stream, open_stream
from distval.validation import FoldAssigner
from distval.verdict import p_text, short_names, status_verdict

__all__ = [
    "CHECKPOINT_SECONDS",
    "CHECKPOINT_SHARE",
    "Checkpoint",
    "Every",
    "LocalEvaluation",
    "Run",
    "Step",
    "Timeline",
    "iter_batches",
    "iter_inprocess",
    "open_config_stream",
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
    aggregator: Aggregator | RegressionAggregator


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


class Timeline:
    """When a run's phases began, as :func:`time.perf_counter` readings: ``ray_init_start``,
    ``ray_init_end``, ``actors_up``, ``hand_over``, ``first_actor_step``,
    ``last_actor_step``, ``shutdown_start``, ``shutdown_end`` (the Ray backends mark them;
    an in-process run marks none). ``summary.json`` keeps them as seconds since the run's
    start (:meth:`since`).

    >>> t = Timeline()
    >>> t.mark("hand_over"); t.phase()
    'handing over'
    >>> t.mark("first_actor_step"); t.phase(), sorted(t.since(0.0))
    ('actors', ['first_actor_step', 'hand_over'])
    """

    #: The phase each mark begins, the latest mark made naming the current one.
    PHASES: ClassVar[dict[str, str]] = {
        "ray_init_start": "starting Ray",
        "ray_init_end": "actors starting",
        "actors_up": "handing over",
        "hand_over": "handing over",
        "first_actor_step": "actors",
        "last_actor_step": "actors",
        "shutdown_start": "stopping Ray",
        "shutdown_end": "",
    }

    def __init__(self) -> None:
        self.marks: dict[str, float] = {}

    def mark(self, event: str, again: bool = False) -> None:
        """Mark ``event`` now; a mark already made stays unless ``again``."""
        if again or event not in self.marks:
            self.marks[event] = time.perf_counter()

    def phase(self) -> str:
        """The phase of the latest mark ("" before any, and after Ray has stopped)."""
        if not self.marks:
            return ""
        return self.PHASES.get(max(self.marks, key=self.marks.__getitem__), "")

    def since(self, start: float) -> dict[str, float]:
        """Every mark as seconds since ``start``, in time order."""
        return {
            k: round(v - start, 3) for k, v in sorted(self.marks.items(), key=lambda kv: kv[1])
        }


def open_config_stream(config: RunConfig) -> Stream:
    """The stream a configuration names, opened with its row limit and seed."""
    if config.task == "regression":
        from distval.streams.regression import open_regression_stream

        return open_regression_stream(
            config.stream, target=config.target, n_rows=config.n_rows, seed=config.seed
        )
    return open_stream(
        config.stream,
        target=config.target,
        n_rows=config.n_rows,
        seed=config.seed,
        na_values=config.na_values,
        infinite=config.infinite,
    )


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
    that become known during it (:class:`~distval.delays.LabelSchedule`); the chunks are then
    read one ahead, since the next row's time decides which labels are known before it.
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
        slots = [(i, f) for i in range(len(config.learners)) for f in range(config.n_folds)]
        self.host = LearnerHost(
            config.specs, slots, stream.feature_names, config.seed, Schema.of(stream),
            proba=config.measure in PROBA_MEASURES, regression=config.task == "regression",
        )
        if config.task == "regression":
            self.aggregator: Aggregator | RegressionAggregator = (
                RegressionAggregator.from_config(config, spending_horizon(config, stream))
            )
        else:
            self.aggregator = Aggregator.from_config(
                config,
                n_classes=getattr(stream, "n_classes", None),
                planned_rows=spending_horizon(config, stream),
            )
        self._ids = np.arange(len(slots))
        self.every = Every(checkpoint_seconds)

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
        return self.aggregator.update(
            batch.start, batch.scored_y, [(self._ids, preds)], arrived=len(batch),
            rows=batch.scored_rows,
        )

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
        agg_in: queue.Queue[tuple[Batch, np.ndarray] | None] = queue.Queue(maxsize=AHEAD)
        agg_out: queue.Queue[Step | BaseException] = queue.Queue()
        stop = threading.Event()

        def aggregate() -> None:
            while True:
                item = agg_in.get()
                if item is None:
                    return
                batch, preds = item
                try:
                    snap = self.aggregator.update(
                        batch.start, batch.scored_y, [(self._ids, preds)], arrived=len(batch),
                        rows=batch.scored_rows,
                    )
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
                agg_in.put((batch, preds))
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
    return local, itertools.dropwhile(lambda b: b.start < resume.rows, batches)


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


class Run:
    """Bookkeeping of one run: result, output files, progress.

    ``progress``: ``True`` or ``"bar"`` for a progress bar whose status fits the terminal
    (with the phase of a Ray run, :meth:`Timeline.phase`, such as ``"starting Ray"``),
    ``"lines"`` for a plain-text progress line on stderr every ``line_seconds`` (logs, job
    runners), ``False`` for none. The backend marks its phases on :attr:`timeline`; the
    summary keeps them.

    A step's :class:`Checkpoint` goes to the output directory with what the run has
    recorded so far (:meth:`ResultWriter.checkpoint`). ``resume``: what
    :func:`~distval.results.writer.read_checkpoint` read from ``output_dir``, whose tables
    are cut back to the checkpoint and appended to; the result so far is read back from them
    (``run_id``: the checkpoint's, ``lock``: the directory's, already taken).
    """

    def __init__(
        self,
        config: RunConfig,
        stream: Stream,
        *,
        output_dir: str | os.PathLike[str] | None = None,
        overwrite: bool = False,
        progress: bool | str | Callable[[int], None] = False,
        backend: str = "inprocess",
        line_seconds: float = 10.0,
        resume: tuple[dict[str, Any], dict[str, int]] | None = None,
        run_id: str | None = None,
        lock: DirectoryLock | None = None,
    ):
        self.config = config
        self.stream = stream
        out = Path(output_dir) if output_dir else None
        regression = config.task == "regression"
        self.result = RegressionResult(config, output_dir=out, stream_name=stream.name) \
            if regression else EvaluationResult(config, output_dir=out)
        schemas = {"folds": REGRESSION_FOLD_SCHEMA} if regression else None
        optional = ("q",) if regression else ()  # a regression run has no Q statistics
        self._before = 0.0  # seconds of the run before its checkpoint
        if resume is not None:
            if out is None:
                raise ValueError("resume needs the output_dir of the checkpoint")
            state, written = resume
            #: The checkpoint this run goes on from.
            self.resumed_from: Checkpoint | None = state["checkpoint"]
            self.writer: ResultWriter | None = ResultWriter(out, resume=written, run_id=run_id,
                                                            lock=lock, schemas=schemas,
                                                            optional=optional)
            if regression:  # the final snapshot so far is the aggregator's last
                self.result.final = state["checkpoint"].aggregator.last
            elif written.get("folds"):
                self.result = load_evaluation(out)
            self.result.n_rows = state["checkpoint"].rows
            self.result.evaluated_by = dict(state["evaluated_by"])
            self.result.interrupted = False
            self._before = state["elapsed"]
        else:
            self.resumed_from = None
            self.writer = ResultWriter(output_dir, overwrite=overwrite, schemas=schemas,
                                       optional=optional) if output_dir else None
            if self.writer:
                extra = {"backend": backend, "stream_name": stream.name}
                self.writer.write_config(config, extra)
        if self.writer:  # the time series goes to the directory, and is read back from it
            self.result.series = self.writer
        self.result.backend = backend
        self._bar = None
        self._ticker: _Ticker | None = None
        self._lines = progress == "lines"
        self._rows_done = progress if callable(progress) else None
        self._line_seconds = line_seconds
        self._status = ""
        self.timeline = Timeline()
        self._phase = "starting Ray" if backend == "ray" else ""
        self._starting = backend == "ray"
        if progress is True or progress == "bar":
            from tqdm.auto import tqdm

            desc = f"{stream.name} ({self._phase})" if self._phase else stream.name
            self._bar = tqdm(
                total=stream.n_rows, unit="rows", desc=desc, leave=True, dynamic_ncols=True,
                bar_format=_BAR_FORMAT, initial=self.result.n_rows,
            )
            self._ticker = _Ticker(self._bar)
        elif self._lines and self._starting:
            self._print("starting Ray")
        self._start = time.perf_counter()
        self._last_line = self._start

    def _print(self, text: str) -> None:
        print(f"distval: {text}", file=sys.stderr, flush=True)

    def feed(self, step: Step) -> None:
        """Record one step of a backend."""
        phase = self.timeline.phase() if self.timeline.marks else self._phase
        if phase != self._phase:
            self._phase = phase
            if self._bar is not None:
                desc = f"{self.stream.name} ({phase})" if phase else self.stream.name
                self._bar.set_description_str(desc, refresh=False)
        self.snapshot(step.snapshot)
        self.advance(step.rows, step.where)
        if step.checkpoint is not None:
            self.save(step.checkpoint)

    def save(self, checkpoint: Checkpoint) -> None:
        """Write ``checkpoint`` (the state after every step so far) to the output directory."""
        if self.writer is None:
            return
        if checkpoint.rows != self.result.n_rows:
            raise RuntimeError(
                f"checkpoint at row {checkpoint.rows} after {self.result.n_rows} rows"
            )
        self.writer.checkpoint(
            {
                "checkpoint": checkpoint,
                "config": self.config.to_dict(),
                "evaluated_by": dict(self.result.evaluated_by),
                "elapsed": self._before + time.perf_counter() - self._start,
            }
        )

    def advance(self, n_rows: int, where: str = "driver") -> None:
        self.result.n_rows += n_rows
        if n_rows:
            counts = self.result.evaluated_by
            counts[where] = counts.get(where, 0) + n_rows
        if self._rows_done is not None and n_rows:
            self._rows_done(self.result.n_rows)
        if self._bar is not None:
            self._bar.update(n_rows)
        elif self._lines and n_rows:
            now = time.perf_counter()
            if now - self._last_line >= self._line_seconds:
                self._last_line = now
                self._print(self.progress_line(now - self._start))

    def progress_line(self, seconds: float) -> str:
        """One plain-text progress line: rows, share, speed and the live status."""
        done, total = self.result.n_rows, self.stream.n_rows
        share = f" ({100 * done / total:.0f} %)" if total else ""
        of = f"/{total}" if total else ""
        speed = done / seconds if seconds > 0 else 0.0
        status = f"; {self._status}" if self._status else ""
        phase = f" ({self._phase})" if self._phase else ""
        return f"{done}{of} rows{share}, {speed:.0f} rows/s{phase}{status}"

    def snapshot(self, snap: Snapshot | None) -> None:
        if snap is None:
            return
        self.result.add(snap)
        self.result.snapshot_seconds.append(time.perf_counter() - self._start)
        if self._bar is not None or self._lines:
            width = None
            if self._bar is not None:  # what the (short) bar leaves of the terminal
                columns = shutil.get_terminal_size((100, 24)).columns
                width = status_width(columns, self.stream.name, self.stream.n_rows)
            self._status = live_status(snap, self.config, width=width)
            if self._bar is not None:
                self._bar.set_postfix_str(self._status, refresh=False)

    def close(self, *, interrupted: bool = False) -> EvaluationResult | RegressionResult:
        self.result.elapsed = self._before + time.perf_counter() - self._start
        self.result.timeline = self.timeline.since(self._start)
        self.result.interrupted = interrupted
        if isinstance(self.result, EvaluationResult):
            self.result.classes = list(self.stream.classes)
        if self._ticker is not None:
            self._ticker.stop()
        if self._bar is not None:
            self._bar.close()
        if self.writer:
            self.writer.close(self.result, finished=not interrupted)
        return self.result


#: The progress line: the share and count of rows, the time elapsed and the time left (no
#: bar graphic), so that the status (the learners and the verdict) keeps most of an
#: 80-column terminal.
_BAR_FORMAT = "{desc}: {percentage:3.0f}% {n_fmt}/{total_fmt} [{elapsed}<{remaining}]{postfix}"


class _Ticker:
    """Redraws a tqdm bar every ``seconds`` from a daemon thread, so that its elapsed time
    and ETA move from the first second, also while no row has been evaluated yet (learners
    loading, a JVM or Ray starting) or a batch is slow."""

    def __init__(self, bar: Any, seconds: float = 1.0) -> None:
        self._bar, self._seconds = bar, seconds
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, name="distval-bar", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._done.wait(self._seconds):
            self._bar.refresh()

    def stop(self) -> None:
        self._done.set()
        self._thread.join()


def status_width(columns: int, desc: str, total: int | None) -> int:
    """What :data:`_BAR_FORMAT` leaves for the status on a terminal ``columns`` wide.

    >>> status_width(80, "elec2", 45312)  # "elec2:  44% 20000/45312 [01:02<02:10], " is 39
    41
    """
    digits = len(str(total)) if total else 9
    return max(20, columns - len(desc) - (2 + 4 + 1 + 2 * digits + 1 + 14 + 2))


def live_status(snap: Snapshot, config: RunConfig, width: int | None = None) -> str:
    """A short status: the leader's measure (mean over folds; the leader is the learner the
    verdicts name most often, else the one with the best measure), the clearest verdict (its
    confidence sequence, valid under peeking; :func:`~distval.verdict.status_verdict`), the
    other learners' measures and, for the most clearly different pair, the Wilcoxon (else
    sign) p-value and whom it favours; with ``--sequential``, the decision that stays valid
    when this line is watched. With a ``width`` it is too long for, every learner in short
    and the verdict without its sequence; then parts are dropped from the end until it
    fits.

    >>> from distval.aggregator import Snapshot
    >>> cfg = RunConfig(learners=("ht", "nb"), n_folds=2)
    >>> folds = {"learner": np.array(["ht", "ht", "nb", "nb"], dtype=object),
    ...          "forgetting": np.array(["adwin"] * 4, dtype=object),
    ...          "accuracy": np.array([0.9, 0.8, 0.7, 0.7])}
    >>> tests = {"test": np.array(["wilcoxon"], dtype=object),
    ...          "learner_a": np.array(["ht"], dtype=object),
    ...          "learner_b": np.array(["nb"], dtype=object), "pvalue": np.array([0.03]),
    ...          "favours": np.array(["ht"], dtype=object), "reject": np.array([False]),
    ...          "boundary": np.array([0.0012]), "anytime_valid": np.array([True])}
    >>> live_status(Snapshot(100, folds, tests), cfg)
    'ht 0.850 | nb 0.700 | wilcoxon p 0.03 (ht)'
    >>> live_status(Snapshot(100, folds, tests), cfg, width=20)
    'ht .85 nb .70'
    >>> from distval.columns import VERDICT_SCHEMA, to_columns
    >>> v = {f: None for f in VERDICT_SCHEMA.names} | {"position": 100, "learner_a": "ht",
    ...      "learner_b": "nb", "rows": 100, "mean": 0.15, "lower": 0.05, "upper": 0.25,
    ...      "decision": "A", "folds": 2, "folds_favouring": 2}
    >>> snap = Snapshot(100, folds, tests, verdicts=to_columns([v], VERDICT_SCHEMA))
    >>> live_status(snap, cfg, width=45)
    'ht .85 nb .70 | ht>nb +15.0'
    >>> spend = RunConfig(learners=("ht", "nb"), n_folds=2, sequential="spending")
    >>> live_status(Snapshot(100, folds, tests), spend).split(" | ")[-1]
    'valid under peeking: not yet (needs p <= 0.0012)'
    """
    folds = snap.folds
    primary = folds["forgetting"] == config.forgetting
    names = short_names(config.labels)
    means: dict[str, float] = {}
    for learner in dict.fromkeys(folds["learner"][primary].tolist()):
        v = folds[config.measure][primary & (folds["learner"] == learner)].astype(float)
        if np.isfinite(v).any():
            means[learner] = float(np.nanmean(v))
    parts = [f"{names.get(k, k)} {v:.3f}" for k, v in means.items()]
    verdicts = rows_of(snap.verdicts) if len(snap.verdicts) else []
    if len(parts) > 1:  # the leader first, then the verdict, then the others
        wins = {k: sum(v["favours"] == k for v in verdicts) for k in means}
        up = -1.0 if config.task == "regression" and config.measure != "r2" else 1.0  # errors
        lead = max(means, key=lambda k: (wins[k], up * means[k]))  # the verdicts' winner first
        parts.insert(0, parts.pop(list(means).index(lead)))
    verdict = status_verdict(verdicts, names, config.measure) if verdicts else ""
    if verdict:
        parts.insert(1, verdict)
    tests = rows_of(snap.tests)
    shown = None
    for name in ("wilcoxon", "sign"):
        rows = [t for t in tests if t["test"] == name and t["pvalue"] == t["pvalue"]]
        if rows:
            shown = best = min(rows, key=lambda t: t["pvalue"])
            who = f" ({names.get(best['favours'], best['favours'])})" if best.get("favours") else ""
            pair = "" if len(rows) == 1 else f" {best['learner_a']}/{best['learner_b']}"
            parts.append(f"{name}{pair} p {p_text(best['pvalue'])}{who}")
            break
    valid = _valid_status(snap, config, shown)
    if valid:
        parts.append(valid)
    out = " | ".join(parts)
    if width is not None and len(out) > width and len(means) > 1:
        # too long for the bar: every learner in short (leader first) and the verdict
        # without its sequence, before anything is dropped
        order = [parts[0].rsplit(" ", 1)[0]] if means else []
        short = {names.get(k, k): f"{v:.2f}".removeprefix("0") for k, v in means.items()}
        order += [n for n in short if n not in order]
        learners = " ".join(f"{n} {short[n]}" for n in order if n in short)
        brief = verdict.split(" (CS")[0].removesuffix(" pts")
        compact = [learners, brief] if verdict else [learners]
        if len(" | ".join(compact)) <= width or len(learners) <= width:
            parts = compact
            out = " | ".join(parts)
    while width is not None and len(out) > width and len(parts) > 1:
        parts.pop()
        out = " | ".join(parts)
    return out[:width] if width is not None else out


def _valid_status(
    snap: Snapshot, config: RunConfig, shown: dict[str, Any] | None
) -> str | None:
    """The part of :func:`live_status` that marks the decision valid under peeking: the
    spending decision of the test shown, or the largest e-value of ``--sequential evalue``.

    >>> from distval.aggregator import Snapshot
    >>> cfg = RunConfig(learners=("ht", "nb"), n_folds=2, sequential="evalue")
    >>> rows = {"test": np.array(["sign_evalue"], dtype=object),
    ...         "learner_a": np.array(["ht"], dtype=object),
    ...         "learner_b": np.array(["nb"], dtype=object), "statistic": np.array([3.1]),
    ...         "reject": np.array([False]), "favours": np.array(["ht"], dtype=object)}
    >>> _valid_status(Snapshot(100, {}, rows), cfg, None)
    'e-value 3.1 (H0 rejected at 20, valid at any check)'
    """
    if config.sequential == "spending" and shown is not None and shown.get("anytime_valid"):
        if shown["reject"]:
            return "valid under peeking: H0 rejected"
        return f"valid under peeking: not yet (needs p <= {shown['boundary']:.2g})"
    rows = [t for t in rows_of(snap.tests) if t["test"] == "sign_evalue"]
    if config.sequential != "evalue" or not rows:
        return None
    top = max(rows, key=lambda t: t["statistic"])
    pair = "" if len(rows) == 1 else f" {top['learner_a']}/{top['learner_b']}"
    limit = 1 / config.alpha
    if top["reject"]:
        who = f" ({top['favours']})" if top.get("favours") else ""
        return f"e-value{pair} reached {limit:g}: H0 rejected, valid at any check{who}"
    return f"e-value{pair} {top['statistic']:.3g} (H0 rejected at {limit:g}, valid at any check)"
