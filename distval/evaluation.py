"""The entry point: :func:`evaluate` checks its options, picks a backend and runs it.

This is the one place that knows the backends (:data:`BACKENDS`) and checks their options
(:func:`check_backend`); the studies in :mod:`distval.experiments` and the command line use it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import math
import os
import warnings
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import Any

from distval.config import RunConfig, read_config
from distval.engine.loop import (
    CHECKPOINT_SECONDS,
    Checkpoint,
    Step,
    iter_inprocess,
    open_config_stream,
    spending_horizon,
)
from distval.engine.observer import RunObserver
from distval.engine.run import Run, Timeline
from distval.errors import DistvalError, DistvalWarning, LowPowerWarning, check_positive_int
from distval.learners.minibatch import notices as minibatch_notices
from distval.results import EvaluationResult
from distval.results.lock import DirectoryLock
from distval.results.saved import load_evaluation
from distval.results.writer import CHECKPOINT, RUN_ID, checkpoint_header, read_checkpoint
from distval.routing.delays import check_time_column, untrained
from distval.statistics.power import folds_to_reach, smallest_pvalue
from distval.streams import Stream

__all__ = ["BACKENDS", "check_backend", "evaluate", "finished", "low_power", "no_horizon",
           "resume"]

BACKENDS = ("inprocess", "ray", "auto")


def check_backend(backend: str, address: str | None = None, n_actors: int | None = None) -> None:
    """Refuse an unknown backend, or Ray options without Ray, with one clear message.

    >>> check_backend("ray", n_actors=2)
    >>> try:
    ...     check_backend("inprocess", address="auto")
    ... except DistvalError as e:
    ...     print(e)
    `address` and `n_actors` need the ray backend
    """
    if backend not in BACKENDS:
        raise DistvalError(f"unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}")
    if backend == "inprocess" and (address or n_actors):
        raise DistvalError("`address` and `n_actors` need the ray backend")
    if n_actors is not None:
        check_positive_int(n_actors, "n_actors")


def low_power(config: RunConfig) -> str | None:
    """A warning when the exact sign or Wilcoxon test of this configuration can never reject
    at its alpha, with the smallest p-value it can reach and the folds that would do; None
    otherwise. :func:`evaluate` issues it as a :class:`~distval.errors.LowPowerWarning`.

    >>> import textwrap
    >>> print(textwrap.fill(low_power(RunConfig(n_folds=5)), 80))
    with 5 folds the sign and Wilcoxon tests cannot reject at alpha = 0.05: their
    smallest p-value is 0.0625; 6 folds or more can
    >>> low_power(RunConfig(n_folds=10)) is None
    True
    """
    tests = [
        t
        for t in ("sign", "wilcoxon")
        if t in (config.tests or ()) and not (t == "sign" and config.sign_method == "critical")
    ]
    floors = {t: smallest_pvalue(t, config.n_folds) for t in tests}
    blind = [t for t in tests if floors[t] > config.alpha]
    if not blind:
        return None
    names = " and ".join("Wilcoxon" if t == "wilcoxon" else t for t in blind)
    floor = min(floors[t] for t in blind)
    need = max((folds_to_reach(t, config.alpha) or 0) for t in blind)
    reach = f"; {need} folds or more can" if need else ""
    s = "s" if len(blind) > 1 else ""
    return (
        f"with {config.n_folds} folds the {names} test{s} cannot reject at alpha = "
        f"{config.alpha:g}: {'their' if s else 'its'} smallest p-value is {floor:.4g}{reach}"
    )


def no_horizon(config: RunConfig, stream: Stream) -> str | None:
    """The notice of ``--sequential spending`` on a stream of unknown length without
    ``--planned-rows`` (its checks then spend a series that needs no horizon); else None.

    >>> from distval.streams import open_stream
    >>> cfg = RunConfig(stream="sea", n_rows=5000, sequential="spending")
    >>> no_horizon(cfg, open_stream("sea", n_rows=5000)) is None
    True
    """
    if config.sequential != "spending" or spending_horizon(config, stream) is not None:
        return None
    return (
        "--sequential spending: the stream's length is unknown and --planned-rows was not "
        "given, so check k spends alpha*6/(pi^2 k^2) (valid at any number of checks, less "
        "power than a planned horizon)"
    )


def _steps(
    backend: str,
    config: RunConfig,
    stream: Stream,
    address: str | None,
    n_actors: int | None,
    resume: Checkpoint | None = None,
    checkpoint_seconds: float | None = None,
    timeline: Timeline | None = None,
) -> Iterator[Step]:
    every = checkpoint_seconds
    if backend == "ray":
        from distval.ray_backend.engine import iter_ray

        return iter_ray(config, stream, address=address, n_actors=n_actors, resume=resume,
                        checkpoint_seconds=every, timeline=timeline)
    if backend == "auto":
        from distval.ray_backend.auto import iter_auto

        return iter_auto(config, stream, resume=resume, checkpoint_seconds=every,
                         timeline=timeline)
    return iter_inprocess(config, stream, resume=resume, checkpoint_seconds=every)


def _drive(run: Run, steps: Iterator[Step]) -> EvaluationResult:
    """Feed ``steps`` to ``run``; its result (one type for every task). Stopped by an
    error or an interrupt, the engine is closed at once (its Ray shut down, or its start
    abandoned), not when the garbage collector gets to it."""
    try:
        for step in steps:
            run.feed(step)
    except BaseException:
        run.close(interrupted=True)
        if isinstance(steps, Generator):
            with contextlib.suppress(Exception):  # the first error is the one to see
                steps.close()
        raise
    return run.close()


def evaluate(
    config: RunConfig | None = None,
    *,
    output_dir: str | os.PathLike[str] | None = None,
    overwrite: bool = False,
    progress: bool | Callable[[int], None] = False,
    backend: str = "inprocess",
    address: str | None = None,
    n_actors: int | None = None,
    source: Stream | None = None,
    checkpoint_seconds: float | None = CHECKPOINT_SECONDS,
    observer: RunObserver | None = None,
    **options: Any,
) -> EvaluationResult:
    """Evaluate learners on a stream under k-fold distributed validation.

    Give a :class:`~distval.config.RunConfig` or its fields as keywords. Results are returned
    and, with ``output_dir``, written there as they are produced. ``backend="ray"`` runs the
    learners in Ray actors (``n_actors``, default one per CPU) on a local Ray or, with
    ``address``, on a cluster; both backends give identical numbers. ``source`` evaluates
    a :class:`~distval.streams.Stream` object (e.g. a permuted copy) instead of opening
    ``config.stream``. ``backend="auto"`` starts in-process at once and moves the run to a
    local Ray, at a batch boundary, only if its measured speed projects more than 30 s still
    to go (:mod:`distval.ray_backend.auto`); with ``address`` or ``n_actors`` it is ``"ray"``.
    With ``output_dir``, the run's state is saved there every ``checkpoint_seconds`` (None:
    never), so that :func:`resume` can continue it after an interruption. ``progress``:
    True draws a bar; a function is called with the rows done after every batch.
    ``observer`` (:class:`~distval.engine.observer.RunObserver`, such as the live page's
    :class:`~distval.live.LiveState`) is told of every snapshot and of the end.

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
    check_backend(backend, address, n_actors)
    stream = source if source is not None else open_config_stream(config)
    warning = low_power(config)
    if warning:  # once, at the start, when the input is known to be good
        warnings.warn(warning, LowPowerWarning, stacklevel=2)
    notice = no_horizon(config, stream)
    if notice:
        warnings.warn(notice, DistvalWarning, stacklevel=2)
    for notice in minibatch_notices(config.specs, stream.n_rows or config.n_rows):
        warnings.warn(notice, DistvalWarning, stacklevel=2)
    check_time_column(config.label_delay, stream.nominal)
    notice = untrained(config.label_delay, stream.n_rows or config.n_rows)
    if notice:
        warnings.warn(notice, DistvalWarning, stacklevel=2)
    if config.stream_text != config.stream:  # a Python object: opened, kept as its name
        config = dataclasses.replace(config, stream=config.stream_text)
    if backend == "auto" and (address or n_actors):
        backend = "ray"
    run = Run(
        config,
        stream,
        output_dir=output_dir,
        overwrite=overwrite,
        progress=progress,
        backend=backend,
        observer=observer,
    )
    every = checkpoint_seconds if output_dir is not None else None
    steps = _steps(backend, config, stream, address, n_actors, None, every, run.timeline)
    return _drive(run, steps)


