"""Start (or join) Ray for the length of a ``with`` block, and leave a caller's Ray alone.

>>> import ray
>>> with ray_session():   # started here unless the caller runs Ray already
...     ray.is_initialized()
True
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import ray
from ray.exceptions import RayError

from distval.errors import DistvalError
from distval.learners.moa.jvm import keep_jvm_signals

__all__ = ["ray_session", "unwrap"]

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


def _start(address: str | None) -> bool:
    """Start (or join) Ray unless the caller already did; returns whether we must shut down."""
    if ray.is_initialized():
        return False
    kwargs: dict[str, Any] = {"logging_level": logging.WARNING, "log_to_driver": True}
    if address is None:
        # A private local cluster on this machine's cores; token auth only matters for shared
        # clusters, and turning it off keeps Ray from writing a token into the home directory.
        os.environ.setdefault("RAY_AUTH_MODE", "disabled")
        kwargs["include_dashboard"] = False
    # Workers inherit this: Ray's crash-signal handler would otherwise take the SIGSEGVs that
    # a JVM raises and handles itself.
    keep_jvm_signals()
    try:
        ray.init(address=address, **kwargs)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        raise DistvalError(f"cannot start or join Ray at {address or 'local'}: {exc}") from None
    return True


def unwrap(exc: RayError) -> BaseException:
    """The :class:`DistvalError` a remote call raised, or ``exc`` itself."""
    cause = getattr(exc, "cause", None)
    return cause if isinstance(cause, DistvalError) else exc


@contextmanager
def ray_session(address: str | None = None) -> Iterator[None]:
    """Ray for the block: a private local Ray, or the cluster at ``address``.

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
            ray.shutdown()
