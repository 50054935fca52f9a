"""One writer per results directory: the lock a live run holds on its directory.

A run that writes a results directory (a new run, one with ``--overwrite``, a ``--resume``)
holds ``run.lock`` there: an exclusive ``fcntl.flock`` on the file, which says who holds it
(process id, host, start time, run id). A second writer is refused before it changes
anything, in one line naming the holder. The kernel lets go of a ``flock`` when its process
ends however it ends, so the file of a killed run (SIGKILL, a power cut) is a stale lock:
the next writer takes it over. A lock file is removed when its run closes its directory.

Where ``fcntl`` is missing (Windows), the file is created with ``O_EXCL`` instead and a
stale one is recognised by its process id being gone.

>>> import tempfile
>>> d = Path(tempfile.mkdtemp())
>>> lock = DirectoryLock.take(d, run_id="r1")
>>> try:
...     DirectoryLock.take(d)
... except DistvalError as e:
...     print(str(e).split(" (")[0].replace(str(d), "D"))
D is in use by another distval run
>>> lock.release(); (d / LOCK).exists()
False
"""

from __future__ import annotations

import contextlib
import datetime
import functools
import json
import os
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from distval.errors import DistvalError

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

__all__ = ["LOCK", "DirectoryLock", "holder", "locks_output"]

#: The lock file of a results directory.
LOCK = "run.lock"


def holder(directory: str | os.PathLike[str]) -> dict[str, Any]:
    """What the lock file of ``directory`` says of its holder (empty if it says nothing)."""
    try:
        data = json.loads((Path(directory) / LOCK).read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _refusal(directory: Path) -> DistvalError:
    who = holder(directory)
    pid, host, since = who.get("pid", "?"), who.get("host", "?"), who.get("started", "?")
    return DistvalError(
        f"{directory} is in use by another distval run (pid {pid} on {host}, since {since}); "
        "wait for it to end or stop it first"
    )


def _alive(pid: object) -> bool:
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class DirectoryLock:
    """The lock of one results directory, held from :meth:`take` to :meth:`release`."""

    def __init__(self, directory: Path, fd: int) -> None:
        self.directory = directory
        self._fd: int | None = fd

    @classmethod
    def take(cls, directory: str | os.PathLike[str], run_id: str = "") -> DirectoryLock:
        """Lock ``directory`` (created if needed) for this process, or refuse in one line
        (:class:`DistvalError`) naming the live holder; a stale lock is taken over."""
        d = Path(directory)
        if d.exists() and not d.is_dir():
            raise DistvalError(f"output path {d} exists and is not a directory")
        d.mkdir(parents=True, exist_ok=True)
        path = d / LOCK
        for _ in range(100):  # the file may go (its holder closing) between open and lock
            fd = cls._open(path)
            if fd is None:
                raise _refusal(d)
            try:
                same = os.fstat(fd).st_ino == os.stat(path).st_ino
            except FileNotFoundError:
                same = False
            if not same:  # locked a file its holder had removed: try the new one
                os.close(fd)
                continue
            lock = cls(d, fd)
            lock._describe(run_id)
            return lock
        raise _refusal(d)  # pragma: no cover - a directory changing hands 100 times

    @staticmethod
    def _open(path: Path) -> int | None:
        """The file descriptor of ``path``, locked; None while a live run holds it."""
        if fcntl is not None:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                return None
            return fd
        try:  # pragma: no cover - Windows
            return os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:  # pragma: no cover
            if _alive(holder(path.parent).get("pid")):
                return None
            path.unlink(missing_ok=True)  # stale: its process is gone
            return os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644)

    def _describe(self, run_id: str) -> None:
        assert self._fd is not None
        data = {
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "started": datetime.datetime.now(datetime.timezone.utc).isoformat(
                timespec="seconds"),
            "run_id": run_id,
        }
        text = (json.dumps(data) + "\n").encode()
        os.ftruncate(self._fd, 0)
        os.pwrite(self._fd, text, 0)

    def release(self) -> None:
        """Remove the lock file and let go (idempotent)."""
        if self._fd is None:
            return
        with contextlib.suppress(OSError):
            if os.fstat(self._fd).st_ino == os.stat(self.directory / LOCK).st_ino:
                (self.directory / LOCK).unlink()
        with contextlib.suppress(OSError):
            os.close(self._fd)
        self._fd = None

    def __del__(self) -> None:  # a writer dropped without closing (an error on the way)
        self.release()


_P = ParamSpec("_P")
_R = TypeVar("_R")


def locks_output(func: Callable[_P, _R]) -> Callable[_P, _R]:
    """``func`` holding the lock of its ``output_dir`` (a keyword; None: no directory)
    while it runs: a study that writes a directory of runs (a suite, ``--permute``'s
    copies) is its one writer too."""

    @functools.wraps(func)
    def locked(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        directory = kwargs.get("output_dir")
        if directory is None:
            return func(*args, **kwargs)
        lock = DirectoryLock.take(directory)  # type: ignore[arg-type]
        try:
            return func(*args, **kwargs)
        finally:
            lock.release()

    return locked