def finished(directory: str | os.PathLike[str]) -> bool:
    """Whether a results directory holds a run that got to the end of its stream."""
    try:
        summary = json.loads((Path(directory) / "summary.json").read_text())
    except (OSError, ValueError):
        return False
    return isinstance(summary, dict) and summary.get("interrupted") is False


def resume(
    directory: str | os.PathLike[str],
    *,
    progress: bool | str = False,
    backend: str = "inprocess",
    address: str | None = None,
    n_actors: int | None = None,
    checkpoint_seconds: float | None = CHECKPOINT_SECONDS,
    observer: RunObserver | None = None,
) -> EvaluationResult:
    """Continue the interrupted run of ``directory`` from its last checkpoint, with its own
    configuration (``config.json``), on any backend; the tables are cut back to the
    checkpoint and the run goes on appending to them. The result (and every table) is that
    of the run had it not been interrupted. A finished run is returned as it is.

    >>> import distval, tempfile
    >>> d = tempfile.mkdtemp()
    >>> res = distval.evaluate(stream="sea", n_rows=400, learners=("nb", "majority"),
    ...                        n_folds=2, test_every=200, output_dir=d, overwrite=True)
    >>> finished(d), resume(d).folds().equals(res.folds())
    (True, True)
    """
    d = Path(directory)
    if not d.is_dir():
        raise DistvalError(f"results directory {d} does not exist")
    if finished(d):
        return load_evaluation(d)
    check_backend(backend, address, n_actors)
    lock = DirectoryLock.take(d)  # before anything is read: a live run's directory is refused
    try:
        run = _resumed(d, lock, progress, backend, address, n_actors, observer)
    except BaseException:
        lock.release()
        raise
    if backend == "auto" and (address or n_actors):
        backend = "ray"
    steps = _steps(backend, run.config, run.stream, address, n_actors,
                   run.resumed_from, checkpoint_seconds, run.timeline)
    return _drive(run, steps)


