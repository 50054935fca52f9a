"""The one way distval writes a file: never through a link planted under the name.

Every file distval writes (reports, figures, CSV exports, suite and grid outputs, results
tables, checkpoints, summaries) is created here. A new file is made under a fresh,
unguessable temporary name in the target's own directory with
``O_CREAT | O_EXCL | O_NOFOLLOW`` (so nothing already there, a symbolic link least of
all, is opened), and then renamed over the target. A rename replaces a link that stood
under the name; it never writes into what the link points at. So a results directory
that someone else prepared (``distval report DIR`` reads directories others wrote) cannot
make distval write anywhere else.

* :func:`write_file` writes a whole file at once (text or bytes), atomically: a reader
  sees the old file or the new one, never half of one.
* :func:`replacing` is the same for a writer that wants a file object (``savefig``,
  Parquet and CSV writers): the file appears under its name when the block ends whole.
* :func:`open_new` creates the file, moves it under its name at once and returns it open,
  for a file that grows while a run goes (an Arrow stream of a results table).
* :func:`open_append` opens a file to append to, refusing a link or a file with another
  name (a hard link) instead of following it.
* :func:`make_dir` creates a folder distval writes into, refusing one that is a link.
* :func:`temporary_of` names the file a leftover temporary (of a process killed while it
  wrote) was to become, so that a rerun knows it for its own.

>>> import tempfile
>>> d = Path(tempfile.mkdtemp())
>>> victim = d / "victim.txt"
>>> _ = victim.write_text("mine")
>>> (d / "report.md").symlink_to(victim)
>>> _ = write_file(d / "report.md", "the report")
>>> victim.read_text(), (d / "report.md").is_symlink(), (d / "report.md").read_text()
('mine', False, 'the report')
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

from distval.errors import DistvalError

__all__ = ["make_dir", "open_append", "open_new", "read_json", "replacing", "temporary_of",
           "write_file"]

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


#: The name of a temporary file beside its target: ``.<name>.<16 hex digits>.part``.
_TEMPORARY = re.compile(r"\.(?P<name>.+)\.[0-9a-f]{16}\.part")


def temporary_of(name: str) -> str | None:
    """The name of the file that ``name``, a temporary file this module makes, was to
    replace; None for any other name.

    >>> temporary_of(".suite.json.0123456789abcdef.part"), temporary_of("suite.json")
    ('suite.json', None)
    """
    found = _TEMPORARY.fullmatch(name)
    return found["name"] if found else None


def _fresh(path: Path, mode: int) -> tuple[Path, int]:
    """A new, empty file beside ``path`` under a name nobody could have guessed, open."""
    for _ in range(100):
        tmp = path.with_name(f".{path.name}.{secrets.token_hex(8)}.part")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, mode)
        except FileExistsError:
            continue
        return tmp, fd
    raise FileExistsError(f"no free temporary name beside {path}")  # pragma: no cover


@contextlib.contextmanager
def replacing(path: str | os.PathLike[str], *, sync: bool = False,
              mode: int = 0o644) -> Iterator[BinaryIO]:
    """A binary file object whose content replaces ``path`` when the block ends without
    an exception (``sync``: on disk first); an exception leaves ``path`` as it was.

    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "a.csv"
    >>> with replacing(p) as fh:
    ...     _ = fh.write(b"x,y\\n")
    >>> p.read_text()
    'x,y\\n'
    """
    target = Path(path)
    tmp, fd = _fresh(target, mode)
    try:
        with os.fdopen(fd, "wb") as fh:
            yield fh
            fh.flush()
            if sync:
                os.fsync(fh.fileno())
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


def write_file(path: str | os.PathLike[str], data: str | bytes, *, sync: bool = False,
               mode: int = 0o644) -> Path:
    """Write ``data`` (text as UTF-8, or bytes) to ``path`` atomically, never through a
    link; returns the path.

    >>> import tempfile
    >>> write_file(Path(tempfile.mkdtemp()) / "a.txt", "é").read_text(encoding="utf-8")
    'é'
    """
    with replacing(path, sync=sync, mode=mode) as fh:
        fh.write(data.encode("utf-8") if isinstance(data, str) else data)
    return Path(path)


def open_new(path: str | os.PathLike[str], *, mode: int = 0o644) -> BinaryIO:
    """A new, empty file under ``path``, open for writing: created under a fresh name and
    renamed over ``path`` at once (a link or a file there is replaced, not written to).

    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "t.arrows"
    >>> with open_new(p) as fh:
    ...     _ = fh.write(b"batch")
    >>> p.read_bytes()
    b'batch'
    """
    target = Path(path)
    tmp, fd = _fresh(target, mode)
    try:
        os.replace(tmp, target)
    except BaseException:
        os.close(fd)
        tmp.unlink(missing_ok=True)
        raise
    return os.fdopen(fd, "wb", buffering=0)  # an Arrow stream: every write on disk


def open_append(path: str | os.PathLike[str], *, mode: int = 0o644) -> BinaryIO:
    """``path`` open for appending (created if missing); a link under that name, or a
    file that has another name too (a hard link), is refused with a :class:`DistvalError`.

    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "cells.jsonl"
    >>> for line in (b"a\\n", b"b\\n"):
    ...     with open_append(p) as fh:
    ...         _ = fh.write(line)
    >>> p.read_bytes()
    b'a\\nb\\n'
    """
    target = Path(path)
    try:
        fd = os.open(target, os.O_WRONLY | os.O_APPEND | os.O_CREAT | _NOFOLLOW | _CLOEXEC,
                     mode)
    except OSError:
        if target.is_symlink():
            raise DistvalError(f"{target} is a symbolic link; distval does not write "
                               "through links") from None
        raise
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_nlink != 1:
        os.close(fd)
        raise DistvalError(f"{target} is not a plain file of its own (a hard link?); "
                           "distval does not write through links")
    return os.fdopen(fd, "ab")


def make_dir(path: str | os.PathLike[str]) -> Path:
    """``path`` as a folder (created with its parents if missing); a symbolic link under
    that name is refused with a :class:`DistvalError` rather than written through.

    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> make_dir(d / "csv").is_dir()
    True
    >>> (d / "link").symlink_to(d / "csv")
    >>> try:
    ...     make_dir(d / "link")
    ... except DistvalError as e:
    ...     print(str(e).endswith("is a symbolic link; distval does not write through links"))
    True
    """
    target = Path(path)
    if target.is_symlink():
        raise DistvalError(f"{target} is a symbolic link; distval does not write "
                           "through links")
    target.mkdir(parents=True, exist_ok=True)
    return target


def read_json(path: str | os.PathLike[str], what: str = "a JSON document") -> Any:
    """The JSON document in ``path``; a file that cannot be read, is not JSON or nests past
    Python's recursion limit is one :class:`DistvalError` line naming the file (``what``: the
    document the caller expects, for the last).

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     _ = (Path(d) / "a.json").write_text('{"k": 1}')
    ...     read_json(Path(d) / "a.json")
    {'k': 1}
    """
    import json

    try:
        return json.loads(Path(path).read_text())
    except OSError as exc:
        raise DistvalError(f"cannot read {path}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise DistvalError(f"{path} is not valid JSON: {exc}") from None
    except RecursionError:
        raise DistvalError(f"{path} nests too deeply to be {what}") from None
