"""One writer per results directory: the lock a live run holds on its directory.

A run that writes a results directory (a new run, one with ``--overwrite``, a ``--resume``)
holds an exclusive ``fcntl.flock`` on **the directory's own descriptor**: no file is opened
to take it, so nothing planted in the directory (a ``run.lock`` that is a symbolic or hard
link to another file, a FIFO) is ever followed, truncated or written through. A second
writer is refused before it changes anything, in one line naming the holder. The kernel
lets go of a ``flock`` when its process ends however it ends (SIGKILL, a power cut), so a
killed run's directory is taken over by the next writer.

``run.lock`` only says who holds the lock (process id, host, start time, run id). It is
written once the directory has been checked (:meth:`DirectoryLock.announce`), created anew
with ``O_CREAT | O_EXCL | O_NOFOLLOW`` relative to the locked descriptor (whatever was
there is unlinked, never opened), and removed when the run closes. Its owner checks it at
every checkpoint (:meth:`DirectoryLock.check`): a directory renamed or replaced, or a
``run.lock`` removed or replaced, means someone else may write there, and the run stops
with one line instead of writing on.

Where ``fcntl`` is missing (Windows), ``run.lock`` itself is the lock, created with
``O_EXCL``, and a stale one is recognised by its process id being gone.

>>> import tempfile
>>> d = Path(tempfile.mkdtemp())
>>> lock = DirectoryLock.take(d, run_id="r1")
>>> try:
...     DirectoryLock.take(d)
... except DistvalError as e:
...     print(str(e).split(" (")[0].replace(str(d), "D"))
D is in use by another distval run
>>> lock.check(); lock.release(); (d / LOCK).exists()
False
"""

from __future__ import annotations

import contextlib
import datetime
import functools
import json
import os
import socket
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from distval.errors import DistvalError

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

__all__ = ["LOCK", "DirectoryLock", "LockLost", "holder", "locks_output"]

#: The file that says who holds a results directory's lock.
LOCK = "run.lock"

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)


class LockLost(DistvalError):
    """The directory or its ``run.lock`` changed under the run that holds it."""


def holder(directory: str | os.PathLike[str]) -> dict[str, Any]:
    """What the lock file of ``directory`` says of its holder (empty if it says nothing).

    Only a regular file is read, never through a link (a FIFO would block, a link could
    point anywhere)."""
    try:
        fd = os.open(Path(directory) / LOCK, os.O_RDONLY | _NOFOLLOW | _NONBLOCK)
    except OSError:
        return {}
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return {}
        data = json.loads(os.read(fd, 4096))
    except (OSError, ValueError):
        return {}
    finally:
        os.close(fd)
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
        self._fd: int | None = fd  # the directory's (Windows: run.lock's) descriptor
        self._dir_ino = os.fstat(fd).st_ino if fcntl is not None else 0
        self._file: tuple[int, int] | None = None  # run.lock's (device, inode) once written

    @classmethod
    def take(
        cls, directory: str | os.PathLike[str], run_id: str = "", *, announce: bool = True
    ) -> DirectoryLock:
        """Lock ``directory`` (created if needed) for this process, or refuse in one line
        (:class:`DistvalError`) naming the live holder; a killed holder's lock is taken
        over. ``announce``: write ``run.lock`` now (else the caller calls
        :meth:`announce` once it has checked the directory)."""
        d = Path(directory)
        if d.exists() and not d.is_dir():
            raise DistvalError(f"output path {d} exists and is not a directory")
        d.mkdir(parents=True, exist_ok=True)
        if fcntl is None:  # pragma: no cover - Windows
            return cls._take_file(d, run_id)
        fd = os.open(d, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise _refusal(d) from None
        except BaseException:
            os.close(fd)
            raise
        lock = cls(d, fd)
        if announce:
            try:
                lock.announce(run_id)
            except BaseException:
                lock.release()
                raise
        return lock

    @classmethod
    def _take_file(cls, d: Path, run_id: str) -> DirectoryLock:  # pragma: no cover - Windows
        path = d / LOCK
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            if _alive(holder(d).get("pid")):
                raise _refusal(d) from None
            path.unlink(missing_ok=True)  # stale: its process is gone
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644)
        lock = cls(d, fd)
        os.write(fd, _description(run_id))
        st = os.fstat(fd)
        lock._file = (st.st_dev, st.st_ino)
        return lock

    def announce(self, run_id: str = "") -> None:
        """Write ``run.lock`` (who holds the directory): whatever is there under that name
        (a stale file, or a link planted there) is unlinked, never followed, and the file
        is created anew, exclusively."""
        if self._fd is None or fcntl is None or self._file is not None:
            return
        with contextlib.suppress(FileNotFoundError):
            os.unlink(LOCK, dir_fd=self._fd)
        fd = os.open(LOCK, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o644,
                     dir_fd=self._fd)
        try:
            os.write(fd, _description(run_id))
            st = os.fstat(fd)
            self._file = (st.st_dev, st.st_ino)
        finally:
            os.close(fd)

    def check(self) -> None:
        """Refuse (:class:`LockLost`) if the directory's path no longer names the locked
        directory, or its ``run.lock`` was removed or replaced since :meth:`announce`:
        someone else may then write there, and this run must not write on."""
        if self._fd is None or fcntl is None:
            return
        try:
            same_dir = os.stat(self.directory).st_ino == self._dir_ino
        except OSError:
            same_dir = False
        if not same_dir:
            raise LockLost(f"{self.directory} was moved or replaced while this run wrote "
                           "there; stopping (nothing more is written)")
        if self._file is None:
            return
        try:
            st = os.stat(LOCK, dir_fd=self._fd, follow_symlinks=False)
            same = (st.st_dev, st.st_ino) == self._file
        except OSError:
            same = False
        if not same:
            raise LockLost(
                f"{self.directory / LOCK} was removed or replaced while this run held it; "
                "stopping (nothing more is written; remove no run.lock by hand)")

    def release(self) -> None:
        """Remove this run's ``run.lock`` and let go (idempotent)."""
        if self._fd is None:
            return
        with contextlib.suppress(OSError):
            if self._file is not None:
                if fcntl is None:  # pragma: no cover - Windows
                    os.close(self._fd)
                    self._fd = -1
                    (self.directory / LOCK).unlink()
                else:
                    st = os.stat(LOCK, dir_fd=self._fd, follow_symlinks=False)
                    if (st.st_dev, st.st_ino) == self._file:
                        os.unlink(LOCK, dir_fd=self._fd)
        with contextlib.suppress(OSError):
            if self._fd >= 0:
                os.close(self._fd)
        self._fd = None

    def __del__(self) -> None:  # a writer dropped without closing (an error on the way)
        self.release()


def _description(run_id: str) -> bytes:
    data = {
        "pid": os.getpid(),
        "host": socket.gethostname(),
        "started": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "run_id": run_id,
    }
    return (json.dumps(data) + "\n").encode()


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
