"""One resumable study runner: named parts, run in this process or as Ray tasks, with progress.

A study (``distval suite``'s streams, the copies of ``distval run --permute``, the cells of
``distval reproduce type-errors``) is a list of :class:`Part` s; a part is one run that
writes its own results (a directory, or a line of the grid's ``cells.jsonl``). The runner

- asks ``finished(part)`` for the record of a part already complete on disk, and skips it;
- runs the others with ``compute(*shared, part)``: one after another in this process, or as
  Ray tasks (on local cores or a cluster at ``address``) through
  :func:`distval.ray_backend.tasks.map_tasks`, which retries a task whose worker or node is
  lost. ``compute`` must be free of side effects (it returns what the part produced), so a
  retried task is harmless. On Ray the costliest parts start first (by ``weight``); with
  at least as many parts as cores each is a task of one CPU, and with fewer (all of them
  running at once) the cores are shared out by :func:`share_cores`: a part whose run has
  several replicas (``replicas``) gets ``actors`` of them, and ``compute`` spreads its
  replicas over that many Ray actors (the part's task then only drives them: no CPU of
  its own, placed SPREAD over the cluster's nodes);
- hands each result to ``store(part, result)`` in the driver, which writes the part's
  directory and returns its record, then calls ``on_record(records)`` (e.g. to refresh the
  study's tables);
- shows one :class:`StudyProgress` line: parts done, the projected finish, the running ones.

>>> import io
>>> parts = [Part("a", 1.0, 2), Part("b", 1.0, 3)]
>>> out = io.StringIO()
>>> run_study(parts, lambda base, part: base**part.payload, shared=(10,), finished=lambda p: None,
...           store=lambda p, r: r, progress=StudyProgress("demo", parts, stream=out))
{'a': 100, 'b': 1000}
>>> out.getvalue().splitlines()[-1].split(",")[0]
'demo: 2/2 parts (100%)'
"""

from __future__ import annotations

import dataclasses
import functools
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import IO, Any

from distval.errors import DistvalError

__all__ = ["Part", "StudyProgress", "duration", "longest_first", "run_study", "share_cores"]


@dataclass(frozen=True)
class Part:
    """One run of a study: ``name`` (its directory), ``weight`` (its expected cost, e.g. rows
    or CPU seconds, for the projected finish and the order on Ray), ``payload`` (what
    ``compute`` needs to run it), ``replicas`` (how many Ray actors its run could use: its
    learners x folds; 1: it runs in one process) and ``actors`` (how many it is given:
    set by :func:`run_study`; 1 means run it in this process)."""

    name: str
    weight: float = 1.0
    payload: Any = None
    replicas: int = 1
    actors: int = 1


def longest_first(parts: Sequence[Part]) -> list[Part]:
    """The parts, costliest first (ties in their given order): with tasks started in this
    order, no core is left with one long part at the end while the others idle (Graham's
    LPT rule, at most 4/3 of the best makespan; SIAM J. Appl. Math. 17, 1969).

    >>> [p.name for p in longest_first([Part("a", 1), Part("b", 3), Part("c", 1), Part("d", 2)])]
    ['b', 'd', 'a', 'c']
    """
    return sorted(parts, key=lambda p: -float(p.weight))


def share_cores(weights: Sequence[float], replicas: Sequence[int], cores: int) -> list[int]:
    """How many cores (actors) each of the parts running at once gets: one each, then every
    further core to the part that would finish last (the largest weight per core) among
    those that can still use one (fewer actors than replicas). The result minimises the
    largest weight per core; cores that no part can use stay unassigned.

    >>> share_cores([3.0, 1.0], [20, 20], 8)   # 3:1 in cost, 6:2 in cores
    [6, 2]
    >>> share_cores([3.0, 1.0], [4, 20], 8)    # the first can use only 4 actors
    [4, 4]
    >>> share_cores([1.0, 1.0, 1.0], [2, 2, 2], 16)
    [2, 2, 2]
    """
    if not weights:
        return []
    shares = [1] * len(weights)
    free = cores - len(weights)
    while free > 0:
        open_ = [i for i, r in enumerate(replicas) if shares[i] < r]
        if not open_:
            break
        i = max(open_, key=lambda j: (float(weights[j]) / shares[j], -j))
        shares[i] += 1
        free -= 1
    return shares


def duration(seconds: float) -> str:
    """A short human duration.

    >>> duration(42), duration(150), duration(4000), duration(200000)
    ('42 s', '2.5 min', '1 h 06 min', '2.3 days')
    """
    seconds = max(0.0, seconds)
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 3600:
        return f"{seconds / 60:.1f} min"
    if seconds < 48 * 3600:
        return f"{seconds // 3600:.0f} h {seconds % 3600 // 60:02.0f} min"
    return f"{seconds / 86400:.1f} days"


