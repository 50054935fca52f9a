"""The stream interface: :class:`Chunk`, :class:`Stream` and the shared encoding helpers.

A stream is read in passes. Every call to :meth:`Stream.chunks` starts a fresh pass from row 0
with fresh label and category encoders, so every pass yields identical data. Labels get class
indices in the order a header declares them (an ARFF nominal class, a Parquet file's declared
categories), otherwise in order of first appearance; ``Stream.classes`` and the
first-appearance categories in ``Stream.nominal`` grow as the pass yields the rows in which
new values appear.
"""

from __future__ import annotations

import warnings
from abc import ABC
from collections.abc import Callable, Generator, Iterable, Iterator
from contextlib import closing
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from distval.errors import DistvalError, MissingValuesWarning, check_positive_int

__all__ = ["Chunk", "Stream"]

#: The ``(X, y)`` batches of one pass: a generator, closed when the pass stops early.
Batches = Generator[tuple[np.ndarray, np.ndarray], None, None]


@dataclass(frozen=True, slots=True)
class Chunk:
    """Consecutive rows of a stream.

    Parameters
    ----------
    start
        Global 0-based index of the first row in the stream.
    X
        ``(n, d)`` float64 features; NaN marks a missing value and nominal features hold their
        category code (``0.0, 1.0, ...``).
    y
        ``(n,)`` int64 class indices.

    Examples
    --------
    >>> import numpy as np
    >>> c = Chunk(start=10, X=np.zeros((2, 3)), y=np.array([0, 1]))
    >>> len(c), c.start
    (2, 10)
    """

    start: int
    X: np.ndarray
    y: np.ndarray

    def __len__(self) -> int:
        return len(self.y)


