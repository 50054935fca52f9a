"""``backend="auto"``: start in-process at once, move to Ray only when the job proves long.

The driver evaluates batches itself (:class:`~distval.engine.loop.LocalEvaluation`) and measures
its own speed. After the first batch it decides, once and without waiting: it projects the
time left from its learners' own seconds in that batch (a stream of unknown length counts
as long), and with more than one core and more than ``threshold`` seconds to go it starts
(or joins, :func:`~distval.ray_backend.session.find_ray`) Ray in a background thread and
asks for its learner actors (:class:`~distval.ray_backend.starter.RayStarter`), saves a
checkpoint (the run can resume whatever becomes of the start), keeps evaluating while Ray
and the actors start, and hands its state over at the first batch boundary after every actor is up
(:meth:`~distval.ray_backend.engine.RayRun.take_over`, the same hand-over as Ray's warm-up).
A short or fast job therefore never pays Ray's start-up, a long one gets every core, and the
numbers are the same either way (the same batches in the same order; ``Step.where`` records
who evaluated each). A host with MOA replicas stays in-process: its Java threads and the
reader and aggregator threads already use every core. Ray is imported only when the switch
happens.

>>> from distval.config import RunConfig
>>> from distval.engine.loop import open_config_stream
>>> cfg = RunConfig(stream="sea", n_rows=300, learners=("nb",), n_folds=2, test_every=100)
>>> [(s.rows, s.where) for s in iter_auto(cfg, open_config_stream(cfg))]
[(100, 'driver'), (100, 'driver'), (100, 'driver'), (0, 'driver')]
"""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Iterator

from distval.config import RunConfig
from distval.engine.loop import Checkpoint, Step, starting_point
from distval.engine.run import Timeline
from distval.errors import DistvalWarning
from distval.learners.host import unpicklable
from distval.ray_backend.starter import RayStarter
from distval.streams import Stream

__all__ = ["AUTO_THRESHOLD_SECONDS", "iter_auto", "projected_seconds", "usable_cores"]

#: Projected time left (seconds) above which ``auto`` moves the run to Ray.
AUTO_THRESHOLD_SECONDS = 30.0


def projected_seconds(elapsed: float, rows_done: int, total_rows: int | None) -> float:
    """Time left at the speed so far; infinite for a stream of unknown length.

    >>> projected_seconds(2.0, 1000, 11_000)
    20.0
    >>> projected_seconds(2.0, 1000, None)
    inf
    """
    if total_rows is None:
        return math.inf
    return elapsed / max(rows_done, 1) * max(total_rows - rows_done, 0)


def iter_auto(
    config: RunConfig,
    stream: Stream,
    *,
    threshold: float = AUTO_THRESHOLD_SECONDS,
    cores: int | None = None,
    wait_for_ray: bool = False,
    resume: Checkpoint | None = None,
    checkpoint_seconds: float | None = None,
    timeline: Timeline | None = None,
) -> Iterator[Step]:
    """The ``auto`` backend's steps (module docstring); ``threshold`` in seconds of this
    run's own measured speed; ``cores``: the cores Ray would use (default: this process's,
    :func:`usable_cores`). ``wait_for_ray``: once Ray is asked for, wait for it at the next
    batch boundary instead of evaluating on meanwhile (a fixed hand-over point, for tests).
    ``resume``: start from this checkpoint; ``checkpoint_seconds``: time between
    checkpoints (None: none); ``timeline``: where the phases are marked."""
    timeline = Timeline() if timeline is None else timeline
    cores = usable_cores() if cores is None else cores
    local, batches = starting_point(config, stream, resume, checkpoint_seconds)
    if local.overlaps:
        # A host that releases the GIL (JVM replicas): the in-process engine already keeps
        # every core busy (its worker threads, Python threads for reading and aggregating).
        yield from local.steps(batches)
        yield Step(0, local.aggregator.finish(), "driver")
        return
    first = True
    starter: RayStarter | None = None
    warned = False
    try:
        for batch in batches:
            if starter is not None and wait_for_ray:
                starter.wait()
            if starter is not None and starter.ready():
                from distval.ray_backend.session import ray_session

                with ray_session():  # joins the Ray started above; errors come out as ours
                    yield from starter.run.take_over(local, batch, batches)
                return
            if starter is not None and starter.error is not None and not warned:
                warned = True  # Ray did not start: the run goes on here, as fast as before
                warnings.warn(f"{starter.error}; the run goes on in-process", DistvalWarning,
                              stacklevel=2)
            yield Step(len(batch), local.step(batch), "driver")
            yield from local.checkpoints()
            if first:  # the decision, once, from the first batch
                first = False
                long = cores > 1 and _long_at_first_batch(
                    local.host.busy, len(batch), stream, resume, threshold, bound=config.n_rows)
                # Ray moves learners by pickling them; asked only of a run that would move
                # (a pickled river learner runs about 11 % slower after: docs/performance)
                why = unpicklable([local.host]) if long else None
                if why:
                    warnings.warn(f"{why}: the run stays in-process", DistvalWarning,
                                  stacklevel=2)
                elif long:
                    starter = _ray_starter(config, stream, checkpoint_seconds, timeline)
                    yield from local.checkpoint_now()  # resumable whatever the start does
        yield Step(0, local.aggregator.finish(), "driver")
    finally:
        if starter is not None:
            starter.close()


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity where the system says)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - macOS, Windows
        return os.cpu_count() or 1


def _long_at_first_batch(
    busy: list[float],
    done: int,
    stream: Stream,
    resume: Checkpoint | None,
    threshold: float,
    bound: int | None = None,
) -> bool:
    """Whether the first batch already shows a long job: the learners' own seconds in it
    (``LearnerHost.busy``, without the batch's one-off costs: imports, compiling, scipy),
    projected over the rows left, exceed ``threshold``; a stream of unknown length is long
    unless ``bound`` (the run's ``n_rows``: a file read up to it) caps it.

    >>> from distval.streams.open import open_stream
    >>> s = open_stream("sea", n_rows=41_000)
    >>> _long_at_first_batch([0.5, 0.3], 1000, s, None, 30.0)  # 0.8 s x 40 batches
    True
    >>> _long_at_first_batch([0.05, 0.03], 1000, s, None, 30.0)
    False
    >>> from distval.streams.iterable import IterableStream
    >>> endless = IterableStream(({"x": i}, i % 2) for i in range(5))  # no length told
    >>> _long_at_first_batch([0.05], 1000, endless, None, 30.0)
    True
    >>> _long_at_first_batch([0.05], 1000, endless, None, 30.0, bound=2000)
    False
    """
    before = resume.rows if resume else 0
    length = stream.n_rows if stream.n_rows is not None else bound
    total = None if length is None else length - before
    return projected_seconds(sum(busy), done, total) > threshold


def _ray_starter(
    config: RunConfig, stream: Stream, checkpoint_seconds: float | None, timeline: Timeline
) -> RayStarter:
    """Ray (the running one :func:`~distval.ray_backend.session.find_ray` finds, else a
    private local one) and a :class:`~distval.ray_backend.engine.RayRun`, started in a
    background thread (:class:`~distval.ray_backend.starter.RayStarter`)."""

    def make() -> object:
        from distval.ray_backend.engine import RayRun

        return RayRun(config, stream, checkpoint_seconds=checkpoint_seconds, timeline=timeline)

    return RayStarter(make, mark=timeline.mark)
