"""One bounded fan-out of independent tasks on Ray, for the studies.

``map_tasks(fn, items, shared=...)`` runs ``fn(*shared, item)`` as Ray tasks, at most
``limit`` at a time, and yields ``(index, result)`` as each finishes. Large ``shared``
arguments go to the object store once. A failed task raises its own :class:`DistvalError`,
or one that names the item; the tasks still running are cancelled.

>>> def power(base, exponent):
...     return base**exponent
>>> with ray_session():
...     sorted(map_tasks(power, [1, 2, 3], shared=(2,), limit=2))
[(0, 2), (1, 4), (2, 8)]
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

import ray
from ray.exceptions import RayError

from distval.errors import DistvalError
from distval.ray_backend.session import ray_session, unwrap

__all__ = ["cluster_cpus", "map_tasks", "ray_session"]


def cluster_cpus() -> int:
    """The CPUs of the running Ray cluster (all its nodes), at least 1.

    >>> with ray_session():
    ...     cluster_cpus() >= 1
    True
    """
    return max(1, int(ray.cluster_resources().get("CPU", 1)))  # type: ignore[no-untyped-call]


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
) -> Iterator[tuple[int, Any]]:
    """``(index, fn(*shared, items[index]))`` for every item, in order of completion;
    ``options(item)``, if given, are that item's task options (``num_cpus``,
    ``scheduling_strategy``, ...) in place of ``num_cpus``."""
    task = ray.remote(num_cpus=num_cpus, max_retries=max_retries)(fn)
    refs = [ray.put(s) for s in shared]
    queue = list(enumerate(items))[::-1]
    running: dict[Any, int] = {}
    cap = max(1, limit or len(items))
    try:
        while queue or running:
            while queue and len(running) < cap:
                i, item = queue.pop()
                call = task.options(**options(item)) if options is not None else task
                running[call.remote(*refs, item)] = i
            ready, _ = ray.wait(list(running), num_returns=1)
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