class Stream(ABC):
    """A re-readable source of labelled rows.

    Attributes
    ----------
    name
        Display name, e.g. ``"elec2"`` or ``"SEA(50)"``.
    feature_names
        Feature names, in column order of ``Chunk.X``.
    nominal
        Nominal feature -> its categories in code order; first-appearance categories grow while
        a pass reads.
    classes
        Label values (as ``str``) in class-index order; grows while a pass reads.
    n_classes
        How many classes the stream declares before any row is read (an ARFF nominal class,
        a generator's ``n_classes``), or ``None`` when it does not say.
    n_rows
        Number of rows a full pass yields when known, else ``None``.
    limit
        Maximum number of rows per pass, or ``None`` for no limit.

    Examples
    --------
    >>> from distval.streams import open_stream
    >>> s = open_stream("sea", n_rows=5)
    >>> [len(c) for c in s.chunks(2)]
    [2, 2, 1]
    """

    name: str
    feature_names: list[str]
    nominal: dict[str, list[str]]
    classes: list[str]
    n_classes: int | None = None
    n_rows: int | None
    limit: int | None
    #: What an infinite feature value does: ``"refuse"`` (an error naming the feature and the
    #: row) or ``"missing"`` (read as a missing value, NaN).
    infinite: str = "refuse"
    #: Whether a pass has said how many cells were missing (:meth:`_say_missing`: once).
    _said_missing: bool = False

    def __init__(self, name: str, limit: int | None = None) -> None:
        self.name = name
        self.limit = _check_limit(limit, name)
        self.feature_names = []
        self.nominal = {}
        self.classes = []
        self.n_classes = None
        self.n_rows = None

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"

    def chunks(self, size: int = 1000) -> Iterator[Chunk]:
        """Start a fresh pass from row 0 and yield chunks of exactly ``size`` rows (the last may
        be shorter).

        Raises
        ------
        DistvalError
            If ``size`` is not a positive integer, the data is malformed, or the pass yields no
            rows at all.
        """
        check_positive_int(size, "chunk size")
        return self._pass(int(size))

    # -- implementation -------------------------------------------------------------------

    def _open_pass(self, size: int) -> _Pass:
        """Fresh encoders and a batch iterator for one pass; subclasses implement this or
        override :meth:`chunks` altogether."""
        raise NotImplementedError(f"{type(self).__name__} must implement _open_pass or chunks")

    def _pass(self, size: int) -> Iterator[Chunk]:
        state = self._open_pass(size)
        self.classes = []
        self.nominal = {f: list(c.values[: c.n_declared]) for f, c in state.nominal.items()}
        tracked = [
            (j, state.nominal[f], self.nominal[f])
            for j, f in enumerate(self.feature_names)
            if f in state.nominal
        ]
        label_values = state.labels.values
        rows = 0
        missing = np.zeros(len(self.feature_names), dtype=np.int64)
        with closing(state.batches) as batches:
            for chunk in rechunk(batches, size, self.limit):
                chunk = self._finite(chunk)
                if chunk.X.shape[1] == len(missing):
                    missing += np.isnan(chunk.X).sum(axis=0)
                k = int(chunk.y.max()) + 1
                if k > len(self.classes):
                    self.classes.extend(label_values[len(self.classes) : k])
                    if len(self.classes) > MAX_NUMERIC_CLASSES:
                        self._check_discrete(chunk.start + len(chunk))
                for j, cats, published in tracked:
                    top = np.fmax.reduce(chunk.X[:, j])
                    if top == top and int(top) + 1 > len(published):
                        published.extend(cats.values[len(published) : int(top) + 1])
                rows += len(chunk)
                yield chunk
        if rows == 0:
            raise DistvalError(f"stream {self.name!r} is empty: a pass yielded no rows")
        if self.n_rows is None:
            self.n_rows = rows
        self._say_missing(missing, rows)

    def _say_missing(self, missing: np.ndarray, rows: int) -> None:
        """Say once, after a whole pass, how many feature cells were read as missing values
        (``missing``: per feature) and what the learners do with them."""
        total = int(missing.sum())
        if not total or self._said_missing:
            return
        self._said_missing = True
        cols = [self.feature_names[j] for j in np.flatnonzero(missing)]
        shown = ", ".join(repr(c) for c in cols[:5]) + (f" and {len(cols) - 5} more"
                                                          if len(cols) > 5 else "")
        warnings.warn(MissingValuesWarning(
            f"stream {self.name!r}: {total:,} of {rows * len(missing):,} feature cells are "
            f"empty or marked missing (in {shown}); read as missing values: river's learners "
            "leave the feature out of that row, MOA's see a missing value, --minibatch "
            "reads 0"), stacklevel=2)


    def _finite(self, chunk: Chunk) -> Chunk:
        """The chunk, refused if a feature is infinite, or with infinities as missing values
        (NaN) when :attr:`infinite` is ``"missing"``."""
        inf = np.isinf(chunk.X)
        if not inf.any():
            return chunk
        if self.infinite == "missing":
            return Chunk(chunk.start, np.where(inf, np.nan, chunk.X), chunk.y)
        i, j = (int(v[0]) for v in np.nonzero(inf))
        raise DistvalError(
            f"stream {self.name!r}: feature {self.feature_names[j]!r} is {chunk.X[i, j]} in "
            f"data row {chunk.start + i + 1}; learners cannot use infinite values: fix the data "
            "or read them as missing values (--inf missing)"
        )

    def _check_discrete(self, rows: int) -> None:
        """Refuse a label that looks continuous: more than :data:`MAX_NUMERIC_CLASSES`
        distinct values, all numbers (a numeric column taken for the class)."""
        if not all(_is_number(v) for v in self.classes):
            return
        target = getattr(self, "target", None)
        what = f"the label column {target!r}" if target else "the label"
        columns = [c for c in self.feature_names if c != target]
        hint = (
            f"; choose the class column with --target (target=...), e.g. one of "
            f"{', '.join(repr(c) for c in columns[-3:])}"
            if target
            else ""
        )
        raise DistvalError(
            f"stream {self.name!r}: {what} holds {len(self.classes)} distinct numbers in its "
            f"first {rows} rows: it looks continuous, not a class{hint} (to evaluate "
            "regressors on a numeric target: --task regression)"
        )


#: A label with more distinct values than this, all of them numbers, is refused as continuous.
MAX_NUMERIC_CLASSES = 100


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


class _Pass:
    """Encoders and the batch source of one pass."""

    __slots__ = ("batches", "labels", "nominal")

    def __init__(
        self,
        batches: Batches,
        labels: Categories,
        nominal: dict[str, Categories],
    ) -> None:
        self.batches = batches
        self.labels = labels
        self.nominal = nominal


