"""Start (or join) Ray for the length of a ``with`` block, and leave a caller's Ray alone.

>>> import ray
>>> with ray_session("local"):   # a private Ray, started here unless the caller runs Ray
...     ray.is_initialized()
True
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import signal
import socket
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import ray
from ray._private import ray_constants
from ray.exceptions import RayError

from distval.errors import DistvalError, RayUnavailable
from distval.learners.moa.jvm import keep_jvm_signals

__all__ = ["KEEP_ENV", "KEEP_SECONDS", "PRIVATE", "find_ray", "joining_line", "keep_seconds",
           "ray_session", "unwrap"]

#: Ray's notice when ``ray.init`` runs outside the main thread (the auto backend starts Ray
#: in a background thread; a Ray Client server starts each client's session in one and
#: streams its log to the client). Nothing to act on, and it broke the progress bar.
_THREAD_NOTICE = "SIGTERM handler is not set because current thread is not the main thread"


class _DropThreadNotice(logging.Filter):
    """Drops Ray's :data:`_THREAD_NOTICE` and nothing else.

    >>> f = _DropThreadNotice()
    >>> def record(msg):
    ...     return logging.LogRecord("ray", logging.WARNING, "", 0, msg, None, None)
    >>> f.filter(record(_THREAD_NOTICE + ".")), f.filter(record("a real warning"))
    (False, True)
    """

    def filter(self, record: logging.LogRecord) -> bool:
        return _THREAD_NOTICE not in record.getMessage()


# where Ray logs it (ray.init) and where a Ray Client prints its server's log lines
for _name in ("ray._private.worker", "ray.util.client.logsclient"):
    if not any(isinstance(f, _DropThreadNotice) for f in logging.getLogger(_name).filters):
        logging.getLogger(_name).addFilter(_DropThreadNotice())


#: Ray's setting of its worker processes' niceness (Ray's default: 15).
WORKER_NICENESS = "RAY_worker_niceness"

#: Set while a local Ray this module started runs: the variables :func:`_start` changed and
#: their values before (None: unset), restored by :func:`_stop`.
_SAVED_ENV: dict[str, str | None] = {}


def _private_env() -> dict[str, str]:
    """The environment of a private local Ray: loopback only, a token known to this process.

    ``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0`` is Ray's own switch for a single-machine cluster
    (its default on macOS and Windows): every Ray process of the node, the workers included,
    then binds 127.0.0.1. Token authentication (Ray's own, ``RAY_AUTH_MODE=token``) with a
    fresh random token held in the environment of this process and the ones Ray starts, so
    that no other user of the machine can join through the loopback ports either and no
    token file is written. A ``RAY_AUTH_MODE`` the caller set (``disabled`` in CI, say) is
    kept, with the caller's own token if any.

    Its worker processes (the actors) run at the driver's priority: Ray starts them at
    niceness 15 (``RAY_worker_niceness``), and beside a driver that evaluates the first
    batches meanwhile (niceness 0) a booting actor then got almost no CPU on a small
    machine: on 2 cores the actors came up only once the driver had nothing left to do
    (docs/performance.md, "Scaling one run"). A niceness the caller set is kept.

    >>> env = _private_env()
    >>> env["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"]
    '0'
    """
    env = {"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}
    if WORKER_NICENESS not in os.environ:
        env[WORKER_NICENESS] = "0"
    if "RAY_AUTH_MODE" not in os.environ:
        env["RAY_AUTH_MODE"] = "token"
        env["RAY_AUTH_TOKEN"] = secrets.token_hex(32)
    return env


def dashboard_wanted() -> bool:
    """Whether a local Ray gets Ray's dashboard: only when ``DISTVAL_RAY_DASHBOARD=1`` (it
    then listens on 127.0.0.1 too; reach it at http://127.0.0.1:8265)."""
    return os.environ.get("DISTVAL_RAY_DASHBOARD", "") not in ("", "0")


#: Seconds an idle actor stays warm in a running one-machine Ray by default
#: (:mod:`distval.ray_backend.fleet`).
KEEP_SECONDS = 300.0
#: The environment variable that sets them (0: a run's actors end with it).
KEEP_ENV = "DISTVAL_KEEP_ACTORS"


def keep_seconds(env: Mapping[str, str] = os.environ) -> float:
    """Seconds an idle actor stays warm in a running Ray (``DISTVAL_KEEP_ACTORS``).

    >>> keep_seconds({"DISTVAL_KEEP_ACTORS": "0"}), keep_seconds({})
    (0.0, 300.0)
    >>> keep_seconds({"DISTVAL_KEEP_ACTORS": "soon"})
    Traceback (most recent call last):
    distval.errors.DistvalError: DISTVAL_KEEP_ACTORS='soon': give seconds (a number, 0 or more)
    """
    text = env.get(KEEP_ENV, "").strip()
    if not text:
        return KEEP_SECONDS
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not seconds >= 0:
        raise DistvalError(f"{KEEP_ENV}={text!r}: give seconds (a number, 0 or more)")
    return seconds


#: ``--private``: a Ray of this run's own even where one is running (Ray's word for it).
PRIVATE = "local"


def _listening(address: str, seconds: float = 0.5) -> bool:
    """Whether something accepts a TCP connection at ``host:port`` (a live GCS)."""
    host, _, port = address.rpartition(":")
    try:
        with socket.create_connection((host.strip("[]") or "127.0.0.1", int(port)), seconds):
            return True
    except (OSError, ValueError):
        return False


def find_ray(address: str | None = None) -> tuple[str, str]:
    """Which Ray a run uses, as Ray's own ``ray.init`` would find it, and how it was found:
    ``(address, why)``. In this order: ``address`` (``--address``; ``"local"``,
    ``--private``, is a Ray of the run's own), ``RAY_ADDRESS``, the cluster the last
    ``ray start`` on this machine recorded (only while its GCS answers), else a private
    Ray (``("local", "private")``).

    >>> import os
    >>> find_ray("local"), find_ray("ray://head:10001")
    (('local', 'private'), ('ray://head:10001', '--address'))
    """
    if address == PRIVATE:
        return PRIVATE, "private"
    if address:
        return address, "--address"
    env = os.environ.get("RAY_ADDRESS", "")
    if env:
        return env, "RAY_ADDRESS"
    from ray._private.utils import read_ray_address

    recorded = read_ray_address()
    if recorded and _listening(recorded):
        return recorded, "ray start"
    return PRIVATE, "private"


def joining_line(address: str | None, backend: str) -> str | None:
    """The first line of a run that joins a running Ray (None when it starts its own):
    which one and how it was found, and how to get a private one instead."""
    found, why = find_ray(address)
    if found == PRIVATE or why == "--address":
        return None
    when = "" if backend == "ray" else " if the run is long enough to move there"
    keep = keep_seconds()
    kept = (f"; on one machine its actors stay warm {keep:g} s for the next run "
            f"({KEEP_ENV}=0: not kept)") if keep else ""
    return (f"using the running Ray at {found} (found by {why}){when}; --backend ray "
            f"--private starts a Ray of this run's own{kept}")


def _start(address: str | None) -> bool:
    """Start (or join) Ray unless the caller already did; returns whether we must shut down
    (with :func:`_stop`).

    Ray is found as :func:`find_ray` says. A private one (:func:`_private_env`) listens on
    127.0.0.1 only, with no dashboard unless :func:`dashboard_wanted`; a joined one keeps
    its own settings. Any failure to start or join (Ray raises a bare ``Exception`` when its
    processes do not come up in time on a loaded machine) is one :class:`RayUnavailable`.
    """
    if ray.is_initialized():
        return False
    target, _ = find_ray(address)
    private = target == PRIVATE
    kwargs: dict[str, Any] = {"logging_level": logging.WARNING, "log_to_driver": True}
    # Workers inherit this: Ray's crash-signal handler would otherwise take the SIGSEGVs that
    # a JVM raises and handles itself.
    # This process's own copy too: else ray.init installs the handler here, where it took a
    # SIGTERM that came before the command line's handler was set again (a C++ stack dump).
    keep_jvm_signals()
    if private:
        kwargs["include_dashboard"] = dashboard_wanted()
        kwargs["dashboard_host"] = "127.0.0.1"
        kwargs["_node_ip_address"] = "127.0.0.1"
        env = _private_env()
        _SAVED_ENV.update({k: os.environ.get(k) for k in env})
        os.environ.update(env)
        _reload_auth()
    # Ray reads RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER when it is imported; this process imported
    # it already, so the driver's copy of the switch is set for the start (then restored).
    local_only = private and ray_constants.ENABLE_RAY_CLUSTER
    if local_only:
        ray_constants.ENABLE_RAY_CLUSTER = False
    on_term = _python_sigterm_handler()
    try:
        ray.init(address=target, **kwargs)
    except Exception as exc:  # Ray's start-up errors have no common type
        _restore_env()
        with contextlib.suppress(Exception):
            ray.shutdown()  # what did start (a GCS without its raylet) goes
        where = "a private Ray" if private else f"the Ray at {target}"
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise RayUnavailable(f"cannot start or join {where}: {first}") from None
    finally:
        if local_only:
            ray_constants.ENABLE_RAY_CLUSTER = True
        if on_term is not None:  # Ray replaced it with its own (exit mid-write, C++ abort)
            signal.signal(signal.SIGTERM, on_term)
    return True


def _python_sigterm_handler() -> Any:
    """The SIGTERM handler a caller installed in Python (the command line's, which turns it
    into Ctrl-C), kept across ``ray.init``; None when there is none to keep or this is not
    the main thread (Ray then leaves the handler alone too)."""
    if threading.current_thread() is not threading.main_thread():
        return None
    handler = signal.getsignal(signal.SIGTERM)
    return handler if callable(handler) else None


def _restore_env() -> None:
    for key, value in _SAVED_ENV.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value
    if _SAVED_ENV:
        _SAVED_ENV.clear()
        _reload_auth()


def _reload_auth() -> None:
    """Make this process see the authentication variables as they are now: Ray caches them
    (its own ``ray.init`` does the same when it turns token mode on by default)."""
    import ray._raylet as raylet  # compiled: no type information

    raylet_any: Any = raylet
    raylet_any.Config.initialize("")
    raylet_any.AuthenticationTokenLoader.instance().reset_cache()


def quiet_workers() -> None:
    """Stop printing the log lines of Ray's worker processes here (Ray's ``log_to_driver``)
    from now on: at the end of a run, what its actors say as they are killed (an actor
    killed while it starts, after Ctrl-C) is noise. Only for a Ray this module started or
    joined; :func:`ray.shutdown` does the same."""
    from ray._private import worker

    dispatcher: Any = worker.global_worker_stdstream_dispatcher  # type: ignore[attr-defined]
    dispatcher.remove_handler("ray_print_logs")


def _stop() -> None:
    """Shut down the Ray :func:`_start` started and restore the environment it changed."""
    ray.shutdown()
    _restore_env()


def unwrap(exc: RayError) -> BaseException:
    """The :class:`DistvalError` a remote call raised, or ``exc`` itself."""
    cause = getattr(exc, "cause", None)
    return cause if isinstance(cause, DistvalError) else exc


@contextmanager
def ray_session(address: str | None = None) -> Iterator[None]:
    """Ray for the block: the running Ray :func:`find_ray` finds (``address``,
    ``RAY_ADDRESS``, a ``ray start`` cluster), else a private local Ray.

    A :class:`DistvalError` raised inside a remote call comes out as itself.
    """
    started = _start(address)
    try:
        yield
    except RayError as exc:
        cause = unwrap(exc)
        if cause is exc:
            raise
        raise cause from None
    finally:
        if started:
            _stop()
