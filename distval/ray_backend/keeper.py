"""How a kept (detached) actor ends itself: a watchdog started by its constructor.

An actor kept warm in a running Ray outlives its driver (Ray's ``lifetime="detached"``),
so nothing of Ray ends it; it ends itself. Its constructor is given the seconds it is kept
and the Ray job id of the driver that creates it, and starts the watchdog at once, before
it does anything else: a driver killed at any instant, even before it could make a single
call to the actors it asked for, leaves no actor behind for longer than its keep. (An
actor whose creation Ray had not begun when its driver died is never started: Ray ends
the actors of a dead owner that it had not created yet.)

The watchdog asks Ray every few seconds whether a driver the actor serves is alive (its
run's driver; for the pool, every driver that leased from it), and :func:`due` decides:

- never during a call;
- a driver it serves is alive (or Ray cannot tell): after :data:`IN_RUN_SECONDS` without a
  call, at least its keep (a run calls its actors many times a second);
- no driver it serves is alive (killed, or the actor is idle in the pool): after its keep
  without a call — from the constructor on, so a driver killed while its actors were being
  created counts as one that left them there.

This module imports nothing of distval: every Ray worker loads it with the actor bodies.

>>> due(idle_for=3.0, keep=2.0, working=False, serving=False)
True
>>> due(idle_for=3.0, keep=2.0, working=False, serving=True)   # its driver is alive
False
>>> due(idle_for=3.0, keep=2.0, working=True, serving=False)   # never during a call
False
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Iterable, Iterator
from typing import Any

__all__ = ["IN_RUN_SECONDS", "Kept", "alive_jobs", "driver_job", "due"]

#: Seconds without a call after which an actor whose driver is alive (or not known to be
#: gone) ends; at least its keep. A run calls its actors many times a second.
IN_RUN_SECONDS = 600.0

#: The longest the watchdog sleeps between two looks (a driver's death is seen this late).
LOOK_SECONDS = 2.0

_LOCK = threading.Lock()  # the set of drivers, changed by calls and by the watchdog


def due(idle_for: float, keep: float, working: bool, serving: bool | None) -> bool:
    """Whether a kept actor ends now: ``idle_for`` seconds since its last call, kept
    ``keep`` seconds, ``working`` on a call, ``serving`` a driver that is alive (None: Ray
    could not tell)."""
    if working:
        return False
    limit = keep if serving is False else max(keep, IN_RUN_SECONDS)
    return idle_for >= limit


def driver_job() -> str | None:
    """The Ray job id (hex) of this process's driver, None when not connected to Ray."""
    import ray

    if not ray.is_initialized():
        return None
    job: str = ray.get_runtime_context().get_job_id()
    return job


def alive_jobs(jobs: Iterable[str]) -> set[str] | None:
    """Those of ``jobs`` (Ray job ids, hex) whose driver Ray's job table holds alive (a
    driver killed is marked dead as soon as its node sees its connection close); None
    when Ray does not answer."""
    wanted = set(jobs)
    if not wanted:
        return set()
    try:
        from ray._private.state import state

        table = state.job_table()  # type: ignore[no-untyped-call]
    except Exception:
        return None
    return {j["JobID"] for j in table if j["JobID"] in wanted and not j["IsDead"]}


class Kept:
    """What a body kept warm in a running Ray shares: :meth:`watch` (from the constructor),
    :meth:`keep`, :meth:`ping`, :meth:`busy_with` around long calls, :meth:`idle`.

    >>> body = Kept()
    >>> body.ping() <= time.monotonic()
    True
    >>> with body.busy_with():
    ...     body._working
    True
    >>> body.keep(5.0, driver="01000000")    # without Ray: the watchdog is not started
    >>> sorted(body._drivers), body._keep_for
    (['01000000'], 5.0)
    >>> body.idle(); body._drivers
    set()
    """

    _seen = 0.0
    _keep_for = 0.0
    _working = False
    _watching = False
    _drivers: set[str] = set()  # noqa: RUF012  (replaced per instance before any change)

    def watch(self, seconds: float, driver: str | None) -> None:
        """From the constructor: kept ``seconds`` (0: not kept, Ray ends the actor with its
        driver), serving ``driver`` (a Ray job id) until :meth:`idle`."""
        self.keep(seconds, driver)

    def ping(self) -> float:
        """Mark a call (any call the driver or the pool makes); returns the time of it."""
        self._seen = time.monotonic()
        return self._seen

    def busy_with(self) -> Any:
        """A context for one call: the actor does not end while it runs."""

        @contextlib.contextmanager
        def working() -> Iterator[None]:
            self.ping()
            self._working = True
            try:
                yield
            finally:
                self._working = False
                self.ping()

        return working()

    def keep(self, seconds: float, driver: str | None = None) -> None:
        """Kept ``seconds`` from now on, serving ``driver`` (a run's, or one that leased
        from the pool) as well; the watchdog starts with the first keep of more than 0 s
        inside a Ray actor."""
        self.ping()
        self._keep_for = seconds
        with _LOCK:
            self._drivers = {*self._drivers, *([driver] if driver else [])}
        if seconds > 0 and not self._watching and _in_actor():
            self._watching = True
            threading.Thread(target=self._expire, name="distval-keep", daemon=True).start()

    def idle(self) -> None:
        """Back in the pool: it serves no driver, and ends after its keep without a call."""
        self.ping()
        with _LOCK:
            self._drivers = set()

    def _expire(self) -> None:
        while True:
            asked = set(self._drivers)
            alive = alive_jobs(asked)
            if alive is not None:
                with _LOCK:  # a dead driver never comes back; one added meanwhile stays
                    self._drivers = self._drivers - (asked - alive)
            serving = None if alive is None else bool(alive)
            idle_for = time.monotonic() - self._seen
            if due(idle_for, self._keep_for, self._working, serving):
                break
            time.sleep(LOOK_SECONDS)
        _end_self()


def _in_actor() -> bool:
    try:
        import ray

        return bool(ray.is_initialized() and ray.get_runtime_context().get_actor_id())
    except Exception:
        return False


def _end_self() -> None:
    """End this actor: ``ray.kill`` on itself (Ray marks it dead, no restart); the process
    exits if it still runs a while later (a kill Ray could not carry out)."""
    with contextlib.suppress(Exception):
        import ray

        ray.kill(ray.get_runtime_context().current_actor, no_restart=True)
        time.sleep(10.0)
    os._exit(0)