def _check_limit(limit: int | None, name: str) -> int | None:
    if limit is None:
        return None
    if isinstance(limit, bool) or not isinstance(limit, (int, np.integer)) or limit < 1:
        raise DistvalError(
            f"stream {name!r}: the row limit must be a positive integer or None, got {limit!r}"
        )
    return int(limit)


def rechunk(
    batches: Iterable[tuple[np.ndarray, np.ndarray]], size: int, limit: int | None = None
) -> Iterator[Chunk]:
    """Cut ``(X, y)`` batches of any sizes into chunks of exactly ``size`` rows.

    Stops pulling batches once ``limit`` rows have been yielded.

    >>> import numpy as np
    >>> parts = [(np.zeros((3, 1)), np.arange(3)), (np.zeros((4, 1)), np.arange(3, 7))]
    >>> [(c.start, c.y.tolist()) for c in rechunk(parts, 3, limit=6)]
    [(0, [0, 1, 2]), (3, [3, 4, 5])]
    """
    start = 0
    pending_X: list[np.ndarray] = []
    pending_y: list[np.ndarray] = []
    pending = 0
    remaining = limit
    for X, y in batches:
        n = len(y)
        if remaining is not None:
            if n > remaining:
                X, y, n = X[:remaining], y[:remaining], remaining
            remaining -= n
        pos = 0
        if pending:
            take = min(size - pending, n)
            pending_X.append(X[:take])
            pending_y.append(y[:take])
            pending += take
            pos = take
            if pending == size:
                yield Chunk(start, np.concatenate(pending_X), np.concatenate(pending_y))
                start += size
                pending_X, pending_y, pending = [], [], 0
        while n - pos >= size:
            yield Chunk(start, X[pos : pos + size], y[pos : pos + size])
            start += size
            pos += size
        if pos < n:
            pending_X.append(X[pos:])
            pending_y.append(y[pos:])
            pending += n - pos
        if remaining == 0:
            break
    if pending:
        yield Chunk(start, np.concatenate(pending_X), np.concatenate(pending_y))


def encode_labels(labels: Categories, ys: list[Any], name: str, done: int) -> np.ndarray:
    """Class indices of a block of labels from Python values (rows ``done`` on), or one clear
    error naming the first row whose label is missing."""
    try:
        y = labels.encode(pa.array(ys))
    except (pa.ArrowException, TypeError, ValueError):
        y = labels.encode(pa.array([None if v is None else format_value(v) for v in ys]))
    if len(y) and y.min() < 0:
        row = done + int(np.argmax(y < 0)) + 1
        raise DistvalError(f"stream {name!r}: the label is missing in row {row}")
    return y


def format_value(value: object) -> str:
    """The text of a label or category value; integral floats print without ``.0``.

    >>> format_value(3.0), format_value(2.5), format_value(True), format_value("UP")
    ('3', '2.5', 'True', 'UP')
    """
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return str(int(value))
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)