class StudyProgress:
    """The progress line of a study: parts done, projected finish, the running parts.

    The projected finish divides the weight (e.g. rows) left by the weight finished per
    second in this session (parts reused from disk are not timed), counted from the first
    report of progress: the start-up before it (a Ray cluster, the workers' imports) would
    otherwise count as slow progress, and the first projections would run many times too
    long (13.6 min for a 2.5-min suite) before converging. On a terminal the line is
    rewritten in place every second; elsewhere (a log file, a cluster job) a plain line is
    printed at most every ``every`` seconds and at the end.
    """

    def __init__(
        self,
        label: str,
        parts: Sequence[Part],
        *,
        unit: str = "parts",
        stream: IO[str] | None = None,
        every: float = 30.0,
    ) -> None:
        self.label, self.unit = label, unit
        self.weights = {p.name: float(p.weight) for p in parts}
        self.total = len(parts)
        self.done: set[str] = set()
        self.fresh = 0.0  # weight finished in this session
        self.running: dict[str, float] = {}
        #: Rows done so far by each running part (in-process runs report them per batch).
        self.rows_done: dict[str, int] = {}
        #: How the line names the started parts (on Ray: submitted, maybe still queued).
        self.started_label = "running"
        self.stream = stream if stream is not None else sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.every = every
        self.t0 = time.monotonic()
        #: (time, weight done) at the first report of progress: the speed is measured from it.
        self._first: tuple[float, float] | None = None
        self.last = -float("inf")
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None
        if self.tty:
            self._ticker = threading.Thread(target=self._tick, daemon=True)
            self._ticker.start()

    def reused(self, name: str) -> None:
        """A part found complete on disk."""
        self.done.add(name)

    def start(self, name: str) -> None:
        with self._lock:
            self.running[name] = time.monotonic()
        self._show(force=True)

    def rows(self, name: str, done: int) -> None:
        """A running part has evaluated ``done`` of its rows (its weight); a count that
        arrives after the part finished is dropped."""
        with self._lock:
            if name in self.done:
                return
            self.rows_done[name] = done
            self._mark_first()
        self._show(force=True)

    def finish(self, name: str) -> None:
        with self._lock:
            self.running.pop(name, None)
            self.rows_done.pop(name, None)
            self.done.add(name)
            self.fresh += self.weights.get(name, 1.0)
            self._mark_first()
        self._show(force=True)

    def _mark_first(self) -> None:
        if self._first is None:
            self._first = (time.monotonic(), self.fresh + float(sum(self.rows_done.values())))

    def line(self) -> str:
        now = time.monotonic()
        with self._lock:
            n = len(self.done)
            text = (
                f"{self.label}: {n}/{self.total} {self.unit} ({100 * n / max(1, self.total):.0f}%)"
            )
            elapsed = now - self.t0
            partial = float(sum(self.rows_done.values()))  # rows of the running parts
            left = sum(w for k, w in self.weights.items() if k not in self.done) - partial
            text += f", {duration(elapsed)} elapsed"
            done_w = self.fresh + partial
            eta = None
            if self._first is not None and done_w > self._first[1] and now > self._first[0]:
                eta = left / ((done_w - self._first[1]) / (now - self._first[0]))
            elif done_w > 0:  # one report so far: from the start
                eta = left / done_w * elapsed
            if eta is not None and left > 0:
                text += f", about {duration(eta)} left"
            if self.running:
                shown = [f"{k} ({self._within(k, now - t)})"
                         for k, t in list(self.running.items())[:3]]
                more = len(self.running) - len(shown)
                text += f", {self.started_label} " + ", ".join(shown)
                text += f" and {more} more" if more else ""
        return text

    def _within(self, name: str, seconds: float) -> str:
        """How far a running part is: its rows done of its rows, when it reports them."""
        done = self.rows_done.get(name)
        if done is None:
            return duration(seconds)
        return f"{done:,}/{self.weights.get(name, 0):,.0f} rows, {duration(seconds)}"

    def _show(self, force: bool = False) -> None:
        now = time.monotonic()
        if self.tty:
            self.stream.write("\r\033[K" + self.line())
            self.stream.flush()
        elif force and (now - self.last >= self.every or len(self.done) == self.total):
            self.last = now
            print(self.line(), file=self.stream, flush=True)

    def _tick(self) -> None:
        while not self._stop.wait(1.0):
            self._show()

    def close(self) -> None:
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join()
            self.stream.write("\r\033[K" + self.line() + "\n")
        elif self.last < 0 or len(self.done) < self.total:
            print(self.line(), file=self.stream, flush=True)
        self.stream.flush()


