"""One bounded fan-out of independent tasks on Ray, for the studies.

``map_tasks(fn, items, shared=...)`` runs ``fn(*shared, item)`` as Ray tasks, at most
``limit`` at a time, and yields ``(index, result)`` as each finishes. Large ``shared``
arguments go to the object store once. A failed task raises its own :class:`DistvalError`,
or one that names the item; the tasks still running are cancelled.

With ``progress=on_rows`` each task also gets a last argument, a :class:`RowsReporter`: a
picklable callable the task tells how far it is (``report(rows_done)``, as often as it likes:
it passes on at most one count a second). The counts go to a small Ray actor (a board of
the latest count per task); the driver reads the board while it waits for the tasks, at most
every ``poll`` seconds, and calls ``on_rows(index, rows_done)`` for every count that changed,
before the task's result.

>>> def power(base, exponent):
...     return base**exponent
>>> with ray_session():
...     sorted(map_tasks(power, [1, 2, 3], shared=(2,), limit=2))
[(0, 2), (1, 4), (2, 8)]
>>> def count(n, report):
...     for i in range(1, n + 1):
...         report(i * 100)
...         time.sleep(1.2)   # one batch
...     return n
>>> seen = []
>>> with ray_session():
...     done = list(map_tasks(count, [2], progress=lambda i, rows: seen.append((i, rows)),
...                           poll=0.2))
>>> done, seen[-1]  # the last count; earlier ones may be overtaken on a busy machine
([(0, 2)], (0, 200))
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import ray
from ray.exceptions import RayError

from distval.errors import DistvalError
from distval.ray_backend.session import ray_session, unwrap

__all__ = ["RowsReporter", "cluster_cpus", "map_tasks", "ray_session"]


def cluster_cpus() -> int:
    """The CPUs of the running Ray cluster (all its nodes), at least 1.

    >>> with ray_session():
    ...     cluster_cpus() >= 1
    True
    """
    return max(1, int(ray.cluster_resources().get("CPU", 1)))  # type: ignore[no-untyped-call]


class _RowsBoard:
    """The latest rows-done count of every task (a Ray actor: the tasks post, the driver
    takes what changed)."""

    def __init__(self) -> None:
        self.counts: dict[int, int] = {}

    def post(self, index: int, rows: int) -> None:
        self.counts[index] = rows

    def take(self) -> dict[int, int]:
        out, self.counts = self.counts, {}
        return out


class RowsReporter:
    """What a task of :func:`map_tasks` calls with its rows done: posts the count to the
    board at most every ``every`` seconds (and its first count at once), so that a run
    reporting after every batch costs the task next to nothing."""

    def __init__(self, board: Any, index: int, every: float = 1.0) -> None:
        self.board, self.index, self.every = board, index, every
        self._last = -float("inf")

    def __call__(self, rows: int) -> None:
        now = time.monotonic()
        if now - self._last >= self.every:
            self._last = now
            self.board.post.remote(self.index, int(rows))


def map_tasks(
    fn: Callable[..., Any],
    items: Sequence[Any],
    *,
    shared: tuple[Any, ...] = (),
    limit: int | None = None,
    num_cpus: float = 1,
    max_retries: int = 1,
    name: Callable[[Any], str] = str,
    options: Callable[[Any], dict[str, Any]] | None = None,
    progress: Callable[[int, int], None] | None = None,
    poll: float = 1.0,
) -> Iterator[tuple[int, Any]]:
    """``(index, fn(*shared, items[index]))`` for every item, in order of completion;
    ``options(item)``, if given, are that item's task options (``num_cpus``,
    ``scheduling_strategy``, ...) in place of ``num_cpus``. With ``progress``, ``fn`` gets a
    :class:`RowsReporter` as its last argument and ``progress(index, rows_done)`` hears
    what the tasks report (see the module)."""
    task = ray.remote(num_cpus=num_cpus, max_retries=max_retries)(fn)
    refs = [ray.put(s) for s in shared]
    queue = list(enumerate(items))[::-1]
    running: dict[Any, int] = {}
    cap = max(1, limit or len(items))
    board: Any = None
    if progress is not None:
        board = ray.remote(num_cpus=0)(_RowsBoard).remote()

    def relay() -> None:
        if board is not None and progress is not None:
            for index, rows in ray.get(board.take.remote()).items():
                progress(index, rows)

    try:
        while queue or running:
            while queue and len(running) < cap:
                i, item = queue.pop()
                call = task.options(**options(item)) if options is not None else task
                extra = () if board is None else (RowsReporter(board, i),)
                running[call.remote(*refs, item, *extra)] = i
            timeout = None if board is None else poll
            ready, _ = ray.wait(list(running), num_returns=1, timeout=timeout)
            relay()
            if not ready:
                continue
            i = running.pop(ready[0])
            try:
                result = ray.get(ready[0])
            except RayError as exc:
                cause = unwrap(exc)
                if isinstance(cause, DistvalError):
                    raise cause from None
                raise DistvalError(f"{name(items[i])} failed on Ray: {exc}") from None
            yield i, result
    finally:
        for ref in running:
            ray.cancel(ref, force=True)
        if board is not None:
            ray.kill(board)