def _resumed(
    d: Path,
    lock: DirectoryLock,
    progress: bool | str,
    backend: str,
    address: str | None,
    n_actors: int | None,
    observer: RunObserver | None = None,
) -> Run:
    """The :class:`Run` that goes on from ``d``'s checkpoint: its header, then its run id
    against ``config.json``'s, its digest, then what it holds, checked before use."""
    header = checkpoint_header(d)
    try:
        saved = read_config(json.loads((d / "config.json").read_text()), str(d / "config.json"))
    except OSError as exc:
        raise DistvalError(f"cannot read {d / 'config.json'}: {exc.strerror or exc}") from None
    except (ValueError, RecursionError) as exc:
        raise DistvalError(f"{d / 'config.json'} is not valid JSON: {exc}") from None
    run_id = saved.get(RUN_ID)
    state, written = read_checkpoint(d, run_id if isinstance(run_id, str) else "")
    _check_state(state, d / CHECKPOINT)
    names = {f.name for f in dataclasses.fields(RunConfig)}
    config = RunConfig.from_dict({k: v for k, v in saved.items() if k in names})
    if state.get("config") != config.to_dict():
        raise DistvalError(
            f"{d / 'config.json'} is not the configuration its checkpoint was written with"
        )
    stream = open_config_stream(config)
    _check_stream(state, config, stream)
    state["elapsed"] = _seconds_before(d, state)
    if backend == "auto" and (address or n_actors):
        backend = "ray"
    return Run(config, stream, output_dir=d, progress=progress, backend=backend,
               resume=(state, written), run_id=header[RUN_ID], lock=lock, observer=observer)


def _seconds_before(d: Path, state: dict[str, Any]) -> float:
    """The seconds the run had taken when it stopped: the interrupted run's summary
    (written as it stopped, so it counts the time after its last checkpoint too), else
    its checkpoint's (a run killed before it could write its summary)."""
    at_checkpoint = float(state["elapsed"])
    try:
        summary = json.loads((d / "summary.json").read_text())
    except (OSError, ValueError, RecursionError):
        return at_checkpoint
    if not isinstance(summary, dict) or summary.get("interrupted") is not True:
        return at_checkpoint
    seconds = summary.get("elapsed_seconds")
    if not isinstance(seconds, (int, float)) or not math.isfinite(seconds):
        return at_checkpoint
    return max(at_checkpoint, float(seconds))


def _check_stream(state: dict[str, Any], config: RunConfig, stream: Stream) -> None:
    """Refuse to go on on other data than the checkpoint's: a stream whose fingerprint
    (:mod:`distval.streams.fingerprint`) changed, or one that ends before its row."""
    from distval.streams.fingerprint import changed, stream_fingerprint

    before = state.get("stream")
    if isinstance(before, dict):  # a checkpoint of an older distval has none
        why = changed(before, stream_fingerprint(stream, config.stream, config.seed))
        if why:
            raise DistvalError(
                f"the stream {config.stream} is not the one this run was checkpointed on: "
                f"{why}; a resume needs the same data (start a new run for this one)")
    rows = state["checkpoint"].rows
    if stream.n_rows is not None and rows > stream.n_rows:
        raise DistvalError(
            f"the checkpoint is at row {rows}, beyond the end of the stream {config.stream} "
            f"({stream.n_rows} rows): it is not the stream this run was checkpointed on")


def _check_state(state: object, path: Path) -> None:
    """Refuse a checkpoint's state that is not what :class:`Run` saves: a dict of the
    :class:`Checkpoint` (its row, learner hosts and aggregator), the configuration, the
    rows each place evaluated and the seconds so far."""
    from distval.aggregator.base import BaseAggregator
    from distval.learners.host import LearnerHost

    cp = state.get("checkpoint") if isinstance(state, dict) else None
    by = state.get("evaluated_by") if isinstance(state, dict) else None
    ok = (
        isinstance(state, dict)
        and isinstance(cp, Checkpoint)
        and type(cp.rows) is int
        and cp.rows >= 0
        and isinstance(cp.hosts, list)
        and len(cp.hosts) > 0
        and all(isinstance(h, LearnerHost) for h in cp.hosts)
        and isinstance(cp.aggregator, BaseAggregator)
        and isinstance(state.get("config"), dict)
        and isinstance(by, dict)
        and all(isinstance(k, str) and type(v) is int for k, v in by.items())
        and isinstance(state.get("elapsed"), (int, float))
    )
    if not ok:
        raise DistvalError(f"{path} does not hold a run's state (damaged, or not distval's)")
