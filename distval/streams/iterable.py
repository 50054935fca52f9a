"""Any iterable of ``(x: dict, y)`` pairs as a stream: river's datasets and generators, lists.

Rows are read in batches. The features are the keys of the first row (a key missing from a
later row is a missing value; keys the first row lacks are not read); a feature whose first
value is not a number (a string, say) is nominal, its categories coded in order of first
appearance. Labels get class indices in order of first appearance.

A river generator has no end: the stream then needs ``n_rows``. A one-shot iterator (a
Python generator) can be read once; lists and river datasets start a fresh pass each time.

>>> from river.datasets import synth
>>> s = IterableStream(synth.SEA(seed=1), n_rows=250)
>>> [len(c) for c in s.chunks(100)], s.feature_names, s.n_rows
([100, 100, 50], ['0', '1', '2'], 250)
>>> s = IterableStream([({"colour": "red", "w": 1.5}, "yes"), ({"colour": "blue", "w": 2}, "no")])
>>> c = next(s.chunks(10))
>>> c.X.tolist(), c.y.tolist(), s.nominal, s.classes
([[0.0, 1.5], [1.0, 2.0]], [0, 1], {'colour': ['red', 'blue']}, ['yes', 'no'])
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Iterator, Mapping
from itertools import chain, islice
from typing import Any

import numpy as np
import pyarrow as pa

from distval.errors import DistvalError
from distval.streams.base import (
    Batches,
    Categories,
    Stream,
    _Pass,
    codes_to_float,
    encode_labels,
    format_value,
)

__all__ = ["IterableStream", "stream_name"]


def stream_name(source: Any) -> str:
    """A short display name of a Python stream object: its class name.

    >>> from river.datasets import synth
    >>> stream_name(synth.SEA()), stream_name([({"a": 1}, 0)])
    ('SEA', 'list')
    """
    return type(source).__name__


def _is_number(value: Any) -> bool:
    return value is None or isinstance(value, (numbers.Number, np.number))


def _known_length(source: Any) -> int | None:
    n = getattr(source, "n_samples", None)
    if isinstance(n, (int, np.integer)) and not isinstance(n, bool):
        return int(n)
    try:
        return len(source)
    except TypeError:
        return None


def _endless(source: Any) -> bool:
    """A river dataset that says it has no end (``n_samples`` None: the generators)."""
    try:
        from river.datasets import base
    except ImportError:  # pragma: no cover - river is a dependency
        return False
    return isinstance(source, base.Dataset) and source.n_samples is None


class IterableStream(Stream):
    """A stream read from an iterable of ``(x, y)`` pairs, ``x`` a dict of features.

    Parameters
    ----------
    source
        A river dataset or generator (``river.datasets.synth.SEA()``), a list of pairs, or any
        iterable of them.
    n_rows
        Rows per pass at most; required for sources without end (river's generators).
    name
        Display name; default :func:`stream_name`.
    """

    def __init__(
        self, source: Iterable[Any], *, n_rows: int | None = None, name: str | None = None
    ) -> None:
        if isinstance(source, (str, bytes, Mapping)) or not isinstance(source, Iterable):
            raise DistvalError(
                f"a stream must be a spec, a path or an iterable of (x: dict, y) pairs, "
                f"got {type(source).__name__}"
            )
        super().__init__(name or stream_name(source), n_rows)
        self.source = source
        self._one_shot = iter(source) is source
        self._used = False
        length = _known_length(source)
        if length is None and self.limit is None and _endless(source):
            raise DistvalError(
                f"stream {self.name!r} has no end: give n_rows (how many rows to read)"
            )
        if length is not None:
            self.n_rows = length if self.limit is None else min(length, self.limit)
        elif self.limit is not None and _endless(source):
            self.n_rows = self.limit
        declared = getattr(source, "n_classes", None)
        if isinstance(declared, int) and not isinstance(declared, bool) and declared > 0:
            self.n_classes = declared
        rows = iter(source)
        try:
            first = next(rows)
        except StopIteration:
            raise DistvalError(f"stream {self.name!r} is empty: a pass yielded no rows") from None
        self._first = first if self._one_shot else None
        self._rows = rows if self._one_shot else None
        x, _ = self._pair(first, 1)
        self._keys = list(x)
        self.feature_names = [str(k) for k in self._keys]
        if len(set(self.feature_names)) < len(self._keys):
            raise DistvalError(f"stream {self.name!r}: two features have the same name as text")
        self._strings = [str(k) for k, v in x.items() if not _is_number(v)]
        self.nominal = {f: [] for f in self._strings}

    def _pair(self, row: Any, number: int) -> tuple[Mapping[Any, Any], Any]:
        if not (isinstance(row, tuple) and len(row) == 2 and isinstance(row[0], Mapping)):
            raise DistvalError(
                f"stream {self.name!r}: row {number} is not an (x: dict, y) pair: {row!r:.80}"
            )
        return row[0], row[1]

    def _open_pass(self, size: int) -> _Pass:
        if self._one_shot:
            if self._used:
                raise DistvalError(
                    f"stream {self.name!r} is a one-shot iterator and was read already; "
                    "give a list or a river dataset to read it again"
                )
            self._used = True
            rows: Iterator[Any] = chain([self._first], self._rows or ())
            self._first, self._rows = None, None
        else:
            rows = iter(self.source)
        labels = Categories()
        nominal = {f: Categories() for f in self._strings}
        return _Pass(self._batches(rows, labels, nominal, size), labels, nominal)

    def _batches(
        self, rows: Iterator[Any], labels: Categories, nominal: dict[str, Categories], size: int
    ) -> Batches:
        keys = self._keys
        done = 0
        limit = self.limit
        while limit is None or done < limit:
            block = list(islice(rows, size if limit is None else min(size, limit - done)))
            if not block:
                break
            pairs = [self._pair(r, done + i + 1) for i, r in enumerate(block)]
            xs = [[x.get(k) for k in keys] for x, _ in pairs]
            X = self._matrix(xs, nominal, done)
            ys = [y for _, y in pairs]
            y = encode_labels(labels, ys, self.name, done)
            done += len(block)
            yield X, y

    def _matrix(
        self, xs: list[list[Any]], nominal: dict[str, Categories], done: int
    ) -> np.ndarray:
        n, d = len(xs), len(self._keys)
        if not self._strings:
            try:
                return np.array(xs, dtype=np.float64).reshape(n, d)
            except (ValueError, TypeError):
                pass  # a non-number in a numeric feature: found and reported below
        X = np.empty((n, d), dtype=np.float64)
        for j, f in enumerate(self.feature_names):
            col = [x[j] for x in xs]
            if f in nominal:
                text = [None if v is None else format_value(v) for v in col]
                X[:, j] = codes_to_float(nominal[f].encode(pa.array(text, type=pa.string())))
                continue
            try:
                X[:, j] = np.array(col, dtype=np.float64)
            except (ValueError, TypeError):
                i = next(i for i, v in enumerate(col) if not _is_number(v))
                raise DistvalError(
                    f"stream {self.name!r}: feature {f!r} is numeric in the first row but row "
                    f"{done + i + 1} holds {col[i]!r}"
                ) from None
        return X
