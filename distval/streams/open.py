"""Open a stream from a spec: the bundled data, a file path or a generator."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from importlib import resources
from pathlib import Path
from typing import Any, cast

from distval.errors import DistvalError
from distval.streams.arff import ArffStream
from distval.streams.base import Stream
from distval.streams.delimited import CsvStream
from distval.streams.files import check_file
from distval.streams.iterable import IterableStream
from distval.streams.parquet import ParquetStream
from distval.streams.synth import DEFAULT_N, GeneratorStream

__all__ = [
    "BUNDLED", "FILE_EXTENSIONS", "INFINITE", "bundled_path", "check_stream_path", "open_stream",
]

#: Names of the bundled data sets (aliases included) -> file name in ``distval/data``.
BUNDLED = {"elec2": "elec2.parquet", "electricity": "elec2.parquet"}

#: Supported file extensions (case-insensitive) -> stream class.
FILE_EXTENSIONS: dict[str, Callable[..., Stream]] = {
    ".parquet": ParquetStream,
    ".csv": CsvStream,
    ".csv.gz": CsvStream,
    ".data": CsvStream,
    ".data.gz": CsvStream,
    ".arff": ArffStream,
    ".arff.gz": ArffStream,
}

_PATHLIKE = re.compile(r"[^()]*\.[A-Za-z0-9]+")


def bundled_path(name: str = "elec2") -> Path:
    """Path of a data file shipped with distval.

    >>> bundled_path().name
    'elec2.parquet'
    """
    key = name.lower()
    if key not in BUNDLED:
        raise DistvalError(
            f"no bundled data set named {name!r}; bundled: {', '.join(sorted(BUNDLED))}"
        )
    path = Path(str(resources.files("distval") / "data" / BUNDLED[key]))
    if not path.is_file():
        raise DistvalError(f"the bundled data file is missing: {path}")
    return path


def _extension(spec: str) -> str | None:
    low = spec.lower()
    for ext in sorted(FILE_EXTENSIONS, key=len, reverse=True):
        if low.endswith(ext):
            return ext
    return None


def open_stream(
    spec: str | os.PathLike[str] | Stream | object | None = None,
    *,
    target: str | None = None,
    n_rows: int | None = None,
    seed: int | None = None,
    na_values: str | tuple[str, ...] | list[str] | None = None,
    infinite: str = "refuse",
) -> Stream:
    """Open a stream.

    Parameters
    ----------
    spec
        ``None``, ``"electricity"`` or ``"elec2"`` for the bundled Electricity data; a path
        ending in ``.parquet``, ``.csv``, ``.csv.gz``, ``.data``, ``.data.gz``, ``.arff`` or
        ``.arff.gz``; or a generator spec such as ``"sea"``, ``"SEA(50)"``, ``"HYP(10, 0.001)"``
        or ``"sea(variant=2, noise=0.1)"`` (see :mod:`distval.streams.synth`); a
        :class:`Stream` (returned as it is); or a river dataset or generator or any other
        iterable of ``(x: dict, y)`` pairs (:class:`~distval.streams.iterable.IterableStream`).
    target
        Label column of a file (default: the last column).
    n_rows
        For files, the maximum number of rows read; for generators, the stream length
        (default 100,000).
    seed
        Generator seed (default 1); ignored for files.
    na_values
        Field values a CSV file marks missing values with, besides the empty field (default
        ``N/A``, ``NA``, ``null``, ``?``, ``NaN``, ``nan``; see
        :func:`~distval.streams.delimited.na_vocabulary`).
    infinite
        ``"refuse"`` (default): an infinite feature value is an error naming the feature and
        the row; ``"missing"``: it is read as a missing value.

    Examples
    --------
    >>> s = open_stream()
    >>> s.name, s.n_rows, len(s.feature_names)
    ('elec2', 45312, 8)
    >>> open_stream("HYP(10, 0.001)", n_rows=500, seed=3).n_rows
    500
    """
    if infinite not in INFINITE:
        raise DistvalError(f"unknown `inf` rule {infinite!r}; choose one of {', '.join(INFINITE)}")
    stream = _open(spec, target, n_rows, seed, na_values)
    if not isinstance(spec, Stream) or infinite != "refuse":
        stream.infinite = infinite
    return stream


#: What an infinite feature value does (``--inf``): an error, or a missing value.
INFINITE = ("refuse", "missing")


def check_stream_path(spec: object) -> None:
    """Refuse, before any costlier check (a MOA learner starts the JVM), a stream spec that
    names a file that is not there or whose type distval does not read: the same lines
    :func:`open_stream` gives.

    >>> check_stream_path("sea"); check_stream_path("elec2")
    >>> check_stream_path("no/such.csv")
    Traceback (most recent call last):
    distval.errors.DistvalError: no such file: no/such.csv
    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile(suffix=".txt") as f:
    ...     check_stream_path(f.name)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    distval.errors.DistvalError: unsupported file type: ....txt; supported extensions: .parquet, ...
    """
    if isinstance(spec, os.PathLike):
        spec = os.fspath(spec)
    text = spec.strip() if isinstance(spec, str) else ""
    if not text or text.lower() in BUNDLED:
        return
    if _extension(text) is not None:
        check_file(text)
        return
    exists = os.path.exists(text)
    if not (exists or _PATHLIKE.fullmatch(text) or "/" in text or "\\" in text):
        return  # a generator's spec
    if not exists:
        raise DistvalError(f"no such file: {text}")
    raise DistvalError(
        f"unsupported file type: {text}; supported extensions: {', '.join(FILE_EXTENSIONS)}"
    )


def _open(
    spec: str | os.PathLike[str] | Stream | object | None,
    target: str | None,
    n_rows: int | None,
    seed: int | None,
    na_values: str | tuple[str, ...] | list[str] | None,
) -> Stream:
    if spec is None:
        spec = "elec2"
    if isinstance(spec, Stream):
        return spec
    if isinstance(spec, os.PathLike):
        spec = os.fspath(spec)
    if not isinstance(spec, str):
        if target is not None:
            raise DistvalError(f"target={target!r} applies to file streams only")
        return IterableStream(cast(Iterable[Any], spec), n_rows=n_rows)  # IterableStream checks it
    text = spec.strip()
    if not text:
        raise DistvalError("the stream spec is empty")
    if text.lower() in BUNDLED:
        return ParquetStream(bundled_path(text), target=target, limit=n_rows, name="elec2")
    check_stream_path(text)
    ext = _extension(text)
    if ext is not None:
        if FILE_EXTENSIONS[ext] is CsvStream:
            return CsvStream(text, target=target, limit=n_rows, na_values=na_values)
        return FILE_EXTENSIONS[ext](text, target=target, limit=n_rows)
    if target is not None:
        raise DistvalError(
            f"target={target!r} applies to file streams only; {text!r} is a generator"
        )
    return GeneratorStream(text, n=DEFAULT_N if n_rows is None else n_rows, seed=seed)
