"""Running an evaluation: the driver loop shared by the in-process and Ray engines.

The driver reads the stream in chunks, cuts them so that batches end on every
``test_every``-th row, draws the fold routing of each batch (:mod:`distval.validation`) and
hands it to the learner hosts; their predictions go to the aggregator, whose snapshots are
shown as progress, kept in the result and appended to disk.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from distval.aggregator import Aggregator, Snapshot
from distval.config import RunConfig
from distval.errors import DistvalError, check_positive_int
from distval.learners.host import Batch, LearnerHost
from distval.learners.schema import Schema
from distval.results import EvaluationResult, ResultWriter
from distval.streams import Stream, open_stream
from distval.validation import FoldAssigner

__all__ = [
    "BACKENDS",
    "LocalEvaluation",
    "Run",
    "evaluate",
    "iter_batches",
    "open_config_stream",
]

BACKENDS = ("inprocess", "ray", "auto")
#: With ``backend="auto"``, jobs of fewer (rows x learners x folds) than this run in-process:
#: Ray's start-up (a few seconds) would cost more than the second core gives back.
AUTO_RAY_WORK = 200_000


def open_config_stream(config: RunConfig) -> Stream:
    return open_stream(config.stream, target=config.target, n_rows=config.n_rows, seed=config.seed)


def iter_batches(stream: Stream, config: RunConfig) -> Iterator[Batch]:
    """The stream as routed batches of at most ``batch_size`` rows, cut at test points."""
    assigner = FoldAssigner(config.validation, seed=config.seed)
    every = config.test_every
    for chunk in stream.chunks(config.batch_size):
        n = len(chunk.y)
        first = chunk.start
        cuts = np.arange((first // every + 1) * every, first + n, every) - first
        for lo, hi in zip(np.r_[0, cuts], np.r_[cuts, n]):
            a = assigner.assign(int(hi - lo))
            yield Batch(
                start=first + int(lo),
                X=chunk.X[lo:hi],
                y=chunk.y[lo:hi],
                weights=a.weights,
                tested=a.tested(config.prequential),
            )


class Run:
    """Bookkeeping of one run: result, output files, progress bar."""

    def __init__(
        self,
        config: RunConfig,
        stream: Stream,
        *,
        output_dir=None,
        overwrite: bool = False,
        progress: bool = False,
        backend: str = "inprocess",
    ):
        self.config = config
        self.stream = stream
        self.result = EvaluationResult(config, output_dir=Path(output_dir) if output_dir else None)
        self.writer = ResultWriter(output_dir, overwrite=overwrite) if output_dir else None
        if self.writer:
            self.writer.write_config(config, {"backend": backend, "stream_name": stream.name})
        self._bar = None
        if progress:
            from tqdm.auto import tqdm

            self._bar = tqdm(
                total=stream.n_rows, unit="rows", desc=stream.name, leave=True, dynamic_ncols=True
            )
        self._start = time.perf_counter()

    def advance(self, n_rows: int) -> None:
        self.result.n_rows += n_rows
        if self._bar is not None:
            self._bar.update(n_rows)

    def snapshot(self, snap: Snapshot | None) -> None:
        if snap is None:
            return
        self.result.add(snap)
        self.result.snapshot_seconds.append(time.perf_counter() - self._start)
        if self.writer:
            self.writer.append(snap)
        if self._bar is not None:
            self._bar.set_postfix_str(live_status(snap, self.config), refresh=False)

    def close(self, *, interrupted: bool = False) -> EvaluationResult:
        self.result.elapsed = time.perf_counter() - self._start
        self.result.interrupted = interrupted
        self.result.classes = list(self.stream.classes)
        if self._bar is not None:
            self._bar.close()
        if self.writer:
            self.writer.close(self.result)
        return self.result


def live_status(snap: Snapshot, config: RunConfig) -> str:
    """One short line: mean accuracy and kappa-M per learner, the latest Wilcoxon p-value and
    faded Q statistic of the first pair."""
    acc: dict[str, list[float]] = {}
    km: dict[str, list[float]] = {}
    for r in snap.folds:
        if r["forgetting"] == config.forgetting:
            acc.setdefault(r["learner"], []).append(r["accuracy"])
            km.setdefault(r["learner"], []).append(r["kappa_m"])
    parts = [
        f"{k} acc {np.nanmean(v):.3f} κm {np.nanmean(km[k]):.3f}"
        for k, v in acc.items()
        if np.isfinite(v).any()
    ]
    wil = [t for t in snap.tests if t["test"] == "wilcoxon"]
    if wil:
        parts.append(f"wilcoxon p {wil[0]['pvalue']:.3g}")
    q = [t for t in snap.tests if t["test"] == "q_fading"]
    if q and np.isfinite(q[0]["statistic"]):
        parts.append(f"Q {q[0]['statistic']:+.2f}")
    return " | ".join(parts)


class LocalEvaluation:
    """Every replica in one host and the aggregator, in this process.

    >>> cfg = RunConfig(stream="sea", learners=("nb",), n_folds=2, test_every=100)
    >>> stream = open_config_stream(cfg)
    >>> local = LocalEvaluation(cfg, stream)
    >>> snap = local.step(next(iter_batches(stream, cfg)))
    >>> snap.position, local.host.slots
    (100, [(0, 0), (0, 1)])
    """

    def __init__(self, config: RunConfig, stream: Stream) -> None:
        slots = [(i, f) for i in range(len(config.learners)) for f in range(config.n_folds)]
        self.host = LearnerHost(
            config.specs, slots, stream.feature_names, config.seed, Schema.of(stream)
        )
        self.aggregator = Aggregator(config)
        self._ids = np.arange(len(slots))

    def step(self, batch: Batch) -> Snapshot | None:
        """Predict, learn and aggregate one batch; the snapshot if a test point was reached."""
        preds = self.host.process(batch)
        return self.aggregator.update(batch.start, batch.y, [(self._ids, preds)])


def _run_inprocess(config: RunConfig, stream: Stream, run: Run) -> None:
    local = LocalEvaluation(config, stream)
    for batch in iter_batches(stream, config):
        run.snapshot(local.step(batch))
        run.advance(len(batch))
    run.snapshot(local.aggregator.finish())


def evaluate(
    config: RunConfig | None = None,
    *,
    output_dir=None,
    overwrite: bool = False,
    progress: bool = False,
    backend: str = "inprocess",
    address: str | None = None,
    n_actors: int | None = None,
    source: Stream | None = None,
    **options,
) -> EvaluationResult:
    """Evaluate learners on a stream under k-fold distributed validation.

    Give a :class:`~distval.config.RunConfig` or its fields as keywords. Results are returned
    and, with ``output_dir``, written there as they are produced. ``backend="ray"`` runs the
    learners in Ray actors (``n_actors``, default one per CPU) on a local Ray or, with
    ``address``, on a cluster; both backends give identical numbers. ``source`` evaluates
    a :class:`~distval.streams.Stream` object (e.g. a permuted copy) instead of opening
    ``config.stream``. ``backend="auto"`` picks
    Ray unless the job is small (fewer than :data:`AUTO_RAY_WORK` rows x learners x folds).

    >>> res = evaluate(stream="sea", n_rows=2000, learners=("nb", "majority"), n_folds=3,
    ...                test_every=1000)
    >>> res.n_rows, sorted(res.final_folds()["learner"].unique())
    (2000, ['majority', 'nb'])
    >>> bool(res.summary()["learners"]["nb"]["cumulative"]["accuracy"]["mean"] > 0.8)
    True
    """
    if config is None:
        config = RunConfig(**options)
    elif options:
        raise DistvalError("give either a RunConfig or keyword options, not both")
    if backend not in BACKENDS:
        raise DistvalError(f"unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}")
    if backend == "inprocess" and (address or n_actors):
        raise DistvalError("`address` and `n_actors` need the ray backend")
    if n_actors is not None:
        check_positive_int(n_actors, "n_actors")
    stream = source if source is not None else open_config_stream(config)
    if backend == "auto":
        work = (stream.n_rows or AUTO_RAY_WORK) * len(config.learners) * config.n_folds
        backend = "ray" if address or n_actors or work >= AUTO_RAY_WORK else "inprocess"
    run = Run(
        config,
        stream,
        output_dir=output_dir,
        overwrite=overwrite,
        progress=progress,
        backend=backend,
    )
    try:
        if backend == "ray":
            from distval.ray_engine import run_ray

            run_ray(config, stream, run, address=address, n_actors=n_actors)
        else:
            _run_inprocess(config, stream, run)
    except BaseException:
        run.close(interrupted=True)
        raise
    return run.close()