class Categories:
    """Value -> code table of one column; unknown values get the next code. Null and a float
    NaN are missing values (code ``-1``), never a category ``'nan'``.

    ``values`` lists the categories in code order; the first ``n_declared`` come from a schema.
    With ``strict`` (only the declared values) or ``allowed`` (a set of values), any other value
    is an error.

    >>> import pyarrow as pa
    >>> cats = Categories()
    >>> cats.encode(pa.array(["b", "a", None, "b"])).tolist()
    [0, 1, -1, 0]
    >>> cats.values
    ['b', 'a']
    """

    __slots__ = ("allowed", "index", "n_declared", "values")

    def __init__(
        self,
        declared: Iterable[str] = (),
        *,
        strict: bool = False,
        allowed: Iterable[str] | None = None,
    ) -> None:
        self.values: list[str] = []
        self.index: dict[str, int] = {}
        for v in declared:
            if v not in self.index:
                self.index[v] = len(self.values)
                self.values.append(v)
        self.n_declared = len(self.values)
        if strict:
            allowed = self.values
        self.allowed = None if allowed is None else frozenset(allowed)

    def encode(
        self,
        arr: pa.Array | pa.ChunkedArray,
        on_unknown: Callable[[str, int], None] | None = None,
    ) -> np.ndarray:
        """Codes (int64, ``-1`` for null) of an Arrow array of any type.

        New values get codes in order of first appearance in ``arr``. The first value outside
        ``allowed`` is passed with its position to ``on_unknown``, which should raise.
        """
        if isinstance(arr, pa.ChunkedArray):
            arr = arr.combine_chunks()
        if not pa.types.is_dictionary(arr.type):
            arr = pc.dictionary_encode(arr)
        n = len(arr)
        if n == 0:
            return np.empty(0, dtype=np.int64)
        indices = arr.indices
        dictionary = arr.dictionary
        if len(dictionary) == 0:
            return np.full(n, -1, dtype=np.int64)
        valid: np.ndarray | None = None
        if indices.null_count:
            valid = ~indices.is_null().to_numpy(zero_copy_only=False)
            indices = pc.fill_null(indices, 0)
        raw = indices.to_numpy(zero_copy_only=False)
        idx: npt.NDArray[np.intp] = raw.astype(np.intp, copy=False)
        keys = [None if v is None or v != v else format_value(v) for v in dictionary.to_pylist()]
        table = np.empty(len(keys) + 1, dtype=np.int64)
        table[-1] = -1
        unknown = []
        for j, key in enumerate(keys):
            code = -1 if key is None else self.index.get(key)
            if code is None:
                unknown.append(j)
                code = -1
            table[j] = code
        if unknown:
            present = idx if valid is None else idx[valid]
            positions = np.flatnonzero(valid) if valid is not None else None
            uniq, first = np.unique(present, return_index=True)
            wanted = set(unknown)
            for j, pos in sorted(zip(uniq.tolist(), first.tolist(), strict=True), key=_second):
                if j not in wanted:
                    continue
                if self.allowed is not None and keys[j] not in self.allowed:
                    row = int(positions[pos]) if positions is not None else int(pos)
                    if on_unknown is not None:
                        on_unknown(keys[j], row)
                    raise DistvalError(f"unknown category {keys[j]!r}")
                table[j] = len(self.values)
                self.index[keys[j]] = len(self.values)
                self.values.append(keys[j])
        if valid is not None:
            idx = np.where(valid, idx, len(keys))
        return table[idx]


def _second(pair: tuple[int, int]) -> int:
    return pair[1]


#: Seconds per unit of an Arrow timestamp.
_PER_SECOND = {"s": 1, "ms": 1_000, "us": 1_000_000, "ns": 1_000_000_000}


def numeric_column(arr: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """An Arrow numeric, boolean, null, timestamp or date column as float64 with NaN for
    null; a timestamp or a date as Unix seconds (a timestamp's zone, if any, is UTC in
    Arrow). An integer beyond ±2^53, which float64 cannot hold exactly, raises
    ``pyarrow.ArrowInvalid`` (Arrow's safe cast).

    >>> import pyarrow as pa, datetime
    >>> numeric_column(pa.array([1, None, 3])).tolist()
    [1.0, nan, 3.0]
    >>> numeric_column(pa.array([datetime.datetime(1970, 1, 1, 0, 1)], pa.timestamp("ns")))
    array([60.])
    """
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    if pa.types.is_date(arr.type):
        arr = pc.cast(arr, pa.timestamp("s"))
    if pa.types.is_timestamp(arr.type):
        per = _PER_SECOND[arr.type.unit]
        ticks = pc.cast(arr, pa.int64()).to_numpy(zero_copy_only=False)
        if arr.null_count:  # a float array with NaN: the ticks of the rest are exact
            valid = np.asarray(arr.is_valid())
            whole = np.zeros(len(arr), np.int64)
            whole[valid] = pc.drop_null(pc.cast(arr, pa.int64())).to_numpy()
            seconds = (whole // per).astype(np.float64) + (whole % per) / per
            seconds[~valid] = np.nan
            return seconds
        out: np.ndarray = (ticks // per).astype(np.float64) + (ticks % per) / per
        return out
    if arr.type != pa.float64():
        arr = pc.cast(arr, pa.float64())
    if arr.null_count:
        arr = pc.fill_null(arr, np.nan)
    out = arr.to_numpy(zero_copy_only=False)
    return out


def codes_to_float(codes: np.ndarray) -> np.ndarray:
    """Category codes (``-1`` for null) as float64 feature values (NaN for null)."""
    out = codes.astype(np.float64)
    out[codes < 0] = np.nan
    return out
