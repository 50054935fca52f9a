"""``backend="auto"``: start in-process at once, move to Ray only when the job proves long.

The driver evaluates batches itself (:class:`~distval.engine.LocalEvaluation`) and measures
its own speed. Once it has run for ``probe_seconds``, it projects the time left from the rows
still to come (a stream of unknown length counts as long). Above ``threshold`` seconds it
starts a local Ray in a background thread and asks for its learner actors, waiting while Ray
itself starts (``ray.init`` is Python work that, beside an evaluation holding the GIL, took
several times as long), keeps evaluating while the actors boot, and hands its state over at
the next batch boundary
(:meth:`~distval.ray_backend.engine.RayRun.take_over`, the same hand-over as Ray's warm-up).
A short or fast job therefore never pays Ray's start-up, a long one gets every core, and the
numbers are the same either way (the same batches in the same order; ``Step.where`` records
who evaluated each). A host with MOA replicas stays in-process: its Java threads and the
reader and aggregator threads already use every core. Ray is imported only when the switch
happens.

>>> from distval.config import RunConfig
>>> from distval.engine import open_config_stream
>>> cfg = RunConfig(stream="sea", n_rows=300, learners=("nb",), n_folds=2, test_every=100)
>>> [(s.rows, s.where) for s in iter_auto(cfg, open_config_stream(cfg))]
[(100, 'driver'), (100, 'driver'), (100, 'driver'), (0, 'driver')]
"""

from __future__ import annotations

import contextlib
import math
import threading
import time
from collections.abc import Iterator
from typing import Any

from distval.config import RunConfig
from distval.engine import Checkpoint, Step, starting_point
from distval.streams import Stream

__all__ = ["AUTO_PROBE_SECONDS", "AUTO_THRESHOLD_SECONDS", "iter_auto", "projected_seconds"]

#: Projected time left (seconds) above which ``auto`` moves the run to Ray.
AUTO_THRESHOLD_SECONDS = 30.0
#: How long the driver runs alone before it projects the time left.
AUTO_PROBE_SECONDS = 2.0


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


class _RayStarter:
    """Starts a private local Ray and a :class:`RayRun` in a background thread.

    The thread stays alive until :meth:`close`: Ray ties the local cluster's processes (GCS,
    raylet) to the thread that started them (they are killed when it ends: a hand-over
    after that found the GCS gone and the driver terminated a minute later).
    """

    def __init__(
        self, config: RunConfig, stream: Stream, checkpoint_seconds: float | None = None
    ) -> None:
        self.run: Any = None
        self.error: BaseException | None = None
        self.started = False
        self._up = threading.Event()  # Ray and the RayRun exist, or the start failed
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._start,
            args=(config, stream, checkpoint_seconds),
            name="distval-ray-start",
            daemon=True,
        )
        self._thread.start()

    def _start(
        self, config: RunConfig, stream: Stream, checkpoint_seconds: float | None
    ) -> None:
        try:
            from distval.ray_backend.engine import RayRun
            from distval.ray_backend.session import _start

            self.started = _start(None)
            self.run = RayRun(config, stream, checkpoint_seconds=checkpoint_seconds)
        except BaseException as exc:  # reported to the driver, which then stays in-process
            self.error = exc
        self._up.set()
        self._stop.wait()  # keeps the cluster's processes alive (class docstring)

    def wait_started(self) -> None:
        """Block until Ray runs and the actors are asked for (or the start failed)."""
        self._up.wait()

    def ready(self) -> bool:
        """Whether Ray and every actor are up (False while booting or if the start failed)."""
        if not self._up.is_set() or self.run is None:
            return False
        return bool(self.run.ready())

    def wait(self) -> None:
        """Block until Ray and the actors are up (or their start failed)."""
        self._up.wait()
        while self.run is not None and not self.run.ready():
            time.sleep(0.05)

    def close(self) -> None:
        self._up.wait()
        if self.run is not None:
            with contextlib.suppress(Exception):  # already gone: nothing to clean up
                self.run.actors.kill()
        if self.started:
            from distval.ray_backend.session import _stop

            _stop()
        self._stop.set()
        self._thread.join()


def iter_auto(
    config: RunConfig,
    stream: Stream,
    *,
    threshold: float = AUTO_THRESHOLD_SECONDS,
    probe_seconds: float = AUTO_PROBE_SECONDS,
    wait_for_ray: bool = False,
    resume: Checkpoint | None = None,
    checkpoint_seconds: float | None = None,
) -> Iterator[Step]:
    """The ``auto`` backend's steps (module docstring); ``threshold`` and ``probe_seconds`` in
    seconds of this run's own measured speed. ``wait_for_ray``: once Ray is asked for, wait
    for it at the next batch boundary instead of evaluating on meanwhile (a fixed hand-over
    point, for tests). ``resume``: start from this checkpoint; ``checkpoint_seconds``: time
    between checkpoints (None: none)."""
    local, batches = starting_point(config, stream, resume, checkpoint_seconds)
    if local.overlaps:
        # A host that releases the GIL (JVM replicas): the in-process engine already keeps
        # every core busy (its worker threads, Python threads for reading and aggregating).
        yield from local.steps(batches)
        yield Step(0, local.aggregator.finish(), "driver")
        return
    start: float | None = None  # the clock starts after the first batch: its one-off costs
    rows = done = 0  # (imports, first calls) would inflate the projection
    starter: _RayStarter | None = None
    try:
        for batch in batches:
            if starter is not None and wait_for_ray:
                starter.wait()
            if starter is not None and starter.ready():
                from distval.ray_backend.session import ray_session

                with ray_session():  # joins the Ray started above; errors come out as ours
                    yield from starter.run.take_over(local, batch, batches)
                return
            yield Step(len(batch), local.step(batch), "driver")
            yield from local.checkpoints()
            done += len(batch)
            if start is None:
                start = time.perf_counter()
                continue
            rows += len(batch)
            if starter is None:
                elapsed = time.perf_counter() - start
                before = (resume.rows if resume else 0) + done - rows
                total = None if stream.n_rows is None else stream.n_rows - before
                if elapsed >= probe_seconds and (
                    projected_seconds(elapsed, rows, total) > threshold
                ):
                    starter = _RayStarter(config, stream, checkpoint_seconds)
                    starter.wait_started()
        yield Step(0, local.aggregator.finish(), "driver")
    finally:
        if starter is not None:
            starter.close()
