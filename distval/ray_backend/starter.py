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
import signal
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

__all__ = ["START_SWITCH_SECONDS", "RayStarter"]

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
    after the start (the driver's loop, in the main thread) reinstalls the Python SIGTERM
    handler the caller had (the command line's, which closes the results as Ctrl-C does).
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
        try:
            self._mark("ray_init_start")
            from distval.ray_backend.session import _start

            self.started = _start(address)
            self._mark("ray_init_end")
            self.run = make()
        except BaseException as exc:  # reported to the driver, which then stays in-process
            self.error = exc
        finally:
            sys.setswitchinterval(self._switch)
        self._up.set()
        self._stop.wait()  # keeps the cluster's processes alive (class docstring)

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
        if not self._up.is_set():
            return False
        self._keep_python_sigterm()
        if self.run is None:
            return False
        up = bool(self.run.ready())
        if up:
            self._mark("actors_up")
        return up

    def wait(self) -> None:
        """Block until Ray and the actors are up (or their start failed)."""
        self._up.wait()
        self._keep_python_sigterm()
        while self.run is not None and not self.ready():
            time.sleep(0.02)

    def close(self) -> None:
        self._up.wait()
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
        self._stop.set()
        self._thread.join()