def run_study(
    parts: Sequence[Part],
    compute: Callable[..., Any],
    *,
    finished: Callable[[Part], Any],
    store: Callable[[Part, Any], Any],
    shared: tuple[Any, ...] = (),
    on_record: Callable[[dict[str, Any]], None] | None = None,
    backend: str = "inprocess",
    address: str | None = None,
    limit: int | None = None,
    max_retries: int = 3,
    progress: StudyProgress | None = None,
    reports_rows: bool = False,
) -> dict[str, Any]:
    """Run every part not finished on disk; returns ``{part name: record}`` in part order.

    ``finished(part)`` returns the record of a complete part, or None to run it;
    ``compute(*shared, part)`` computes a part (in a Ray task with ``backend="ray"``: it
    must be picklable and free of side effects); ``store(part, result)`` writes it, in
    this process, and returns its record. ``limit`` caps the parts running at once on Ray;
    ``max_retries`` is how often Ray reruns a part whose worker or node died. On Ray, parts
    with ``replicas`` > 1 may be handed to ``compute`` with ``actors`` > 1 (see the module's
    description); in this process ``actors`` stays 1. With ``reports_rows`` and a
    ``progress``, ``compute`` gets a last argument, a callable it tells its rows done (after
    each batch, say), which ``progress`` shows within the part: in this process directly, on
    Ray through :func:`~distval.ray_backend.tasks.map_tasks`' reporter (at most once a second).
    """
    if backend not in ("inprocess", "ray"):
        raise DistvalError(f"unknown backend {backend!r}; choose inprocess or ray")
    names = [p.name for p in parts]
    if len(set(names)) != len(names):
        raise DistvalError(f"parts must have distinct names, got {names}")
    records: dict[str, Any] = {}
    todo: list[Part] = []
    for part in parts:
        record = finished(part)
        if record is None:
            todo.append(part)
        else:
            records[part.name] = record
            if progress is not None:
                progress.reused(part.name)

    def keep(part: Part, result: Any) -> None:
        records[part.name] = store(part, result)
        if progress is not None:
            progress.finish(part.name)
        if on_record is not None:
            on_record({n: records[n] for n in names if n in records})

    try:
        rows = progress if reports_rows else None
        if backend == "ray" and todo:
            _on_ray(todo, compute, shared, keep, address, limit, max_retries, progress, rows)
        else:
            for part in todo:
                if progress is not None:
                    progress.start(part.name)
                tell = () if rows is None else (functools.partial(rows.rows, part.name),)
                keep(part, compute(*shared, part, *tell))
    finally:
        if progress is not None:
            progress.close()
    return {n: records[n] for n in names if n in records}


def _on_ray(
    todo: list[Part],
    compute: Callable[..., Any],
    shared: tuple[Any, ...],
    keep: Callable[[Part, Any], None],
    address: str | None,
    limit: int | None,
    max_retries: int,
    progress: StudyProgress | None,
    rows: StudyProgress | None = None,
) -> None:
    from distval.ray_backend.tasks import cluster_cpus, map_tasks, ray_session

    with ray_session(address):
        todo = longest_first(todo)
        cap = limit or len(todo)
        cores = cluster_cpus()
        if len(todo) < cores and cap >= len(todo):  # every part at once, cores to spare
            shares = share_cores([p.weight for p in todo], [p.replicas for p in todo], cores)
            todo = [dataclasses.replace(p, actors=a) for p, a in zip(todo, shares, strict=True)]
        if progress is not None:  # map_tasks submits in order, at most `cap` at a time
            progress.started_label = "on Ray"
            for part in todo[:cap]:
                progress.start(part.name)
        submitted = min(cap, len(todo))
        for i, result in map_tasks(
            compute,
            todo,
            shared=shared,
            limit=limit,
            max_retries=max_retries,
            name=lambda p: f"{p.name}",
            options=_task_options,
            progress=None if rows is None else lambda i, done: rows.rows(todo[i].name, done),
        ):
            keep(todo[i], result)
            if progress is not None and submitted < len(todo):
                progress.start(todo[submitted].name)
            submitted += 1


def _task_options(part: Part) -> dict[str, Any]:
    """Ray options of a part's task: one CPU for a run in the task's process; none for one
    that drives its own actors (they hold its cores), spread over the nodes."""
    if part.actors > 1:
        return {"num_cpus": 0, "scheduling_strategy": "SPREAD"}
    return {"num_cpus": 1}
