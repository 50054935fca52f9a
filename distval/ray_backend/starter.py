"""Start Ray and a run's actors in a background thread while the driver evaluates.

``ray.init`` is seconds of Python work (starting the cluster's processes and connecting to
them) plus waiting; the actors' processes then take seconds more to boot. Neither needs
the driver, which meanwhile evaluates the first batches itself
(:class:`~distval.engine.loop.LocalEvaluation`) and hands its state over once every actor is up.
This module imports nothing of Ray itself: the thread does, so that the driver's first rows
never wait for Ray's import either.

Beside an evaluation that holds Python's lock, the starting thread gets it only every
switch interval (5 ms by default), and ``ray.init`` hands the lock over thousands of times:
it then took several times as long. While Ray starts, the interval is cut to
:data:`START_SWITCH_SECONDS` and restored afterwards.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["CLOSE_WAIT_SECONDS", "START_SWITCH_SECONDS", "RayStarter"]

#: Seconds :meth:`RayStarter.close` waits, once the run is over, for a start still under
#: way (a private Ray's start ends, in success or Ray's own time-out, well before).
CLOSE_WAIT_SECONDS = 60.0
#: Python's thread switch interval while Ray starts beside an evaluation.
START_SWITCH_SECONDS = 0.0005


class RayStarter:
    """Starts (or joins, at ``address``) Ray and builds ``make()`` (a ``RayRun``) in a
    background thread; ``mark`` (``Timeline.mark``) records ``ray_init_start``,
    ``ray_init_end`` and ``actors_up``.

    The thread stays alive until :meth:`close`: Ray ties the local cluster's processes (GCS,
    raylet) to the thread that started them (they are killed when it ends: a hand-over
    after that found the GCS gone and the driver terminated a minute later).

    ``ray.init`` installs Ray's C++ crash handler for SIGTERM in any thread, but only the
    main thread may set a Python handler again: the first :meth:`ready` or :meth:`wait`
    after ``ray.init`` returns (the driver's loop, in the main thread) reinstalls the Python SIGTERM
    handler the caller had (the command line's, which closes the results as Ctrl-C does).

    Closed by Ctrl-C (or SIGTERM, which the command line turns into it) while ``ray.init``
    runs, :meth:`close` does not wait for it (it then waited 6-11 s for processes the
    signal had ended): it kills the processes that start has started so far (this
    process's descendants that run Ray; none of a Ray it joins) and returns at once; the
    thread shuts down whatever else it built once its start returns.
    """

    def __init__(
        self,
        make: Callable[[], Any],
        address: str | None = None,
        mark: Callable[[str], None] | None = None,
    ) -> None:
        self.run: Any = None
        self.error: BaseException | None = None
        self.started = False
        self._signals_kept = False
        self._abandoned = False
        self._initialising = False  # in session._start (ray.init)
        self._mark = mark or (lambda event: None)
        self._up = threading.Event()  # Ray and the run exist, or the start failed
        self._stop = threading.Event()
        self._switch = sys.getswitchinterval()
        sys.setswitchinterval(min(self._switch, START_SWITCH_SECONDS))
        self._thread = threading.Thread(
            target=self._start, args=(make, address), name="distval-ray-start", daemon=True
        )
        self._thread.start()

    def _start(self, make: Callable[[], Any], address: str | None) -> None:
        # What this thread forks (Ray's GCS, raylet, ...) inherits its signal mask, so SIGINT
        # is blocked there from the fork on. Ray's own preexec_fn blocks it in each process
        # too, but only once Python runs again in the forked child: a Ctrl-C to the terminal
        # group in between raised KeyboardInterrupt in that child, and its traceback reached
        # the command's stderr. The main thread, which does not block it, takes the Ctrl-C.
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            self._mark("ray_init_start")
            from distval.ray_backend.session import _start

            self._initialising = True
            self.started = _start(address)
            self._initialising = False
            self._mark("ray_init_end")
            self.run = make()
        except BaseException as exc:  # reported to the driver, which then stays in-process
            self.error = exc
        finally:
            sys.setswitchinterval(self._switch)
        self._up.set()
        self._stop.wait()  # keeps the cluster's processes alive (class docstring)
        if self._abandoned:  # closed by an interrupt before the start returned
            self._shut_down()

    def wait_started(self) -> None:
        """Block until Ray runs and the actors are asked for (or the start failed)."""
        self._up.wait()

    def _keep_python_sigterm(self) -> None:
        """Once Ray has started, set the caller's Python SIGTERM handler again (class
        docstring); only the main thread can, so elsewhere this waits for a later call."""
        if self._signals_kept or threading.current_thread() is not threading.main_thread():
            return
        self._signals_kept = True
        handler = signal.getsignal(signal.SIGTERM)
        if callable(handler):
            signal.signal(signal.SIGTERM, handler)

    def ready(self) -> bool:
        """Whether Ray and every actor are up (False while booting or if the start failed)."""
        if self.started or self._up.is_set():  # ray.init has returned: its handler goes
            self._keep_python_sigterm()
        if not self._up.is_set():
            return False
        if self.run is None:
            return False
        up = bool(self.run.ready())
        if up:
            self._mark("actors_up")
        return up

    def warm(self, seconds: float) -> bool:
        """Whether every actor of the run came warm from a running Ray's pool
        (:mod:`~distval.ray_backend.fleet`), waiting at most ``seconds`` for Ray and the
        run to exist: then the driver had better hand over at once than evaluate on."""
        if not self._up.wait(seconds) or self.run is None:
            return False
        actors = self.run.actors
        return bool(actors.leased == len(actors.all))

    def wait(self) -> None:
        """Block until Ray and the actors are up (or their start failed)."""
        self._up.wait()
        self._keep_python_sigterm()
        while self.run is not None and not self.ready():
            time.sleep(0.02)

    def close(self) -> None:
        """Kill the actors and shut down a Ray this started; by an interrupt while Ray
        still starts, at once, without waiting for the start (class docstring)."""
        if not self._up.is_set() and _interrupted():
            self._abandon()
            return
        if not self._up.wait(CLOSE_WAIT_SECONDS):  # an address that accepts, never answers
            import warnings

            from distval.errors import DistvalWarning

            self._abandon()
            warnings.warn(f"Ray did not answer in {CLOSE_WAIT_SECONDS:g} s after the run's "
                          "end; the run went on in-process", DistvalWarning, stacklevel=2)
            return
        self._shut_down()
        self._stop.set()
        self._thread.join()

    def _abandon(self) -> None:
        """Leave the start to itself (its thread shuts down what it built, if it ever
        returns), killing what it has started of a private Ray so far."""
        self._abandoned = True
        self._stop.set()
        if self._initialising or self.started:
            _kill_ray_descendants()

    def _shut_down(self) -> None:
        if self.started:  # the run is over: what its actors' processes say as they are
            from distval.ray_backend.session import quiet_workers  # killed is noise

            quiet_workers()
        if self.run is not None:
            with contextlib.suppress(Exception):  # already gone: nothing to clean up
                self.run.actors.kill()
        if self.started:
            from distval.ray_backend.session import _stop

            self._mark("shutdown_start")
            _stop()
            self._mark("shutdown_end")


def _interrupted() -> bool:
    """Whether the exception being handled is, or arose from, an interrupt (Ctrl-C, or
    SIGTERM turned into it): a generator closed while one propagates gets ``GeneratorExit``.

    >>> try:
    ...     raise KeyboardInterrupt
    ... except KeyboardInterrupt:
    ...     _interrupted()
    True
    >>> _interrupted()
    False
    """
    exc = sys.exc_info()[1]
    while exc is not None:
        if isinstance(exc, KeyboardInterrupt):
            return True
        exc = exc.__context__
    return False


def _kill_ray_descendants() -> None:
    """SIGKILL the processes below this one that run Ray (a GCS, raylet, agents and
    workers that ``ray.init`` is starting), the whole tree as it stands first, then once
    more for any started meanwhile; nothing where there is no ``/proc``."""
    for _ in range(2):
        for pid in _ray_descendants():
            with contextlib.suppress(OSError):  # gone already
                os.kill(pid, signal.SIGKILL)


def _ray_descendants() -> list[int]:
    """This process's descendants whose command line is Ray's (a path in Ray's package,
    or a Ray worker's title ``ray::...``), from ``/proc``.

    >>> os.getpid() in _ray_descendants()  # below this process, never itself
    False
    """
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):  # gone meanwhile
            text = stat.read_text()
            children.setdefault(int(text.rsplit(")", 1)[1].split()[1]), []).append(
                int(text.split()[0]))
    found, todo = [], list(children.get(os.getpid(), []))
    while todo:
        pid = todo.pop()
        todo += children.get(pid, [])
        with contextlib.suppress(OSError):
            line = Path(f"/proc/{pid}/cmdline").read_bytes()
            if line.startswith(b"ray::") or b"/ray/" in line:
                found.append(pid)
    return found
